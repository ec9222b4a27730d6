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
from games.werewolf.measures_scan import Scan
from games.werewolf.suspicion import team_of

SPECIAL_ROLES = ("seer", "doctor", "witch", "guard", "hunter")
CLIP = 1e-4


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


def _read_setup(
    evs: list[tuple[str, dict[str, Any]]],
) -> tuple[dict[int, str], list[str], dict[str, Any], dict[str, int]]:
    """(roles, names, rules, composition) from the setup, role and game-over events."""
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
    return roles, names, rules, composition


def _outcome_counts(
    c: _Counts, scan: Scan, agents: dict[int, str], n: int
) -> tuple[str, list[str], bool, bool, dict[int, dict[str, Any]]]:
    """Outcome and win rates (§14.1): (label, winners, aborted, draw, per-seat records)."""
    label = str(scan.outcome.get("outcome") or "")
    winners = [str(w) for w in scan.outcome.get("winners") or []]
    aborted = not scan.outcome or label == "aborted"
    draw = not aborted and not winners
    seats: dict[int, dict[str, Any]] = {}
    for s in range(n):
        role = scan.roles.get(s, "villager")
        team = team_of(role) or "village"
        score = 0.5 if draw else float(team in winners)
        seats[s] = {"agent": agents[s], "role": role, "team": team, "score": score,
                    "alive_end": s not in scan.death_idx}  # fmt: skip
    if aborted:
        return label, winners, aborted, draw, seats
    c.add("village_win", 0.5 if draw else float("village" in winners))
    c.add("wolves_win", 0.5 if draw else float("wolves" in winners))
    c.add("draw", float(draw))
    c.add("cap", float(label.startswith("draw") or "cap" in label))
    c.add("length_days", float(scan.max_day))
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
    return label, winners, aborted, draw, seats


def _vote_counts(c: _Counts, scan: Scan, agents: dict[int, str]) -> None:
    """Votes (§14.2, §14.3, §14.5): accuracy against chance, escapes, suspicion, exiles."""
    roles, wolves = scan.roles, scan.wolves
    for v in (v for v in scan.votes if not v["revote"]):
        a_d, w_d = v["alive"], v["wolves"]
        chance = len(w_d) / (len(a_d) - 1) if len(a_d) > 1 else 0.0
        village_ballots = [(x, t) for x, t in v["ballots"] if x not in w_d and t is not None]
        for x, t in village_ballots:
            hit = float(t in w_d)
            for suffix in ("", f"|{agents[x]}") + (("|seer",) if roles.get(x) == "seer" else ()):
                c.add("va" + suffix, hit)
                c.add("va_chance" + suffix, chance)
        exiled = scan.exiles.get(v["day"], (None, 0))[0]
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


def _village_counts(c: _Counts, scan: Scan) -> None:
    """Village effectiveness (§14.3): the Seer's finds used, night saves."""
    exiles = scan.exiles
    for f in scan.seer_found:
        exile_day = next((d for d, (s, _) in exiles.items() if s == f["target"]), None)
        used = 0.0
        if exile_day is not None and "day" in f and f["day"] <= exile_day <= f["day"] + 1:
            used = float(scan.death_idx.get(f["seer"], scan.n_events) > exiles[exile_day][1])
        c.add("seer_info_use", used)
    for night, attacked in scan.wolf_target.items():
        if attacked is not None:
            saved = attacked not in scan.killed_at_night[night] and (
                attacked in scan.protected[night] or scan.healed[night]
            )
            c.add("save_rate", float(saved))


def _survival_counts(c: _Counts, scan: Scan) -> None:
    """Key-role survival (§14.4): to the end, through night 1, share of nights lived."""
    bounds = scan.night_bounds
    nights = len(bounds)
    for s, role in scan.roles.items():
        if role not in SPECIAL_ROLES:
            continue
        d_idx = scan.death_idx.get(s, scan.n_events + 1)
        c.add(f"{role}_surv", float(s not in scan.death_idx))
        c.add(f"{role}_n1", float(bool(bounds) and bounds[0][0] < d_idx < bounds[0][1]))
        if nights:
            c.add(f"{role}_life", sum(d_idx >= end for _, end in bounds) / nights)


def _deduction_counts(
    c: _Counts, scan: Scan, agents: dict[int, str], n: int
) -> list[dict[str, Any]]:
    """Deduction (§14.6): each belief report scored over every other player and over those
    whose side the reporter was not told; returns the per-report records."""
    reports = []
    for rep in scan.belief_reports:
        i = rep["seat"]
        raw = {}
        for k, val in rep["beliefs"].items():
            try:
                raw[int(k)] = float(val)
            except (TypeError, ValueError):
                continue  # unparseable: missing, never 0.5
        truth = {j: j in scan.wolves for j in range(n) if j != i}
        truth_nt = {j: y for j, y in truth.items() if j not in rep["known"]}
        full, nt = deduction(raw, truth), deduction(raw, truth_nt)
        record = {"seat": i, "agent": agents.get(i, str(i)), "role": scan.roles.get(i),
                  "day": rep["day"], "missing": len(truth) - cast(float, full["n"]), **full,
                  **{f"{k}_nt": v for k, v in nt.items()}}  # fmt: skip
        reports.append(record)
        for metric in ("da", "bce", "auc", "da_nt", "bce_nt", "auc_nt"):
            if record[metric] is not None:
                c.add(metric, record[metric])
                c.add(f"{metric}|role={record['role']}", record[metric])
                c.add(f"{metric}|agent={record['agent']}", record[metric])
    return reports


def _descriptor_counts(c: _Counts, scan: Scan, n: int) -> None:
    """Other descriptors (§14.7): messages, characters, wolf-channel messages, bids."""
    speech, bids = scan.speech, scan.bids
    if n:
        c.add("messages_per_player", sum(x["messages"] for x in speech.values()), n)
        c.add("chars_per_player", sum(x["chars"] for x in speech.values()), n)
        wolf_said = sum(speech[w]["wolf_messages"] for w in scan.wolves)
        c.add("wolf_messages_per_wolf", wolf_said, len(scan.wolves))
    n_bids = sum(b["n"] for b in bids.values())
    if n_bids:
        c.add("mean_bid", sum(b["sum"] for b in bids.values()), n_bids)


def match_measures(
    events: Iterable[GameEvent], agents: Mapping[int, str] | None = None
) -> dict[str, Any]:
    """All §14 measures of one match. ``agents`` maps seat -> agent entry name (default: the
    seat number as a string)."""
    event_list = list(events)
    evs = [(e.type, e.payload) for e in event_list]
    roles, names, rules, composition = _read_setup(evs)
    n = len(names) or (max(roles) + 1 if roles else 0)
    seat_agents = {s: (agents or {}).get(s, str(s)) for s in range(n)}
    scan = Scan(n, roles, rules, composition)
    scan.run(event_list, evs)
    c = _Counts()
    label, winners, aborted, draw, seats = _outcome_counts(c, scan, seat_agents, n)
    _vote_counts(c, scan, seat_agents)
    _village_counts(c, scan)
    _survival_counts(c, scan)
    reports = _deduction_counts(c, scan, seat_agents, n)
    _descriptor_counts(c, scan, n)
    counts = {k: [float(a), float(b)] for k, (a, b) in c.items()}
    return {
        "outcome": label or None, "winners": winners, "aborted": aborted, "draw": draw,
        "n_players": n, "length_days": scan.max_day, "nights": len(scan.night_bounds),
        "seats": seats, "counts": counts, "values": {k: _ratio(a, b) for k, (a, b) in counts.items()},
        "beliefs": reports, "speech": scan.speech, "bids": scan.bids, "turns": scan.turns,
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
