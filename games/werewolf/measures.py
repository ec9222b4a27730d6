"""Werewolf measures of one match (spec werewolf.md §14), from its god-view event log.

``match_measures(events, agents)`` reads a list of events (engine drafts or the stamped
``Event`` records of a match's JSONL) and returns plain data. Every rate is stored as a
``[numerator, denominator]`` pair under ``counts`` so that :mod:`games.werewolf.measures_agg`
can pool matches and bootstrap them; ``values`` holds the per-match ratios (``None`` when the
denominator is 0 — missing is never 0). Conventions chosen where the spec leaves room:

- a "binding day vote" d is a day's first ballot round (``vote_result`` with ``revote`` false);
  revote ballots are restricted to the tied candidates, so they are left out of VA and the
  suspicion ratio (whose chance terms assume every alive player is a candidate);
- WolfEscape and VotesSurvived count days with a binding vote, using that day's exile;
- Seer information use: a wolf found by the Seer counts as used when it is exiled on the day
  the result is available or the next day, before the Seer's death.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

from arena.events import GameEvent
from arena.ratings.measures import AgentFigures, Figure, MeasureInfo
from games.werewolf.suspicion import is_wolf_result, team_of

WOLF = "werewolf"
SPECIAL_ROLES = ("seer", "doctor", "witch", "guard", "hunter")
CLIP = 1e-4


def _audience(event: GameEvent) -> int | None:
    """The single seat a private event is addressed to, if it says so."""
    seats = event.visibility.seats
    return int(seats[0]) if len(seats) == 1 else None


def _seat(x: Any) -> int | None:
    if x is None or str(x) == "abstain":
        return None
    return int(x)


def _ratio(num: float, den: float) -> float | None:
    return num / den if den else None


def deduction(beliefs: Mapping[int, float], truth: Mapping[int, bool]) -> dict[str, float | None]:
    """DA (½ credit at exactly 0.5), clipped BCE and AUC (ties ½) over the players in ``truth``
    that have a belief; players without one are missing, never 0.5."""
    import math

    pairs = [(beliefs[j], truth[j]) for j in truth if j in beliefs]
    if not pairs:
        return {"da": None, "bce": None, "auc": None, "n": 0}
    da = bce = 0.0
    for b, y in pairs:
        da += 0.5 if b == 0.5 else float((b > 0.5) == y)
        p = min(max(b, CLIP), 1 - CLIP)
        bce -= math.log(p) if y else math.log(1 - p)
    pos = [b for b, y in pairs if y]
    neg = [b for b, y in pairs if not y]
    auc = None
    if pos and neg:
        wins = sum(1.0 if a > c else 0.5 if a == c else 0.0 for a in pos for c in neg)
        auc = wins / (len(pos) * len(neg))
    return {"da": da / len(pairs), "bce": bce / len(pairs), "auc": auc, "n": len(pairs)}


class _Counts(defaultdict[str, list[float]]):
    def __init__(self) -> None:
        super().__init__(lambda: [0.0, 0.0])

    def add(self, key: str, num: float, den: float = 1.0) -> None:
        pair = self[key]
        pair[0] += num
        pair[1] += den


def match_measures(
    events: Iterable[GameEvent], agents: Mapping[int, str] | None = None
) -> dict[str, Any]:
    """All §14 measures of one match. ``agents`` maps seat -> agent entry name (default: the
    seat number as a string)."""
    event_list = list(events)
    evs = [(e.type, e.payload) for e in event_list]
    roles: dict[int, str] = {}
    names: list[str] = []
    rules: dict[str, Any] = {}
    composition: dict[str, int] = {}
    for kind, p in evs:
        if kind == "setup":
            names = list(p.get("names") or [])
            rules = dict(p.get("rules") or {})
            composition = {str(k): int(v) for k, v in (p.get("composition") or {}).items()}
        elif kind == "role":
            roles[int(p["seat"])] = str(p["role"])
        elif kind == "game_over":
            for s, r in (p.get("roles") or {}).items():
                roles.setdefault(int(s), str(r))
    n = len(names) or (max(roles) + 1 if roles else 0)
    agents = {s: (agents or {}).get(s, str(s)) for s in range(n)}
    wolves = {s for s, r in roles.items() if r == WOLF}
    c = _Counts()

    alive = set(range(n))
    death_idx: dict[int, int] = {}
    phase = ("setup", 0)
    night_bounds: list[list[int]] = []  # [start index, end index] per night
    day = 0
    max_day = 0
    wolf_target: dict[int, int | None] = {}
    protected: dict[int, set[int]] = defaultdict(set)
    healed: dict[int, bool] = defaultdict(bool)
    killed_at_night: dict[int, set[int]] = defaultdict(set)
    seer_found: list[dict[str, Any]] = []
    known: dict[int, set[int]] = defaultdict(set)  # reporter -> seats whose team it knows
    night_dead_public: set[int] = set()
    revealed: set[int] = set()
    round_ballots: list[tuple[int, int | None]] = []
    votes: list[dict[str, Any]] = []
    exiles: dict[int, tuple[int | None, int]] = {}
    belief_reports: list[dict[str, Any]] = []
    speech: dict[int, dict[str, int]] = {
        s: {"messages": 0, "chars": 0, "wolf_messages": 0} for s in range(n)
    }
    bids: dict[int, dict[str, float]] = {s: {"n": 0, "sum": 0.0, "turns_won": 0} for s in range(n)}
    turns = 0
    outcome: dict[str, Any] = {}

    for idx, (kind, p) in enumerate(evs):
        if kind == "phase":
            if phase[0] == "night" and night_bounds:
                night_bounds[-1][1] = idx
            phase = (str(p.get("phase")), int(p.get("number") or 0))
            if phase[0] == "night":
                night_bounds.append([idx, len(evs)])
            else:
                day = phase[1]
                max_day = max(max_day, day)
                for f in seer_found:
                    f.setdefault("day", day)
        elif kind == "wolf_target":
            wolf_target[phase[1]] = _seat(p.get("target"))
        elif kind == "protect":
            protected[phase[1]].add(int(p["target"]))
        elif kind == "witch_action":
            healed[phase[1]] = healed[phase[1]] or bool(p.get("heal"))
        elif kind == "seer_result":
            seer = _audience(event_list[idx]) or next(
                (s for s, r in roles.items() if r == "seer"), -1
            )
            target = int(p["target"])
            known[seer].add(target)
            if is_wolf_result(p.get("result")) and all(f["target"] != target for f in seer_found):
                seer_found.append({"seer": seer, "target": target})
        elif kind == "dawn":
            night_dead_public.update(int(s) for s in p.get("dead") or [])
            revealed.update(int(s) for s, v in (p.get("reveals") or {}).items() if v is not None)
        elif kind == "death":
            s = int(p["seat"])
            alive.discard(s)
            death_idx.setdefault(s, idx)
            if phase[0] == "night":
                killed_at_night[phase[1]].add(s)
        elif kind == "ballot" and not p.get("poll"):
            round_ballots.append((int(p["voter"]), _seat(p.get("target"))))
        elif kind == "vote_result":
            ballots = round_ballots or [
                (int(v), _seat(t)) for v, t in (p.get("ballots") or {}).items()
            ]
            votes.append(
                {"day": day, "revote": bool(p.get("revote")), "alive": set(alive),
                 "wolves": wolves & alive, "ballots": ballots}
            )  # fmt: skip
            round_ballots = []
        elif kind == "exile":
            exiles[day] = (_seat(p.get("seat")), idx)
            if p.get("seat") is not None and p.get("reveal") is not None:
                revealed.add(int(p["seat"]))
        elif kind == "belief":
            reporter = int(p["seat"])
            public_known = set(revealed)
            if rules.get("wolf_targets", "non_wolves") == "non_wolves" and not composition.get(
                "witch"
            ):
                public_known |= night_dead_public
            own = (wolves if reporter in wolves else set()) | known[reporter]
            belief_reports.append(
                {"seat": reporter, "day": day, "beliefs": p.get("beliefs") or {},
                 "known": (public_known | own) - {reporter}}
            )  # fmt: skip
        elif kind in ("message", "last_words", "wolf_message"):
            s = int(p["seat"])
            if kind == "wolf_message":
                speech[s]["wolf_messages"] += 1
            else:
                speech[s]["messages"] += 1
                speech[s]["chars"] += len(str(p.get("text") or ""))
        elif kind == "bid":
            s = int(p["seat"])
            bids[s]["n"] += 1
            bids[s]["sum"] += float(p["bid"])
        elif kind == "turn" and rules.get("discussion_mode") == "bidding":
            bids[int(p["seat"])]["turns_won"] += 1
            turns += 1
        elif kind == "game_over":
            outcome = p
            if phase[0] == "night" and night_bounds:
                night_bounds[-1][1] = idx

    # -- outcome and win rates (§14.1) ------------------------------------------------------
    label = str(outcome.get("outcome") or "")
    winners = [str(w) for w in outcome.get("winners") or []]
    aborted = not outcome or label == "aborted"
    draw = not aborted and not winners
    seats: dict[int, dict[str, Any]] = {}
    for s in range(n):
        role = roles.get(s, "villager")
        team = team_of(role) or "village"
        score = 0.5 if draw else float(team in winners)
        seats[s] = {"agent": agents[s], "role": role, "team": team, "score": score,
                    "alive_end": s not in death_idx}  # fmt: skip
    if not aborted:
        c.add("village_win", 0.5 if draw else float("village" in winners))
        c.add("wolves_win", 0.5 if draw else float("wolves" in winners))
        c.add("draw", float(draw))
        c.add("cap", float(label.startswith("draw") or "cap" in label))
        c.add("length_days", float(max_day))
        for key in {(a, seats[s]["team"]) for s, a in agents.items()}:
            c.add(
                f"wr|{key[0]}|{key[1]}",
                next(seats[s]["score"] for s in seats if (agents[s], seats[s]["team"]) == key),
            )
            c.add(f"draw|{key[0]}|{key[1]}", float(draw))
        for key in {(a, seats[s]["role"]) for s, a in agents.items()}:
            c.add(
                f"wr_role|{key[0]}|{key[1]}",
                next(seats[s]["score"] for s in seats if (agents[s], seats[s]["role"]) == key),
            )

    # -- votes (§14.2, §14.3, §14.5) -----------------------------------------------------------
    vote_days = [v for v in votes if not v["revote"]]
    for v in vote_days:
        a_d, w_d = v["alive"], v["wolves"]
        chance = len(w_d) / (len(a_d) - 1) if len(a_d) > 1 else 0.0
        village_ballots = [(x, t) for x, t in v["ballots"] if x not in w_d and t is not None]
        for x, t in village_ballots:
            hit = float(t in w_d)
            for suffix in ("", f"|{agents[x]}") + (("|seer",) if roles.get(x) == "seer" else ()):
                c.add("va" + suffix, hit)
                c.add("va_chance" + suffix, chance)
        exiled = exiles.get(v["day"], (None, 0))[0]
        if w_d:
            c.add("wolf_escape", float(exiled not in w_d))
        for w in w_d:
            c.add("votes_survived", float(exiled != w))
            if village_ballots and len(a_d) > 1:
                share = sum(t == w for _, t in village_ballots) / len(village_ballots)
                c.add("suspicion_ratio", share * (len(a_d) - 1))
                c.add(f"suspicion_ratio|{agents[w]}", share * (len(a_d) - 1))
        c.add("no_exile", float(exiled is None))
        if exiled is not None:
            c.add("exile_acc", float(exiled in wolves))

    # -- village effectiveness (§14.3) ---------------------------------------------------------
    for f in seer_found:
        exile_day = next((d for d, (s, _) in exiles.items() if s == f["target"]), None)
        used = 0.0
        if exile_day is not None and "day" in f and f["day"] <= exile_day <= f["day"] + 1:
            used = float(death_idx.get(f["seer"], len(evs)) > exiles[exile_day][1])
        c.add("seer_info_use", used)
    for night, attacked in wolf_target.items():
        if attacked is not None:
            saved = attacked not in killed_at_night[night] and (
                attacked in protected[night] or healed[night]
            )
            c.add("save_rate", float(saved))

    # -- key-role survival (§14.4) --------------------------------------------------------
    nights = len(night_bounds)
    for s, role in roles.items():
        if role not in SPECIAL_ROLES:
            continue
        d_idx = death_idx.get(s, len(evs) + 1)
        c.add(f"{role}_surv", float(s not in death_idx))
        c.add(
            f"{role}_n1",
            float(bool(night_bounds) and night_bounds[0][0] < d_idx < night_bounds[0][1]),
        )
        if nights:
            c.add(f"{role}_life", sum(d_idx >= end for _, end in night_bounds) / nights)

    # -- deduction (§14.6) ------------------------------------------------------------------
    reports = []
    for rep in belief_reports:
        i = rep["seat"]
        raw = {}
        for k, val in rep["beliefs"].items():
            try:
                raw[int(k)] = float(val)
            except (TypeError, ValueError):
                continue  # unparseable: missing, never 0.5
        truth = {j: j in wolves for j in range(n) if j != i}
        truth_nt = {j: y for j, y in truth.items() if j not in rep["known"]}
        full, nt = deduction(raw, truth), deduction(raw, truth_nt)
        record = {"seat": i, "agent": agents.get(i, str(i)), "role": roles.get(i), "day": rep["day"],
                  "missing": len(truth) - cast(float, full["n"]), **full,
                  **{f"{k}_nt": v for k, v in nt.items()}}  # fmt: skip
        reports.append(record)
        for metric in ("da", "bce", "auc", "da_nt", "bce_nt", "auc_nt"):
            if record[metric] is not None:
                c.add(metric, record[metric])
                c.add(f"{metric}|role={record['role']}", record[metric])
                c.add(f"{metric}|agent={record['agent']}", record[metric])

    # -- other descriptors (§14.7) -----------------------------------------------------------
    if n:
        c.add("messages_per_player", sum(x["messages"] for x in speech.values()), n)
        c.add("chars_per_player", sum(x["chars"] for x in speech.values()), n)
        c.add(
            "wolf_messages_per_wolf", sum(speech[w]["wolf_messages"] for w in wolves), len(wolves)
        )
    n_bids = sum(b["n"] for b in bids.values())
    if n_bids:
        c.add("mean_bid", sum(b["sum"] for b in bids.values()), n_bids)

    counts = {k: [float(a), float(b)] for k, (a, b) in c.items()}
    return {
        "outcome": label or None, "winners": winners, "aborted": aborted, "draw": draw,
        "n_players": n, "length_days": max_day, "nights": nights, "seats": seats,
        "counts": counts, "values": {k: _ratio(a, b) for k, (a, b) in counts.items()},
        "beliefs": reports, "speech": speech, "bids": bids, "turns": turns,
    }  # fmt: skip


# -- per agent entry, for the arena (GameInfo.measures) ----------------------------------------
# Leaderboard name -> (counts key of match_measures, {a}: the agent entry; yes/no outcomes?).
AGENT_FIGURES = {
    "win_rate_village": ("wr|{a}|village", True),  # §14.1, a draw scores ½
    "win_rate_wolves": ("wr|{a}|wolves", True),
    "vote_accuracy": ("va|{a}", True),  # §14.2: the agent's village ballots that hit a wolf
    "vote_accuracy_chance": ("va_chance|{a}", False),  # what random ballots would have hit
    "wolf_suspicion_ratio": ("suspicion_ratio|{a}", False),  # §14.5 deception: < 1 hides
    "deduction_accuracy": ("da|agent={a}", False),  # §14.6 over every other player
    "deduction_accuracy_nt": ("da_nt|agent={a}", False),  # over the players it did not know
    "deduction_bce": ("bce|agent={a}", False),
    "deduction_auc": ("auc|agent={a}", False),
}


def agent_measures(events: Sequence[GameEvent], seats: Mapping[int, str]) -> AgentFigures:
    """The arena's hook (GameInfo.measures): per agent entry, the :data:`AGENT_FIGURES` of one
    match, plus survival (seats alive at the end / seats played). Empty when aborted."""
    m = match_measures(events, seats)
    if m["aborted"]:
        return {}
    out: AgentFigures = {}
    for agent in sorted(set(seats.values())):
        figures: dict[str, Figure] = {}
        for name, (key, binary) in AGENT_FIGURES.items():
            pair = m["counts"].get(key.format(a=agent))
            if pair is not None and pair[1] > 0:
                figures[name] = Figure(pair[0], pair[1], binary)
        mine = [x for x in m["seats"].values() if x["agent"] == agent]
        if mine:
            alive = float(sum(x["alive_end"] for x in mine))
            figures["survival"] = Figure(alive, float(len(mine)), binary=True)
        out[agent] = figures
    return out


SHARE = "share (0-1)"
# What `arena leaderboard --measures` prints beside each measure (GameInfo.measure_info).
MEASURE_INFO = {
    "win_rate_village": MeasureInfo(SHARE, "matches won seated in the village (a draw: ½)"),
    "win_rate_wolves": MeasureInfo(SHARE, "matches won seated with the wolves (a draw: ½)"),
    "vote_accuracy": MeasureInfo(
        SHARE, "its village ballots that hit a wolf (the binding first vote of each day)"
    ),
    "vote_accuracy_chance": MeasureInfo(
        SHARE, "what uniformly random ballots would have hit in the same votes"
    ),
    "wolf_suspicion_ratio": MeasureInfo(
        "ratio (1 = chance)",
        "village ballots on its wolves, as a share of ballots, times (players alive - 1); "
        "below 1 its wolves drew fewer votes than chance",
    ),
    "deduction_accuracy": MeasureInfo(
        SHARE, "other players its final beliefs put on the right side (½ at exactly 0.5)"
    ),
    "deduction_accuracy_nt": MeasureInfo(
        SHARE, "deduction_accuracy over the players whose side it was not told"
    ),
    "deduction_bce": MeasureInfo(
        "nats (lower is better)", "cross-entropy of its final beliefs against the true sides"
    ),
    "deduction_auc": MeasureInfo(
        "AUC (0.5 = chance)", "how well its final beliefs rank wolves apart from villagers"
    ),
    "survival": MeasureInfo(SHARE, "its seats still alive when the match ended"),
}
