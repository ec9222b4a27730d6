"""TrueSkill ratings over a growing set of results, folded incrementally (the live leaderboard).

The live board shows TrueSkill during a run because it moves match by match at the cost of one
update per result; its μ, σ and order depend on the fold order. The leaderboard of a finished run
(``arena leaderboard``, the end-of-run table) sorts by the order-free batch fit of
:mod:`arena.ratings.batch` instead (docs/ratings.md): the two boards can order close entries
differently, and the final one is the one to report.

:func:`arena.ratings.leaderboard.rate` folds results in plan order. A run finishes them roughly in that
order, so a fold that keeps its state only has to add the new results at the end: a result
that finished after later-planned ones rewinds the fold to its place and refolds the tail
(with bounded concurrency, a few matches). Every player's rating is kept after each match it
played, so the rating at any earlier point of the run (the history) is a lookup, and the
numbers are exactly those of :func:`~arena.ratings.leaderboard.rate` and
:func:`~arena.ratings.leaderboard.trueskill_rows` on the same results.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass

import trueskill

from arena.ratings.health import add_counts, health_doc, seat_counts
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


@dataclass(frozen=True)
class _Tally:
    """An agent's counts after some matches (the leaderboard's non-rating columns)."""

    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    score: float = 0.0  # wins + draws/2 (exact: halves)
    reward: float = 0.0  # summed seat by seat in fold order, as the leaderboard does


@dataclass(frozen=True)
class _Step:
    """A player's state just after the match at ``position`` of the fold moved it."""

    position: int
    rating: trueskill.Rating
    tally: _Tally | None  # None for the hidden faction players


def _order(result: MatchResult) -> tuple[int, str]:
    return (result.index, result.match_id)


class RatingFold:
    """TrueSkill ratings and tallies per agent entry, kept up to date as results arrive."""

    def __init__(self) -> None:
        self.env = trueskill_env()
        self.keyfn = KEYS["agent"]
        self.folded: list[MatchResult] = []  # plan order
        self._keys: list[tuple[int, str]] = []  # fold order key of each folded result
        self.ids: set[str] = set()  # match ids of the folded results
        self._steps: dict[str, list[_Step]] = {}  # per player, by position
        self._positions: dict[str, list[int]] = {}  # the steps' positions, for bisect
        self._health: dict[str, dict[str, int]] = {}  # per player: summed harness counts

    def __len__(self) -> int:
        return len(self.folded)

    def add(self, results: Iterable[MatchResult]) -> int:
        """Fold the results not folded yet; returns how many were new."""
        new = fold_order(r for r in results if r.match_id not in self.ids)
        if not new:
            return 0
        start = bisect_left(self._keys, _order(new[0]))
        tail = self.folded[start:]
        self._rewind(start)
        for result in fold_order([*tail, *new]):
            self._fold(result)
        return len(new)

    def _rewind(self, position: int) -> None:
        """Forget the results from ``position`` on (they are folded again after the new ones)."""
        for result in self.folded[position:]:
            self.ids.discard(result.match_id)
            self._count_health(result, -1)
        del self.folded[position:]
        del self._keys[position:]
        for name in list(self._steps):
            steps, positions = self._steps[name], self._positions[name]
            while positions and positions[-1] >= position:
                steps.pop()
                positions.pop()
            if not steps:
                del self._steps[name], self._positions[name]

    def _current(self, name: str) -> trueskill.Rating:
        steps = self._steps.get(name)
        return steps[-1].rating if steps else self.env.create_rating()

    def _fold(self, result: MatchResult) -> None:
        position = len(self.folded)
        self.folded.append(result)
        self._keys.append(_order(result))
        self.ids.add(result.match_id)
        self._count_health(result, 1)
        updated = rate_result(self.env, self._current, self.keyfn, result)
        returns = seat_returns(result)
        if updated is None or returns is None:
            return
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
        for name, rating in updated.items():
            self._steps.setdefault(name, []).append(_Step(position, rating, tallies.get(name)))
            self._positions.setdefault(name, []).append(position)

    def _count_health(self, result: MatchResult, sign: int) -> None:
        if result.status == "errored":  # as the board: the harness broke, not the entry
            return
        for seat in result.seats:
            total = self._health.setdefault(self.keyfn(result, seat), {})
            add_counts(total, seat_counts(seat), sign)

    def _tally(self, name: str) -> _Tally:
        steps = self._steps.get(name)
        tally = steps[-1].tally if steps else None
        return tally or _Tally()

    def rows(self) -> list[LeaderboardRow]:
        """The TrueSkill board of every folded result (as ``ratings.trueskill_rows(results)``)."""
        rows = []
        for name, steps in self._steps.items():
            tally = steps[-1].tally
            if name.startswith(SIDE) or tally is None:
                continue
            rows.append(
                leaderboard_row(
                    name,
                    steps[-1].rating,
                    games=tally.games,
                    wins=tally.wins,
                    draws=tally.draws,
                    losses=tally.losses,
                    score=tally.score,
                    reward=tally.reward,
                )
            )
            rows[-1].health = health_doc(self._health.get(name, {}))
        rows.sort(key=lambda row: (-row.conservative, row.agent))
        return rows

    def ratings_at(self, count: int) -> dict[str, trueskill.Rating]:
        """Each agent's rating after the first ``count`` folded results (as ``rate``)."""
        out = {}
        for name in sorted(self._steps):
            if name.startswith(SIDE):
                continue
            i = bisect_left(self._positions[name], count)
            if i:
                out[name] = self._steps[name][i - 1].rating
        return out
