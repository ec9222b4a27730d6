"""Negotiation measures of negotiation.md §8, per match and aggregated per agent entry.

Inputs are event logs only (engine drafts or the stamped ``Event`` records of a JSONL): the god-only
``scenario`` and ``result`` events that the engines emit carry the private numbers and the
outcome. Undefined ratios are ``None`` (missing), never 0. Confidence intervals are percentile
bootstraps over matches (metrics.md §C5: B = 2000, the match is the cluster; :mod:`arena.stats`)
with their own seeded ``numpy.random.Generator``; the seed is returned with every figure. An
interval needs two matches: with one, ``lo``/``hi`` are ``None`` and the mean stays.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from arena.events import GameEvent
from arena.ratings.measures import AgentFigures, Figure
from arena.stats import mean_ci
from games.negotiation.measures_extra import (
    auction_measures,
    auction_norm,
    pie_measures,
    process_measures,
)
from games.negotiation.split_rules import complement, keep_vectors

AGREED_LABELS = ("agreement", "sale")
# Per-seat lists of MatchMeasures reported per agent entry (mean over the agent's seats).
PER_SEAT = (
    "proposals", "concession_rate", "messages", "message_chars", "invalid_actions", "fallbacks",
    "accepts", "irrational_accepts",
)  # fmt: skip


@dataclass
class MatchMeasures:
    game: str  # "split", "price", "pie" or "auction"
    n: int
    label: str
    agreed: bool
    utilities: list[float]
    disagreement: list[float]
    norm: list[float]  # Norm_i (§8.3; price: clipped surplus share, 0 without a deal)
    pareto_optimal: bool | None = None  # agreed split/pie only
    efficient_outcome: bool | None = None  # price: deal iff a ZOPA existed
    individually_rational: bool | None = None  # agreed only
    missed_deal: bool | None = None  # defined when some deal beats no deal for everyone
    no_zopa: bool | None = None  # price: r_b < r_s
    surplus_share: list[float] | None = None  # price, agreed with Z > 0: raw (p − r_s)/Z etc.
    gain_share: list[float] | None = None  # (u_i − d_i)/Σ(u_j − d_j) when defined
    nash_welfare: float = 0.0
    nash_welfare_max: float = 0.0
    nash_efficiency: float | None = None
    root_nash_welfare: float = 0.0
    joint: float = 0.0
    joint_efficiency: float | None = None
    turns: int | None = None
    walker: int | None = None
    seats: list[str] = field(default_factory=list)  # agent entry per seat, when known
    # §8.9 process and §8.5 per player (lists indexed by seat; see measures_extra)
    proposals: list[int] = field(default_factory=list)
    concession_rate: list[float | None] = field(default_factory=list)
    messages: list[int] = field(default_factory=list)
    message_chars: list[int] = field(default_factory=list)
    invalid_actions: list[int] = field(default_factory=list)
    fallbacks: list[int] = field(default_factory=list)
    accepts: list[int] = field(default_factory=list)
    irrational_accepts: list[int] = field(default_factory=list)
    # §8.10 pie
    proposer_premium: float | None = None  # mean over the match's proposals of a_prop − P/n
    agreed_proposer_premium: float | None = None
    agreement_round: int | None = None
    min_share: float | None = None
    gini: float | None = None  # of the payoffs u_i (pie and auction)
    # §8.10 auction
    allocative_efficiency: float | None = None
    revenue: float | None = None
    bid_shading: list[float | None] | None = None  # sealed: (v_i − b_i)/v_i per seat
    truthful_bid: list[bool | None] | None = None  # second price: |b_i − v_i| ≤ 1 per seat
    collusion: bool | None = None  # second price sale below the second-highest value
    winner: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _product_gain(utils: Sequence[float], d: Sequence[float]) -> float:
    return math.prod(max(0.0, u - x) for u, x in zip(utils, d, strict=True))


def match_measures(
    events: Iterable[GameEvent], seats: Sequence[str] | None = None
) -> MatchMeasures:
    """All §8 per-episode quantities of one negotiation match."""
    events = list(events)
    by_type: dict[str, dict[str, Any]] = {}
    for e in events:
        if e.type in ("game_start", "scenario", "result", "match_start"):
            by_type.setdefault(e.type, dict(e.payload))
    if "scenario" not in by_type or "result" not in by_type:
        raise ValueError("not a finished negotiation log: scenario/result events missing")
    start, sc, res = by_type.get("game_start", {}), by_type["scenario"], by_type["result"]
    if seats is None and "match_start" in by_type:
        seat_map = by_type["match_start"].get("seats") or {}
        seats = [seat_map[k] for k in sorted(seat_map, key=int)]
    utils = [float(u) for u in res["utilities"]]
    d = [float(x) for x in sc["disagreement"]]
    agreed = res["label"] in AGREED_LABELS
    if "counts" in sc:
        m = _split(sc, res, utils, d, agreed)
    elif "reservation" in sc:
        m = _price(sc, res, start, utils, d, agreed)
    elif "auction_values" in sc:
        m = _auction(sc, res, utils, d, agreed)
    else:
        m = _pie(sc, res, utils, d, agreed)
        for key, value in pie_measures(events, sc, res, utils).items():
            setattr(m, key, value)
    for key, value in process_measures(m.game, events, sc, res, start, m.n).items():
        setattr(m, key, value)
    m.turns = res.get("turn")
    m.walker = res.get("walker")
    m.seats = list(seats or [])
    m.nash_welfare = _product_gain(utils, d) if agreed else 0.0
    m.nash_efficiency = m.nash_welfare / m.nash_welfare_max if m.nash_welfare_max > 0 else None
    m.root_nash_welfare = m.nash_welfare ** (1.0 / m.n)
    m.joint = sum(utils)
    gains = [u - x for u, x in zip(utils, d, strict=True)]
    if agreed:
        m.individually_rational = all(g >= 0 for g in gains)
        if all(g >= 0 for g in gains) and sum(gains) > 0:
            m.gain_share = [g / sum(gains) for g in gains]
    return m


def _split(
    sc: dict[str, Any], res: dict[str, Any], utils: list[float], d: list[float], agreed: bool
) -> MatchMeasures:
    counts = tuple(sc["counts"])
    va, vb = (tuple(v) for v in sc["values"])
    deals = []
    for x in keep_vectors(counts):
        y = complement(counts, x)
        deals.append((float(sum(a * k for a, k in zip(va, x, strict=True))),
                      float(sum(b * k for b, k in zip(vb, y, strict=True)))))  # fmt: skip
    total = float(sc["value_total"])
    norm = [(u - x) / (total - x) if total > x else 0.0 for u, x in zip(utils, d, strict=True)]
    m = MatchMeasures(game="split", n=2, label=res["label"], agreed=agreed, utilities=utils,
                      disagreement=d, norm=norm)  # fmt: skip
    if agreed:
        m.pareto_optimal = not any(
            a >= utils[0] and b >= utils[1] and (a > utils[0] or b > utils[1]) for a, b in deals
        )
    if any(a > d[0] and b > d[1] for a, b in deals):
        m.missed_deal = not agreed
    m.nash_welfare_max = max(_product_gain(p, d) for p in deals)
    best_joint = max(a + b for a, b in deals)
    m.joint_efficiency = sum(utils) / best_joint if best_joint > 0 else None
    return m


def _price(
    sc: dict[str, Any],
    res: dict[str, Any],
    start: dict[str, Any],
    utils: list[float],
    d: list[float],
    agreed: bool,
) -> MatchMeasures:
    r_s, r_b = sc["reservation"]["0"], sc["reservation"]["1"]
    z = r_b - r_s
    lo, hi = start.get("price_range", (0, 200))
    step = start.get("price_step", 1)
    price = res.get("price")
    m = MatchMeasures(game="price", n=2, label=res["label"], agreed=agreed, utilities=utils,
                      disagreement=d, norm=[0.0, 0.0], no_zopa=z < 0)  # fmt: skip
    if agreed and z > 0:
        m.surplus_share = [(price - r_s) / z, (r_b - price) / z]
        m.norm = [min(1.0, max(0.0, s)) for s in m.surplus_share]
    elif agreed:
        m.norm = [1.0 if g >= 0 else 0.0 for g in (price - r_s, r_b - price)]
    m.efficient_outcome = agreed == (z > 0)
    grid = [(float(p - r_s), float(r_b - p)) for p in range(lo, hi + 1, step)]
    if any(a > d[0] and b > d[1] for a, b in grid):
        m.missed_deal = not agreed
    m.nash_welfare_max = max(_product_gain(g, d) for g in grid)
    m.joint_efficiency = sum(utils) / z if z > 0 else None
    return m


def _pie(
    sc: dict[str, Any], res: dict[str, Any], utils: list[float], d: list[float], agreed: bool
) -> MatchMeasures:
    pie, n = float(sc["pie"]), len(d)
    norm = [(u - o) / (pie - o) if pie > o else 0.0 for u, o in zip(utils, d, strict=True)]
    m = MatchMeasures(game="pie", n=n, label=res["label"], agreed=agreed, utilities=utils,
                      disagreement=d, norm=norm)  # fmt: skip
    if agreed:
        m.pareto_optimal = True  # shares sum to the pie: no deal dominates another (§8.4)
    rest = int(pie - sum(d))
    if rest >= n:
        m.missed_deal = not agreed
    if rest > 0:  # NW*: everyone gets o_i, the rest split as evenly as integers allow
        extra = [rest // n + (1 if i < rest % n else 0) for i in range(n)]
        m.nash_welfare_max = float(math.prod(extra))
    m.joint_efficiency = sum(utils) / pie
    return m


def _auction(
    sc: dict[str, Any], res: dict[str, Any], utils: list[float], d: list[float], agreed: bool
) -> MatchMeasures:
    values, reserve = [int(v) for v in sc["auction_values"]], int(sc["reserve_price"])
    m = MatchMeasures(game="auction", n=len(values), label=res["label"], agreed=agreed,
                      utilities=utils, disagreement=d, norm=auction_norm(values, reserve, utils))  # fmt: skip
    for key, value in auction_measures(sc, res).items():
        setattr(m, key, value)
    best = max(values) - reserve
    m.joint_efficiency = sum(utils) / best if best > 0 else None
    m.gini = None
    return m


# -- aggregation -------------------------------------------------------------------------
def bootstrap_ci(
    values: Sequence[float], seed: int = 0, n_boot: int = 2000
) -> dict[str, Any] | None:
    """Mean and percentile 95% interval over clusters (one value per match); None when empty."""
    x = [float(v) for v in values if v is not None]
    if not x:
        return None
    ci = mean_ci(x, np.random.default_rng(seed), n_boot)
    lo, hi = ci if ci is not None else (None, None)
    return {"mean": float(np.mean(x)), "lo": lo, "hi": hi, "n": len(x), "seed": seed,
            "n_boot": n_boot}  # fmt: skip


def _rate(flags: Iterable[bool | None]) -> list[float]:
    return [1.0 if f else 0.0 for f in flags if f is not None]


def aggregate(
    matches: Sequence[MatchMeasures], seed: int = 0, n_boot: int = 2000
) -> dict[str, Any]:
    """Episode-level figures over a set of matches (§8.2–§8.10)."""
    agreed = [m for m in matches if m.agreed]

    def ci(vals: Sequence[float]) -> dict[str, Any] | None:
        return bootstrap_ci(vals, seed, n_boot)

    def defined(name: str, among: Sequence[MatchMeasures] = matches) -> dict[str, Any] | None:
        return ci([getattr(m, name) for m in among if getattr(m, name) is not None])

    def per_seat(name: str) -> dict[str, Any] | None:
        """Match mean of a per-seat list (seats with a value), so the match stays the cluster."""
        vals = []
        for m in matches:
            xs = [float(x) for x in (getattr(m, name) or []) if x is not None]
            if xs:
                vals.append(sum(xs) / len(xs))
        return ci(vals)

    return {
        "games": len(matches),
        "agreement_rate": ci([1.0 if m.agreed else 0.0 for m in matches]),
        "walk_away_rate": ci([1.0 if m.label == "walk_away" else 0.0 for m in matches]),
        "turn_cap_rate": ci([1.0 if m.label == "no_deal" else 0.0 for m in matches]),
        "pareto_optimal_rate": ci(_rate(m.pareto_optimal for m in agreed)),
        "efficient_outcome_rate": ci(_rate(m.efficient_outcome for m in matches)),
        "individually_rational_rate": ci(_rate(m.individually_rational for m in agreed)),
        "missed_deal_rate": ci(_rate(m.missed_deal for m in matches)),
        "no_zopa_deal_rate": ci(_rate(m.agreed for m in matches if m.no_zopa)),
        "nash_welfare": ci([m.nash_welfare for m in matches]),
        "nash_welfare_agreed": ci([m.nash_welfare for m in agreed]),
        "nash_efficiency": ci(
            [m.nash_efficiency for m in matches if m.nash_efficiency is not None]
        ),
        "root_nash_welfare": ci([m.root_nash_welfare for m in matches]),
        "joint_efficiency": ci(
            [m.joint_efficiency for m in matches if m.joint_efficiency is not None]
        ),
        # §8.9 process (per match: totals over seats; turns over agreed matches)
        "turns_to_agreement": defined("turns", agreed),
        "proposals": ci([sum(m.proposals) for m in matches]),
        "concession_rate": per_seat("concession_rate"),
        "messages": ci([sum(m.messages) for m in matches]),
        "message_chars": ci([sum(m.message_chars) for m in matches]),
        "invalid_actions": ci([sum(m.invalid_actions) for m in matches]),
        "fallbacks": ci([sum(m.fallbacks) for m in matches]),
        "irrational_accepts": ci([sum(m.irrational_accepts) for m in matches]),
        # §8.10 pie
        "proposer_premium": defined("proposer_premium"),
        "agreed_proposer_premium": defined("agreed_proposer_premium"),
        "agreement_round": defined("agreement_round"),
        "min_share": defined("min_share"),
        "gini": defined("gini"),
        # §8.10 auction
        "allocative_efficiency": defined("allocative_efficiency"),
        "revenue": defined("revenue"),
        "bid_shading": per_seat("bid_shading"),
        "truthful_bid_rate": per_seat("truthful_bid"),
        "collusion_rate": ci(_rate(m.collusion for m in matches)),
    }


ROW_KEYS = (
    "agreement", "score_all", "score_agreed", "norm", "surplus_share", "surplus_share_clipped",
    "gain_share", "pareto", "nash_welfare", "nash_efficiency", "walk_away", *PER_SEAT,
    "bid_shading", "truthful_bid", "win",
)  # fmt: skip
# per_agent's report names of the row keys that are not named as reported
REPORT_NAMES = {"agreement": "agreement_rate", "pareto": "pareto_optimal_rate",
                "walk_away": "walk_away_rate", "truthful_bid": "truthful_bid_rate",
                "win": "win_rate"}  # fmt: skip


def agent_values(m: MatchMeasures) -> dict[str, dict[str, float]]:
    """Per agent entry of one match (seat labels in ``MatchMeasures.seats``): each defined row
    value. An agent holding several seats (self-play) gets the mean over its seats, so the match
    stays the resampling cluster; a value the match does not define is left out."""
    if not m.seats:
        raise ValueError("per_agent needs the agent entry of every seat (MatchMeasures.seats)")

    def mean(xs: Sequence[float]) -> float:
        return sum(xs) / len(xs)

    out: dict[str, dict[str, float]] = {}
    for agent in sorted(set(m.seats)):
        mine = [s for s, a in enumerate(m.seats) if a == agent]
        row: dict[str, float] = {}
        for key in (*PER_SEAT, "bid_shading", "truthful_bid"):
            seq = getattr(m, key) or []
            xs = [float(seq[s]) for s in mine if s < len(seq) and seq[s] is not None]
            if xs:
                row[key] = mean(xs)
        if m.game == "auction":
            row["win"] = 1.0 if m.winner in mine else 0.0
        row["agreement"] = 1.0 if m.agreed else 0.0
        row["score_all"] = mean([m.utilities[s] for s in mine])
        row["norm"] = mean([m.norm[s] for s in mine])
        row["nash_welfare"] = m.nash_welfare
        if m.nash_efficiency is not None:
            row["nash_efficiency"] = m.nash_efficiency
        row["walk_away"] = 1.0 if m.walker in mine else 0.0
        if m.agreed:
            row["score_agreed"] = mean([m.utilities[s] for s in mine])
            if m.pareto_optimal is not None:
                row["pareto"] = 1.0 if m.pareto_optimal else 0.0
        if m.surplus_share is not None:
            raw = mean([m.surplus_share[s] for s in mine])
            row["surplus_share"] = raw
            row["surplus_share_clipped"] = min(1.0, max(0.0, raw))
        if m.gain_share is not None:
            row["gain_share"] = mean([m.gain_share[s] for s in mine])
        out[agent] = row
    return out


def per_agent(
    matches: Sequence[MatchMeasures], seed: int = 0, n_boot: int = 2000
) -> dict[str, Any]:
    """Per agent entry (seat labels in ``MatchMeasures.seats``): scores, shares, welfare with CIs.

    An agent holding several seats of one match (self-play) contributes the mean over its seats,
    so the match stays the resampling cluster.
    """
    rows: dict[str, dict[str, list[float]]] = {}
    for m in matches:
        for agent, values in agent_values(m).items():
            row = rows.setdefault(agent, {k: [] for k in ROW_KEYS})
            for key, value in values.items():
                row[key].append(value)
    out: dict[str, Any] = {}
    for agent, row in sorted(rows.items()):
        out[agent] = {"games": len(row["agreement"])}
        for key, vals in row.items():
            out[agent][REPORT_NAMES.get(key, key)] = bootstrap_ci(vals, seed, n_boot)
    return out


BINARY = ("agreement", "pareto", "walk_away", "win", "truthful_bid")  # yes/no outcomes


def agent_measures(events: Sequence[GameEvent], seats: Mapping[int, str]) -> AgentFigures:
    """The arena's hook (GameInfo.measures): :func:`agent_values` of one match under their
    report names, one value per match. Empty when the log has no outcome (unfinished match)."""
    try:
        m = match_measures(events, [seats[s] for s in sorted(seats)])
    except ValueError:  # no scenario/result: the match did not finish
        return {}
    return {
        agent: {
            REPORT_NAMES.get(k, k): Figure(v, 1.0, k in BINARY) for k, v in sorted(values.items())
        }
        for agent, values in agent_values(m).items()
    }
