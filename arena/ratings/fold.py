"""TrueSkill ratings over a growing set of results, folded incrementally (the live leaderboard).

The live board shows TrueSkill during a run because it moves match by match at the cost of one
update per result; its μ, σ and order depend on the fold order. The leaderboard of a finished run
(``arena leaderboard``, the end-of-run table) sorts by the order-free batch fit of
:mod:`arena.ratings.batch` instead (docs/ratings.md): the two boards can order close entries
differently, and the final one is the one to report.

:func:`arena.ratings.leaderboard.rate` folds results in plan order. A run finishes them roughly in
that order, so the fold adds new results at the end; a result that finished after later-planned
ones rewinds the fold to its place and refolds the tail (with bounded concurrency, a few matches).
The numbers are exactly those of :func:`~arena.ratings.leaderboard.rate` and
:func:`~arena.ratings.leaderboard.trueskill_rows` on the same results.

Its memory is bounded by the number of entries, not of matches: a caller that knows no result
planned before some point can still arrive (every match before it is done) says so with
:meth:`RatingFold.settle`, and the fold keeps only the results after that point (the ones a late
result may make it refold) and, for the rest, each entry's rating and tally. The μ history is
kept at every ``step``-th result, ``step`` a power of two doubled whenever more than
:data:`KEEP` points are held, which is every point :func:`history_cuts` asks for.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from dataclasses import dataclass

import trueskill

from arena.ratings.health import add_counts, health_doc, match_counts
from arena.ratings.leaderboard import (
    KEYS,
    SIDE,
    LeaderboardRow,
    fold_order,
    leaderboard_row,
    rate_result,
    trueskill_env,
)
from arena.ratings.tallies import seat_returns
from arena.results import MatchResult

HISTORY_POINTS = 24  # at most this many μ points per entry in the history
KEEP = 2 * HISTORY_POINTS  # rating snapshots kept for the history

Key = tuple[int, str]  # a result's place in the fold order: (plan index, match id)


def history_cuts(n: int) -> list[int]:
    """The numbers of results after which the history samples each agent's μ (up to 24).

    Every multiple of the smallest power of two that makes at most 24 points, then ``n``:
    evenly spaced points the fold still holds whatever the run's length (see :data:`KEEP`)."""
    if not n:
        return []
    step = 1
    while -(-n // step) > HISTORY_POINTS:
        step *= 2
    return [*range(step, n, step), n]


@dataclass(frozen=True)
class _Tally:
    """An agent's counts after some matches (the leaderboard's non-rating columns)."""

    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    score: float = 0.0  # wins + draws/2 (exact: halves)
    reward: float = 0.0  # summed seat by seat in fold order, as the leaderboard does


# A player's state after some matches; the tally is None for the hidden faction players.
_State = tuple[trueskill.Rating, _Tally | None]


@dataclass(frozen=True)
class _Folded:
    """A result after the settled point, and the states it moved (to replay without rating)."""

    key: Key
    result: MatchResult
    moved: dict[str, _State]


def key_of(result: MatchResult) -> Key:
    return (result.index, result.match_id)


class RatingFold:
    """TrueSkill ratings and tallies per agent entry, kept up to date as results arrive."""

    def __init__(self) -> None:
        self.env = trueskill_env()
        self.keyfn = KEYS["agent"]
        self._count = 0  # results folded
        self._settled: dict[str, _State] = {}  # the states after every settled result
        self._settled_to: Key | None = None  # no result before this key arrives any more
        self._tail: list[_Folded] = []  # the folded results after the settled point, in order
        self._tail_ids: set[str] = set()
        self._state: dict[str, _State] = {}  # the current states
        self._health: dict[str, dict[str, int]] = {}  # per player: summed harness counts
        self._step = 1  # the snapshots' spacing (a power of two)
        self._snapshots: list[tuple[int, dict[str, trueskill.Rating]]] = []  # (count, ratings)

    def __len__(self) -> int:
        return self._count

    def wants(self, key: Key) -> bool:
        """Whether the result with this key is not folded yet (every settled one is)."""
        settled = self._settled_to is not None and key < self._settled_to
        return not settled and key[1] not in self._tail_ids

    def add(self, results: Iterable[MatchResult]) -> int:
        """Fold the results not folded yet; returns how many were new."""
        new = fold_order(r for r in results if self.wants(key_of(r)))
        if not new:
            return 0
        for result in new:  # order-free: a refolded result keeps its counts
            self._count_health(result)
        keys = [f.key for f in self._tail]
        start = bisect_left(keys, key_of(new[0]))
        tail = [f.result for f in self._tail[start:]]
        self._rewind(start)
        for result in fold_order([*tail, *new]):
            self._fold(result)
        return len(new)

    def settle(self, before: Key) -> None:
        """No result before ``before`` arrives any more (every match planned before it is done,
        and its result handed in): keep only the states those results left."""
        if self._settled_to is not None and before <= self._settled_to:
            return
        cut = bisect_left([f.key for f in self._tail], before)
        for folded in self._tail[:cut]:
            self._settled.update(folded.moved)
            self._tail_ids.discard(folded.result.match_id)
        del self._tail[:cut]
        self._settled_to = before

    def _rewind(self, start: int) -> None:
        """Forget the tail's results from ``start`` on (they are folded again)."""
        if start == len(self._tail):
            return
        for folded in self._tail[start:]:
            self._tail_ids.discard(folded.result.match_id)
        self._count -= len(self._tail) - start
        del self._tail[start:]
        self._snapshots = [s for s in self._snapshots if s[0] <= self._count]
        self._state = dict(self._settled)
        for folded in self._tail:
            self._state.update(folded.moved)

    def _rating(self, name: str) -> trueskill.Rating:
        state = self._state.get(name)
        return state[0] if state else self.env.create_rating()

    def _fold(self, result: MatchResult) -> None:
        self._count += 1
        updated = rate_result(self.env, self._rating, self.keyfn, result)
        returns = seat_returns(result)
        moved: dict[str, _State] = {}
        if updated is not None and returns is not None:
            tallies: dict[str, _Tally] = {}
            for seat in result.seats:  # seat order: the leaderboard sums rewards in this order
                name = self.keyfn(result, seat)
                t = tallies.get(name) or self._tally(name)
                ret = returns[seat.seat]
                tallies[name] = _Tally(
                    games=t.games + 1,
                    wins=t.wins + (ret > 0),
                    draws=t.draws + (ret == 0),
                    losses=t.losses + (ret < 0),
                    score=t.score + (ret + 1) / 2,
                    reward=t.reward + seat.reward,
                )
            moved = {name: (rating, tallies.get(name)) for name, rating in updated.items()}
            self._state.update(moved)
        self._tail.append(_Folded(key_of(result), result, moved))
        self._tail_ids.add(result.match_id)
        self._snapshot()

    def _snapshot(self) -> None:
        if self._count % self._step:
            return
        ratings = {n: s[0] for n, s in sorted(self._state.items()) if not n.startswith(SIDE)}
        self._snapshots.append((self._count, ratings))
        if len(self._snapshots) > KEEP:
            self._step *= 2
            self._snapshots = [s for s in self._snapshots if s[0] % self._step == 0]

    def _count_health(self, result: MatchResult) -> None:
        if result.status == "errored":  # as the board: the harness broke, not the entry
            return
        for key, part in match_counts(result, self.keyfn).items():
            add_counts(self._health.setdefault(key, {}), part, 1)

    def _tally(self, name: str) -> _Tally:
        state = self._state.get(name)
        tally = state[1] if state else None
        return tally or _Tally()

    def rows(self) -> list[LeaderboardRow]:
        """The TrueSkill board of every folded result (as ``ratings.trueskill_rows(results)``)."""
        rows = []
        for name, (rating, tally) in self._state.items():
            if name.startswith(SIDE) or tally is None:
                continue
            row = leaderboard_row(
                name,
                rating,
                games=tally.games,
                wins=tally.wins,
                draws=tally.draws,
                losses=tally.losses,
                score=tally.score,
                reward=tally.reward,
            )
            row.health = health_doc(self._health.get(name, {}))
            rows.append(row)
        rows.sort(key=lambda row: (-row.conservative, row.agent))
        return rows

    def ratings_at(self, count: int) -> dict[str, trueskill.Rating]:
        """Each agent's rating after the first ``count`` folded results (as ``rate``): the
        current ones, or a kept snapshot (every point of :func:`history_cuts` is kept)."""
        if count >= self._count:
            return {n: s[0] for n, s in sorted(self._state.items()) if not n.startswith(SIDE)}
        i = bisect_right([c for c, _ in self._snapshots], count)
        if not i or self._snapshots[i - 1][0] != count:
            raise KeyError(f"no snapshot after {count} results (every {self._step}-th is kept)")
        return dict(self._snapshots[i - 1][1])

    def held(self) -> int:
        """How many results the fold holds (those after the settled point)."""
        return len(self._tail)
