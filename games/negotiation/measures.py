"""Negotiation measures of negotiation.md §8, per match and aggregated per agent entry.

Inputs are event logs only (engine drafts or the stamped ``Event`` records of a JSONL): the god-only
``scenario`` and ``result`` events that the engines emit carry the private numbers and the
outcome. Undefined ratios are ``None`` (missing), never 0. Confidence intervals are percentile
bootstraps over matches (metrics.md §C5: B = 2000, the match is the cluster; :mod:`arena.stats`)
with their own seeded ``numpy.random.Generator``; the seed is returned with every figure. An
interval needs two matches: with one, ``lo``/``hi`` are ``None`` and the mean stays.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from arena.events import GameEvent
from arena.ratings.measures import AgentFigures, Figure
from arena.stats import mean_ci
from games.negotiation.measures_extra import pie_measures, process_measures
from games.negotiation.outcome_measures import (
    MatchMeasures,
    auction_figures,
    pie_figures,
    price_figures,
    product_gain,
    split_figures,
)

AGREED_LABELS = ("agreement", "sale")
# Per-seat lists of MatchMeasures reported per agent entry (mean over the agent's seats).
PER_SEAT = (
    "proposals", "concession_rate", "messages", "message_chars", "invalid_actions", "fallbacks",
    "accepts", "irrational_accepts",
)  # fmt: skip


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
        m = split_figures(sc, res, utils, d, agreed)
    elif "reservation" in sc:
        m = price_figures(sc, res, start, utils, d, agreed)
    elif "auction_values" in sc:
        m = auction_figures(sc, res, utils, d, agreed)
    else:
        m = pie_figures(sc, res, utils, d, agreed)
        for key, value in pie_measures(events, sc, res, utils).items():
            setattr(m, key, value)
    for key, value in process_measures(m.game, events, sc, res, start, m.n).items():
        setattr(m, key, value)
    m.turns = res.get("turn")
    m.walker = res.get("walker")
    m.seats = list(seats or [])
    m.nash_welfare = product_gain(utils, d) if agreed else 0.0
    m.nash_efficiency = m.nash_welfare / m.nash_welfare_max if m.nash_welfare_max > 0 else None
    m.root_nash_welfare = m.nash_welfare ** (1.0 / m.n)
    m.joint = sum(utils)
    gains = [u - x for u, x in zip(utils, d, strict=True)]
    if agreed:
        m.individually_rational = all(g >= 0 for g in gains)
        if all(g >= 0 for g in gains) and sum(gains) > 0:
            m.gain_share = [g / sum(gains) for g in gains]
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


@dataclass(frozen=True)
class _Boot:
    """Bootstrap CIs (match = cluster) with one seed and size for every figure of a report."""

    seed: int
    n_boot: int

    def ci(self, vals: Sequence[float]) -> dict[str, Any] | None:
        return bootstrap_ci(vals, self.seed, self.n_boot)

    def defined(self, name: str, among: Sequence[MatchMeasures]) -> dict[str, Any] | None:
        """Over the matches where the field is defined."""
        return self.ci([getattr(m, name) for m in among if getattr(m, name) is not None])

    def per_seat(self, name: str, matches: Sequence[MatchMeasures]) -> dict[str, Any] | None:
        """Match mean of a per-seat list (seats with a value), so the match stays the cluster."""
        vals = []
        for m in matches:
            xs = [float(x) for x in (getattr(m, name) or []) if x is not None]
            if xs:
                vals.append(sum(xs) / len(xs))
        return self.ci(vals)


def _outcome_figures(
    matches: Sequence[MatchMeasures], agreed: Sequence[MatchMeasures], b: _Boot
) -> dict[str, Any]:
    """§8.2–§8.8: how matches ended and how good the deals were."""
    ci = b.ci
    return {
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
    }


def _process_figures(
    matches: Sequence[MatchMeasures], agreed: Sequence[MatchMeasures], b: _Boot
) -> dict[str, Any]:
    """§8.9 process (per match: totals over seats; turns over agreed matches)."""
    ci = b.ci
    return {
        "turns_to_agreement": b.defined("turns", agreed),
        "proposals": ci([sum(m.proposals) for m in matches]),
        "concession_rate": b.per_seat("concession_rate", matches),
        "messages": ci([sum(m.messages) for m in matches]),
        "message_chars": ci([sum(m.message_chars) for m in matches]),
        "invalid_actions": ci([sum(m.invalid_actions) for m in matches]),
        "fallbacks": ci([sum(m.fallbacks) for m in matches]),
        "irrational_accepts": ci([sum(m.irrational_accepts) for m in matches]),
    }


def _pie_auction_figures(matches: Sequence[MatchMeasures], b: _Boot) -> dict[str, Any]:
    """§8.10: pie division and auction figures (missing in the other games)."""
    return {
        "proposer_premium": b.defined("proposer_premium", matches),
        "agreed_proposer_premium": b.defined("agreed_proposer_premium", matches),
        "agreement_round": b.defined("agreement_round", matches),
        "min_share": b.defined("min_share", matches),
        "gini": b.defined("gini", matches),
        "allocative_efficiency": b.defined("allocative_efficiency", matches),
        "revenue": b.defined("revenue", matches),
        "bid_shading": b.per_seat("bid_shading", matches),
        "truthful_bid_rate": b.per_seat("truthful_bid", matches),
        "collusion_rate": b.ci(_rate(m.collusion for m in matches)),
    }


def aggregate(
    matches: Sequence[MatchMeasures], seed: int = 0, n_boot: int = 2000
) -> dict[str, Any]:
    """Episode-level figures over a set of matches (§8.2–§8.10)."""
    agreed = [m for m in matches if m.agreed]
    b = _Boot(seed, n_boot)
    return {
        "games": len(matches),
        **_outcome_figures(matches, agreed, b),
        **_process_figures(matches, agreed, b),
        **_pie_auction_figures(matches, b),
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
