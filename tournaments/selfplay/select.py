"""Selection that knows its uncertainty, by the run's own metric.

Every candidate of a generation plays the same select units (common random numbers): the
deal, the seat and the opponent are the same for every candidate of a unit, so candidates are
compared by their **paired score means** under the configured ``metric`` (``win``: 1 for a won
game, else 0 — a draw is not a win; ``score``: the seat's reward). Ratings are fitted on every
select unit of every generation so far, each candidate's score on a unit being its mean over
the replicates played, by least squares on the additive model

    score(candidate, unit) = μ(candidate) + δ(unit) + noise,     Σ δ over the units = 0

δ(unit) is how generous the unit's deal is; μ is the candidate's expected score on an average
unit of the run, in the metric's own units, and σ its standard error (the residual variance
times the fit's inverse information). When candidates played the same units — every
generation's newcomers do — μ is exactly their mean score on them and σ is the same for all, so
**a context that scores more on the same units is never ranked below one that scores less**;
a survivor also carries its earlier units, which the unit effects put on the same footing. The
fit is a function of the set of scores: neither plan nor arrival order changes it.

A candidate that survives keeps its id, so its σ keeps shrinking instead of resetting each
generation. Elites are ranked by the conservative score μ − kσ (one lucky unit at high σ never
outranks thirty at equal μ); parents are drawn by the optimistic bound μ + cσ, so uncertain
candidates get explored. Ties break by candidate id, so the order never depends on dict or
arrival order.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from tournaments.selfplay.units import Unit


@dataclass(frozen=True)
class Rating:
    mu: float  # expected metric score on an average unit
    sigma: float  # its standard error
    games: int = 0  # units scored

    def conservative(self, k: float) -> float:
        return self.mu - k * self.sigma

    def optimistic(self, c: float) -> float:
        return self.mu + c * self.sigma


@dataclass(frozen=True)
class UnitGame:
    """One select unit and replicate: every candidate's metric score on it."""

    generation: int
    unit: str  # the unit's key (split, seed index, seat, panel entry)
    replicate: int
    game: str
    role: str  # the role (or team) of the unit's seat: the same for every candidate
    scores: dict[str, float] = field(default_factory=dict)  # candidate -> score


def unit_games(generation: int, scored: Iterable[tuple[Unit, int, str, float]]) -> list[UnitGame]:
    """A generation's select games — (unit, replicate, candidate, metric score) — as one
    contest per (unit, replicate), in the order the units were first played."""
    out: dict[tuple[str, int], UnitGame] = {}
    for unit, replicate, candidate, score in scored:
        key = (unit.key, replicate)
        if key not in out:
            out[key] = UnitGame(generation, unit.key, replicate, unit.game, unit.role)
        out[key].scores[candidate] = score
    return list(out.values())


def unit_means(units: Iterable[UnitGame]) -> dict[str, dict[str, float]]:
    """candidate -> unit key -> its score there, the mean over the replicates played (flipped
    units have several); NaN where a game errored."""
    per_unit: dict[str, dict[str, list[float]]] = {}
    for u in units:
        for cid, score in u.scores.items():
            per_unit.setdefault(cid, {}).setdefault(u.unit, []).append(score)
    return {c: {k: float(np.mean(v)) for k, v in us.items()} for c, us in per_unit.items()}


def prior() -> Rating:
    """What an unrated candidate (no scored unit) sorts as: below every rated one."""
    return Rating(-math.inf, 0.0, 0)  # -inf either way: mu - k*sigma and mu + c*sigma


def ratings(units: Iterable[UnitGame]) -> dict[str, Rating]:
    """μ and σ per candidate from the paired scores of ``units`` (module doc). Non-finite
    scores (an errored game) are left out; a unit's score is the mean over its replicates."""
    cells: dict[tuple[str, tuple[int, str]], list[float]] = {}
    for u in units:
        for cid, score in u.scores.items():
            if math.isfinite(score):
                cells.setdefault((cid, (u.generation, u.unit)), []).append(score)
    if not cells:
        return {}
    names = sorted({c for c, _ in cells})
    keys = sorted({k for _, k in cells})
    ci = {c: i for i, c in enumerate(names)}
    ki = {k: i for i, k in enumerate(keys)}
    n_c, n_u = len(names), len(keys)
    # columns: one per candidate (μ), then the unit effects as contrasts against the last
    # unit (δ_last = −Σ δ_others, so Σ δ = 0): the model has full rank when the candidates
    # are linked through shared units (the incumbent plays every generation)
    x = np.zeros((len(cells), n_c + n_u - 1))
    y = np.zeros(len(cells))
    for row, ((cid, key), values) in enumerate(sorted(cells.items())):
        x[row, ci[cid]] = 1.0
        j = ki[key]
        if j < n_u - 1:
            x[row, n_c + j] = 1.0
        else:
            x[row, n_c:] = -1.0
        y[row] = float(np.mean(values))
    beta, *_ = np.linalg.lstsq(x, y, rcond=None)
    resid = y - x @ beta
    df = len(y) - np.linalg.matrix_rank(x)
    # the residual variance; with no residual degree of freedom, the scores' own variance
    var = float(resid @ resid) / df if df > 0 else float(np.var(y))
    cov = var * np.linalg.pinv(x.T @ x)
    games = {c: 0 for c in names}
    for cid, _ in cells:
        games[cid] += 1
    return {
        c: Rating(
            round(float(beta[i]), 6) + 0.0,  # no -0.0
            round(math.sqrt(max(0.0, float(cov[i, i]))), 6),
            games[c],
        )
        for c, i in ci.items()
    }


def rank(ids: Iterable[str], table: dict[str, Rating], k: float) -> list[str]:
    """Best first by μ − kσ (unrated: the prior), ties by id."""
    p = prior()
    return sorted(set(ids), key=lambda i: (-table.get(i, p).conservative(k), i))


def optimistic_order(ids: Iterable[str], table: dict[str, Rating], c: float) -> list[str]:
    p = prior()
    return sorted(set(ids), key=lambda i: (-table.get(i, p).optimistic(c), i))


# -- the per-(game, role) Pareto front ------------------------------------------------------
RoleKey = tuple[str, str]  # (game, role)


def role_ratings(units: Iterable[UnitGame]) -> dict[RoleKey, dict[str, Rating]]:
    """The ratings per (game, role): each table folds only the units whose seat has that role,
    so a candidate strong in one role is not averaged away by another."""
    by_role: dict[RoleKey, list[UnitGame]] = {}
    for u in units:
        by_role.setdefault((u.game, u.role), []).append(u)
    return {key: ratings(us) for key, us in sorted(by_role.items())}


def pareto_front(
    ids: Iterable[str], tables: dict[RoleKey, dict[str, Rating]], k: float
) -> list[str]:
    """The candidates no other candidate dominates on μ − kσ over every (game, role) (at least
    as good in each, better in one; unrated: the prior), sorted by id."""
    p = prior()
    ids = sorted(set(ids))
    keys = sorted(tables)
    score = {i: [tables[key].get(i, p).conservative(k) for key in keys] for i in ids}

    def dominates(a: str, b: str) -> bool:
        pairs = list(zip(score[a], score[b], strict=True))
        return all(x >= y for x, y in pairs) and any(x > y for x, y in pairs)

    return [b for b in ids if not any(dominates(a, b) for a in ids if a != b)]


def survivors(
    incumbent: str,
    order: list[str],
    elites: int,
    population: int,
    front: Iterable[str] = (),
) -> list[str]:
    """Who survives a generation: the incumbent, the top ``elites`` of ``order`` (μ − kσ),
    then the Pareto ``front`` members in ``order``'s order while a child still has a place
    (at most ``population − 1`` survivors)."""
    others = [c for c in order if c != incumbent][:elites]
    out = [incumbent, *others]
    on_front = set(front)
    for c in order:
        if len(out) >= population - 1:
            break
        if c in on_front and c not in out:
            out.append(c)
    return out
