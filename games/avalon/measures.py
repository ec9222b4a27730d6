"""Avalon measures (spec avalon.md §9) per match and aggregated per agent entry.

``match_measures(events)`` reads one match's god-view events (engine drafts or the stamped
``Event`` records of its JSONL). ``aggregate(matches)`` takes ``(measures, {seat: agent})`` pairs and returns per-agent
and per-(agent, role) means with 95% CIs (metrics.md §C5: Wilson for win rates, bootstrap over
matches otherwise, both from :mod:`arena.stats`; the bootstrap uses its own seeded ``numpy``
Generator). Ratios with a zero
denominator are ``None`` (missing), never 0.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from arena.events import GameEvent
from arena.ratings.measures import AgentFigures, Figure, MeasureInfo
from arena.stats import ratio_ci, wilson
from games.avalon.config import SETUP_TABLE, side_of

EPS = 1e-4
SEAT_METRICS = ("da", "da_nt", "bce", "dec", "dec_gain", "dec_all", "lead", "inf", "pivotal",
                "purity_approve", "purity_reject", "assassin_hit", "merlin_survived")  # fmt: skip


def _ratio(num: float, den: float) -> float | None:
    return num / den if den else None


def _mean(xs: list[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def deduction(report: dict[int, float], sides: dict[int, str], exclude: set[int]) -> dict[str, Any]:
    """DA, DA^nt and BCE of one report (§9.2) over the players it names."""

    def c(b: float, y: int) -> float:
        return 0.5 if b == 0.5 else float((b > 0.5) == (y == 1))

    items = [(j, b, int(sides[j] == "good")) for j, b in report.items()]
    da = _mean([c(b, y) for _, b, y in items])
    nt = _mean([c(b, y) for j, b, y in items if j not in exclude])

    def loss(b: float, y: int) -> float:
        q = min(max(b, EPS), 1 - EPS)
        return -(y * math.log(q) + (1 - y) * math.log(1 - q))

    bce = _mean([loss(b, y) for _, b, y in items])
    return {"da": da, "da_nt": nt, "bce": bce}


Votes = list[tuple[list[int], dict[int, str], bool]]  # (team, ballots, approved) per vote


def _told(ev: list[GameEvent]) -> tuple[dict[int, set[int]], dict[int, set[int]]]:
    """seat -> players whose side it was told, and target -> Lady holders who examined it."""
    told: dict[int, set[int]] = defaultdict(set)
    examined: dict[int, set[int]] = defaultdict(set)
    for e in ev:
        vis_seats = e.visibility.seats
        if e.type == "sees_evil":
            told[vis_seats[0]].update(e.payload["evil"])
        elif e.type == "sees_merlin_candidates" and len(e.payload["merlin_candidates"]) == 1:
            told[vis_seats[0]].update(e.payload["merlin_candidates"])
        elif e.type == "lady_result":
            told[vis_seats[0]].add(e.payload["target"])
            examined[e.payload["target"]].add(vis_seats[0])
    return told, examined


def _votes(ev: list[GameEvent]) -> tuple[Votes, dict[int, list[bool]]]:
    """Every team vote, and per leader whether each of its (not auto-approved) proposals passed."""
    votes: Votes = []
    led: dict[int, list[bool]] = defaultdict(list)
    pending_team: list[int] = []
    leader = -1
    ballots_by_key: dict[tuple[int, int], dict[int, str]] = {}
    for e in ev:
        if e.type == "vote_ballots":
            p = e.payload
            ballots_by_key[(p["quest"], p["attempt"])] = {int(s): v for s, v in p["votes"].items()}
    for e in ev:
        p = e.payload
        if e.type == "proposal":
            pending_team, leader = list(p["team"]), p["leader"]
            if not p.get("auto_approved"):
                led[p["leader"]].append(False)
        elif e.type == "vote_result":
            ballots = p.get("votes") or ballots_by_key.get((p["quest"], p["attempt"]), {})
            ballots = {int(s): v for s, v in ballots.items()}
            votes.append((pending_team, ballots, bool(p["approved"])))
            if p["approved"]:
                led[leader][-1] = True
    return votes, led


def _end_beliefs(
    ev: list[GameEvent],
) -> tuple[dict[int, dict[int, float]], dict[int, dict[int, float]]]:
    """reporter -> its final P(good) and P(Merlin) per player."""
    beliefs = {}
    merlin_beliefs = {}
    for e in ev:
        if e.type == "belief" and e.payload["checkpoint"] == "end":
            r = e.payload["reporter"]
            beliefs[r] = {int(j): float(b) for j, b in e.payload["p_good"].items()}
            merlin_beliefs[r] = {int(j): float(b) for j, b in e.payload["p_merlin"].items()}
    return beliefs, merlin_beliefs


def _vote_measures(i: int, n: int, sides: dict[int, str], votes: Votes) -> dict[str, Any]:
    """§9.4 influence, pivotal votes and team purity of seat ``i``."""
    mine = [(team, b[i], ok) for team, b, ok in votes if i in b]
    m: dict[str, Any] = {}
    m["inf"] = _ratio(sum((v == "approve") == ok for _, v, ok in mine), len(mine))
    piv = 0
    for _, b, _ in votes:
        if i in b:
            ayes = sum(v == "approve" for v in b.values())
            piv += (b[i] == "approve" and ayes == n // 2 + 1) or (
                b[i] == "reject" and ayes == n // 2
            )
    m["pivotal"] = _ratio(piv, len(mine))
    apr = [any(sides[s] == "evil" for s in t) for t, v, _ in mine if v == "approve"]
    rej = [any(sides[s] == "evil" for s in t) for t, v, _ in mine if v == "reject"]
    m["purity_approve"] = _ratio(sum(not x for x in apr), len(apr)) if sides[i] == "good" else None
    m["purity_reject"] = _ratio(sum(rej), len(rej)) if sides[i] == "good" else None
    return m


def _seat_measures(
    i: int,
    roles: dict[int, str],
    sides: dict[int, str],
    winner: str | None,
    beliefs: dict[int, dict[int, float]],
    told: dict[int, set[int]],
    examined: dict[int, set[int]],
) -> dict[str, Any]:
    """Role, outcome, deduction (§9.2) and deception (§9.3) of seat ``i``."""
    n = len(roles)
    m: dict[str, Any] = {"role": roles[i], "side": sides[i],
                         "won": None if winner is None else sides[i] == winner}  # fmt: skip
    rep = beliefs.get(i)
    m["belief_missing"] = not rep
    m.update(deduction(rep, sides, told[i]) if rep else {"da": None, "da_nt": None, "bce": None})
    obs = [o for o in range(n) if o != i and sides[o] == "good" and roles[o] != "merlin"
           and o not in examined[i]]  # fmt: skip
    dec = [beliefs[o][i] for o in obs if o in beliefs and i in beliefs[o]]
    dec_all = [beliefs[o][i] for o in range(n) if o != i and sides[o] == "good"
               and o in beliefs and i in beliefs[o]]  # fmt: skip
    good, _, _ = SETUP_TABLE[n]
    m["dec"] = _mean(dec)
    m["dec_gain"] = None if m["dec"] is None else m["dec"] - (good - 1) / (n - 1)
    m["dec_all"] = _mean(dec_all)
    return m


def _assassin_measures(
    i: int, roles: dict[int, str], assassination: dict[str, Any] | None
) -> dict[str, Any]:
    m: dict[str, Any] = {"assassin_hit": None, "merlin_survived": None}
    if assassination is not None:
        hit = roles[assassination["target"]] == "merlin"
        if assassination["assassin"] == i:
            m["assassin_hit"] = float(hit)
        if roles[i] == "merlin":
            m["merlin_survived"] = float(not hit)
    return m


def match_measures(events: Sequence[GameEvent]) -> dict[str, Any]:
    """Every §9 measure of one finished match, per seat and for the match."""
    ev = list(events)
    setup = next(e for e in ev if e.type == "setup").payload
    n = int(setup["n_players"])
    roles = {int(s): r for s, r in next(e for e in ev if e.type == "deal").payload["roles"].items()}
    sides = {s: side_of(r) for s, r in roles.items()}
    over = [e for e in ev if e.type == "game_over"]
    label = over[-1].payload["label"] if over else "aborted"
    winner = over[-1].payload["winner"] if over else None
    told, examined = _told(ev)
    votes, led = _votes(ev)
    beliefs, merlin_beliefs = _end_beliefs(ev)
    assassination = next((e.payload for e in ev if e.type == "assassination"), None)
    seats: dict[int, dict[str, Any]] = {}
    for i in range(n):
        m = _seat_measures(i, roles, sides, winner, beliefs, told, examined)
        m["lead"] = _ratio(sum(led[i]), len(led[i]))
        m.update(_vote_measures(i, n, sides, votes))
        m.update(_assassin_measures(i, roles, assassination))
        seats[i] = m
    quests = [e.payload for e in ev if e.type == "quest_result"]
    cards = {e.payload["quest"]: e.payload["cards"] for e in ev if e.type == "quest_cards"}
    loaded = [q for q in quests if sum(sides[s] == "evil" for s in q["team"]) >= q["fails_needed"]]
    failed = [q for q in quests if q["result"] == "fail"]
    exposure = [merlin_beliefs[r][m] for r in merlin_beliefs for m in range(n)
                if roles[m] == "merlin" and sides[r] == "evil" and roles[r] != "oberon"
                and m in merlin_beliefs[r]]  # fmt: skip
    return {
        "label": label,
        "winner": winner,
        "n_players": n,
        "seats": seats,
        "sabotage_efficiency": _ratio(sum(q["result"] == "fail" for q in loaded), len(loaded)),
        "over_failing_rate": _ratio(
            sum(q["fails"] > q["fails_needed"] for q in failed), len(failed)
        ),
        "merlin_exposure": _mean(exposure),
        "cards_logged": len(cards) == len(quests),
    }


# -- per agent entry, for the arena (GameInfo.measures) ----------------------------------------
# Leaderboard name -> per-seat metric of match_measures (§9).
AGENT_FIGURES = {
    "deduction_accuracy": "da",  # §9.2 DA over the final belief report
    "deduction_accuracy_nt": "da_nt",  # over the players the seat was not told about
    "deduction_bce": "bce",
    "deception": "dec",  # §9.3: mean P(good) the good observers gave this seat
    "deception_gain": "dec_gain",  # the same minus the prior
    "leadership": "lead",  # share of its proposals approved
    "influence": "inf",  # share of its ballots that matched the result
    "pivotal": "pivotal",
    "purity_approve": "purity_approve",
    "purity_reject": "purity_reject",
    "assassin_hit": "assassin_hit",
    "merlin_survived": "merlin_survived",
}


BINARY = ("assassin_hit", "merlin_survived")  # yes/no outcomes of a seat


def agent_measures(events: Sequence[GameEvent], seats: Mapping[int, str]) -> AgentFigures:
    """The arena's hook (GameInfo.measures): per agent entry, win rates by side (wins, seats)
    and every :data:`AGENT_FIGURES` metric as (sum over the agent's seats that define it,
    number of those seats). Empty when aborted."""
    mm = match_measures(events)
    if mm["label"] == "aborted":
        return {}
    out: dict[str, dict[str, list[float]]] = {}
    for s, m in mm["seats"].items():
        figures = out.setdefault(seats[int(s)], {})
        wr = figures.setdefault(f"win_rate_{m['side']}", [0.0, 0.0])
        wr[0] += float(bool(m["won"]))
        wr[1] += 1
        for name, key in AGENT_FIGURES.items():
            if m.get(key) is not None:
                pair = figures.setdefault(name, [0.0, 0.0])
                pair[0] += float(m[key])
                pair[1] += 1
    return {
        agent: {
            name: Figure(num, den, name.startswith("win_rate") or name in BINARY)
            for name, (num, den) in sorted(figures.items())
        }
        for agent, figures in sorted(out.items())
    }


# -- aggregation ------------------------------------------------------------------------
def aggregate(
    matches: list[tuple[dict[str, Any], dict[int, str]]], seed: int = 0
) -> dict[str, Any]:
    """Per agent and per (agent, role): win rates and every seat metric with n, missing, CI."""
    keys: dict[str, list[tuple[int, dict[str, Any]]]] = defaultdict(list)
    for mi, (mm, agents) in enumerate(matches):
        for s, m in mm["seats"].items():
            a = agents[int(s)]
            if mm["label"] == "aborted":
                continue
            keys[a].append((mi, m))
            keys[f"{a}/{m['role']}"].append((mi, m))
    out: dict[str, Any] = {}
    for key, rows in sorted(keys.items()):
        out[key] = summarise(rows, seed)
    aborted = sum(mm["label"] == "aborted" for mm, _ in matches)
    return {"agents": out, "matches": len(matches), "aborted": aborted}


def _clustered(
    rows: list[tuple[int, dict[str, Any]]], field: str
) -> tuple[list[float], list[float]]:
    by: dict[int, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for mi, m in rows:
        v = m.get(field)
        if v is not None:
            by[mi][0] += float(v)
            by[mi][1] += 1
    return [x[0] for x in by.values()], [x[1] for x in by.values()]


def summarise(rows: list[tuple[int, dict[str, Any]]], seed: int) -> dict[str, Any]:
    res: dict[str, Any] = {"games": len({mi for mi, _ in rows}), "seats": len(rows)}
    for side in (None, "good", "evil"):
        sub = [(mi, m) for mi, m in rows if side is None or m["side"] == side]
        wins = sum(bool(m["won"]) for _, m in sub)
        name = "wr" if side is None else f"wr_{side}"
        ci = wilson(wins, len(sub)) if sub else None  # no seat on that side: no interval
        res[name] = {"value": _ratio(wins, len(sub)), "n": len(sub), "ci": ci}
    g, e = res["wr_good"]["value"], res["wr_evil"]["value"]
    res["wr_balanced"] = None if g is None or e is None else 0.5 * (g + e)
    res["belief_missing"] = sum(bool(m.get("belief_missing")) for _, m in rows)
    for f in SEAT_METRICS:
        sums, counts = _clustered(rows, f)
        total = sum(counts)
        res[f] = {
            "mean": _ratio(sum(sums), total),
            "n": int(total),
            "missing": len(rows) - int(total),
            "ci": ratio_ci(sums, counts, np.random.default_rng(seed)),
        }
    return res


def label_shares(labels: list[str]) -> dict[str, float]:
    """Share of each outcome label (e.g. evil wins by quests, hammer, assassination)."""
    total = len(labels)
    return {lab: labels.count(lab) / total for lab in sorted(set(labels))} if total else {}


SHARE = "share (0-1)"
# What `arena leaderboard --measures` prints beside each measure (GameInfo.measure_info).
MEASURE_INFO = {
    "win_rate_good": MeasureInfo(SHARE, "matches won seated on the good side"),
    "win_rate_evil": MeasureInfo(SHARE, "matches won seated on the evil side"),
    "deduction_accuracy": MeasureInfo(
        SHARE, "other players its final belief report put on the right side (½ at 0.5)"
    ),
    "deduction_accuracy_nt": MeasureInfo(
        SHARE, "deduction_accuracy over the players whose side it was not told"
    ),
    "deduction_bce": MeasureInfo(
        "nats (lower is better)", "cross-entropy of its final beliefs against the true sides"
    ),
    "deception": MeasureInfo(
        "probability (0-1)", "mean P(good) the good players' reports gave this seat"
    ),
    "deception_gain": MeasureInfo(
        "probability points", "deception minus the prior P(good): above 0 it passed for good"
    ),
    "leadership": MeasureInfo(SHARE, "its proposed teams that were approved"),
    "influence": MeasureInfo(SHARE, "its team votes that matched the vote's result"),
    "pivotal": MeasureInfo(SHARE, "its team votes that decided the result by one vote"),
    "purity_approve": MeasureInfo(
        SHARE, "teams it approved with no evil player on them (good seats only)"
    ),
    "purity_reject": MeasureInfo(
        SHARE, "teams it rejected with an evil player on them (good seats only)"
    ),
    "assassin_hit": MeasureInfo(SHARE, "as the Assassin: shots that hit Merlin"),
    "merlin_survived": MeasureInfo(SHARE, "as Merlin: matches the Assassin missed it"),
}
