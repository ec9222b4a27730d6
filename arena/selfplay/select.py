"""Selection that knows its uncertainty.

Ratings are TrueSkill (:func:`arena.ratings.rate`) folded over every *select*-split game of
every generation so far, in (generation, plan) order: a candidate that survives keeps its id,
so its σ keeps shrinking instead of resetting each generation. Elites are ranked by the
conservative score μ − kσ (one lucky win at high σ never outranks thirty games at equal μ);
parents are drawn by the optimistic bound μ + cσ, so uncertain candidates get explored.
Ties break by candidate id, so the order never depends on dict or arrival order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
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


# -- the per-(game, role) Pareto front ------------------------------------------------------
RoleKey = tuple[str, str]  # (game, role)


def candidate_role(result: MatchResult, is_candidate: Callable[[str], bool]) -> RoleKey | None:
    """The (game, role) the candidate of a self-play game played (its role, else its team)."""
    for s in result.seats:
        if is_candidate(s.agent):
            return result.game, s.role or s.team or "*"
    return None


def role_ratings(
    results: Iterable[MatchResult], is_candidate: Callable[[str], bool]
) -> dict[RoleKey, dict[str, Rating]]:
    """TrueSkill per (game, role): each table folds only the games whose candidate played that
    role, so a candidate strong in one role is not averaged away by another."""
    by_role: dict[RoleKey, list[MatchResult]] = {}
    for r in results:
        key = candidate_role(r, is_candidate)
        if key is not None:
            by_role.setdefault(key, []).append(r)
    return {key: ratings(rs) for key, rs in sorted(by_role.items())}


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
