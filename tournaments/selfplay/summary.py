"""What a self-play repeat reports: per generation (candidates with mu, sigma, mu - k*sigma
of the metric's rating, the metric's mean over the generation's select units with its
bootstrap interval, win rate against the panel with its Wilson interval, worst panel entry,
harness health (shares of refused / fallback decisions and forfeits, with Wilson intervals),
diversity, bank size and churn, budget spent) and, per repeat, the champion's paired
improvement over the seed."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from arena.ratings.health import add_counts, health_doc, seat_counts
from arena.results import MatchResult
from arena.stats import mean_estimate, wilson
from tournaments.selfplay.candidate import Candidate
from tournaments.selfplay.gate import GateDecision
from tournaments.selfplay.phase import Episode
from tournaments.selfplay.report import churn
from tournaments.selfplay.select import Rating, UnitGame, unit_means
from tournaments.selfplay.state import Context, RepeatState


def generation_summary(
    ctx: Context,
    state: RepeatState,
    g: int,
    table: dict[str, Rating],
    played: list[tuple[Episode, MatchResult | None]],
    decision: GateDecision | None,
    contests: list[UnitGame],
) -> dict[str, Any]:
    k = ctx.config.selection.k
    # the metric per candidate and unit of this generation (the mean over its replicates)
    per_unit = unit_means(contests)
    rng = np.random.default_rng([ctx.config.master_seed, state.repeat, g, 11])
    rows = [
        _candidate_row(c, state, table.get(c.id), k, per_unit, played, rng)
        for c in state.population
    ]
    bank = state.bank
    snap = bank.at()
    # the bank against the one the previous generation (or the seed) was reported with
    before = state.generations[-1]["bank"]["version"] if state.generations else None
    if before is None:
        before = state.seed.version
    was = [i.id for i in bank.at(before).insights()] if before is not None else []
    contexts = {(c.style, c.extra_instructions, c.insights, c.examples) for c in state.population}
    return {
        "repeat": state.repeat,
        "generation": g,
        "incumbent": state.incumbent.id,
        "metric": ctx.config.metric,
        # the order of selection (rank): mu - k*sigma, ties by id; a 0.0 is a value, not None
        "candidates": sorted(rows, key=lambda r: (_unrated_last(r["conservative"]), r["id"])),
        "diversity": len(contexts) / max(1, len(state.population)),
        # fewer candidates than this: the operators proposed nothing new for some slots
        # (gGGG/proposals.json says why)
        "population": ctx.config.population,
        "bank": {
            "version": snap.version,
            "active": len(snap.insights()),
            **churn(was, [i.id for i in snap.insights()]),
        },
        "gate": decision.as_dict() if decision else None,
        "budget": ctx.ledger.as_dict(),
    }


def _candidate_row(
    c: Candidate,
    state: RepeatState,
    rt: Rating | None,
    k: float,
    per_unit: dict[str, dict[str, float]],
    played: list[tuple[Episode, MatchResult | None]],
    rng: np.random.Generator,
) -> dict[str, Any]:
    """One candidate's line of the generation: lineage, rating, score and win rates."""
    mine = [v for v in per_unit.get(c.id, {}).values() if math.isfinite(v)]
    metric = mean_estimate(mine, rng, 1000)
    per_panel: dict[str, list[float]] = {}
    counts: dict[str, int] = {}  # harness health of the candidate's seats, every split
    for e, res in played:
        if e.candidate == c.id and res is not None and res.status != "errored":
            seat = next((s for s in res.seats if s.seat == e.unit.seat), None)
            if seat is not None:
                add_counts(counts, seat_counts(seat))
        if e.candidate == c.id and e.unit.split == "select" and res is not None:
            won = res.seats[e.unit.seat].result == "win" if res.seats else False
            per_panel.setdefault(e.unit.panel, []).append(float(won))
    wins = [w for v in per_panel.values() for w in v]
    lo, hi = wilson(sum(wins), len(wins))
    parent = state.known.get(c.parent) if c.parent else None
    return {
        "id": c.id,
        **c.lineage(),
        "style": c.style,
        "insights": len(c.insights),
        # what its operator changed against its (first) parent
        "churn": churn(parent.insights if parent else c.insights, c.insights),
        "mu": rt.mu if rt else None,
        "sigma": rt.sigma if rt else None,
        "conservative": rt.conservative(k) if rt else None,
        # what the rating ranks by: the metric on this generation's select units
        "score": metric.value,
        "score_ci": [metric.low, metric.high],
        "win_rate": sum(wins) / len(wins) if wins else None,
        "win_ci": [lo, hi],
        "worst_panel_win_rate": min(
            (sum(v) / len(v) for v in per_panel.values() if v), default=None
        ),
        # how often the harness answered for it (refused, fallback, forfeited...)
        "health": health_doc(counts),
    }


def _unrated_last(conservative: float | None) -> float:
    return math.inf if conservative is None else -conservative


def improvement(state: RepeatState) -> dict[str, Any]:
    champ, seed = state.incumbent.id, state.seed.id
    if champ == seed or champ not in state.gate_scores or seed not in state.gate_scores:
        return {"champion": champ, "delta": 0.0, "n": 0, "note": "the seed was not replaced"}
    keys = sorted(set(state.gate_scores[champ]) & set(state.gate_scores[seed]))
    d = [state.gate_scores[champ][u] - state.gate_scores[seed][u] for u in keys]
    d = [x for x in d if math.isfinite(x)]
    return {
        "champion": champ,
        "delta": float(np.mean(d)) if d else 0.0,
        "n": len(d),
        "note": "paired mean over the gate units (the gate that promoted: optimistic)",
    }
