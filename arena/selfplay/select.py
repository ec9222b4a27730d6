"""Selection that knows its uncertainty.

Ratings are TrueSkill (:func:`arena.ratings.rate`) folded over every *select*-split game of
every generation so far, in (generation, plan) order: a candidate that survives keeps its id,
so its σ keeps shrinking instead of resetting each generation. Elites are ranked by the
conservative score μ − kσ (one lucky win at high σ never outranks thirty games at equal μ);
parents are drawn by the optimistic bound μ + cσ, so uncertain candidates get explored.
Ties break by candidate id, so the order never depends on dict or arrival order.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from arena.ratings import SIDE, rate, trueskill_env
from arena.results import MatchResult


@dataclass(frozen=True)
class Rating:
    mu: float
    sigma: float
    games: int = 0

    def conservative(self, k: float) -> float:
        return self.mu - k * self.sigma

    def optimistic(self, c: float) -> float:
        return self.mu + c * self.sigma


def prior() -> Rating:
    r = trueskill_env().create_rating()
    return Rating(float(r.mu), float(r.sigma), 0)


def ratings(results: Iterable[MatchResult]) -> dict[str, Rating]:
    """TrueSkill per agent entry over ``results`` (their ``index`` orders the fold)."""
    results = list(results)
    games: dict[str, int] = {}
    for r in results:
        for s in r.seats:
            games[s.agent] = games.get(s.agent, 0) + 1
    out = {}
    for name, r in rate(results).items():
        if not name.startswith(SIDE):
            out[name] = Rating(round(float(r.mu), 6), round(float(r.sigma), 6), games.get(name, 0))
    return out


def rank(ids: Iterable[str], table: dict[str, Rating], k: float) -> list[str]:
    """Best first by μ − kσ (unrated: the prior), ties by id."""
    p = prior()
    return sorted(set(ids), key=lambda i: (-table.get(i, p).conservative(k), i))


def optimistic_order(ids: Iterable[str], table: dict[str, Rating], c: float) -> list[str]:
    p = prior()
    return sorted(set(ids), key=lambda i: (-table.get(i, p).optimistic(c), i))
