"""The one run protocol: a :class:`Schedule` hands :meth:`Tournament.run` batches of specs.

Every way a run plays is a schedule, and :meth:`Tournament.run
<tournaments.executor.Tournament.run>` is the one loop that plays them (lock, plan, status,
interruption, completion):

* :class:`PlannedSchedule` — the plan of the config, in one batch (round robin, gauntlet, …);
* :class:`tournaments.matchmaking.RatingDrivenSchedule` — rounds chosen by :class:`tournaments.matchmaking.Matchmaker`
  from the results so far, planned as they are chosen;
* :class:`tournaments.learning.LearningSchedule` — blocks of the plan, each played with the
  bank version the last fold left and folded into the bank after it (``after``);
* :class:`tournaments.selfplay.phase.PhaseSchedule` — one phase of a self-play generation,
  admitted game by game against the budget ledger.

A schedule reads and grows the run through a :class:`RunView` (data: the store, the progress,
the run directory), never through the tournament.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Protocol

from arena.results import MatchSpec
from arena.store import Store
from tournaments.progress import Progress
from tournaments.rundir import RunDirectory


@dataclass
class Batch:
    """Specs to play now (taken lazily: a spec is taken when a slot for it frees), and the
    bank version each learning entry's memory reads while they play (entry -> version)."""

    specs: Iterable[MatchSpec]
    pins: dict[str, int] = field(default_factory=dict)


@dataclass
class RunView:
    """What a schedule may read and grow while the run plays."""

    run_id: str
    dir: RunDirectory
    store: Store
    progress: Progress


class Schedule(Protocol):
    """What a run plays, batch by batch.

    ``specs`` is the plan recorded before anything plays (a rating-driven schedule grows it as
    it plans); the run is complete when every one of them has a result. ``total`` is what the
    progress counts toward. ``batches`` is iterated lazily: each batch is played before the
    next is asked for, and ``after`` is awaited once the batch's matches have all ended.
    ``close`` is awaited once when the run stops playing, finished or not."""

    specs: list[MatchSpec]
    total: int

    def batches(self, run: RunView) -> Iterator[Batch]: ...

    async def after(self, batch: Batch, run: RunView) -> None: ...

    async def close(self) -> None: ...


class PlannedSchedule:
    """The planned matches without a result, in plan order, in one batch."""

    def __init__(self, specs: list[MatchSpec], total: int) -> None:
        self.specs, self.total = specs, total

    def batches(self, run: RunView) -> Iterator[Batch]:
        done = run.store.done_ids()
        yield Batch([s for s in self.specs if s.match_id not in done])

    async def after(self, batch: Batch, run: RunView) -> None:
        return None

    async def close(self) -> None:
        return None
