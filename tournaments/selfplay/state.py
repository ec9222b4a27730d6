"""What the parts of a self-play run share: the run's context and one repeat's state.

The driver (:mod:`tournaments.selfplay.driver`) owns the loop; the parts it hands work to
(extra games, reproduction, summaries) receive these two objects and, when they play games,
a :class:`Play` function, never the driver itself.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from arena.memory.bank import Bank
from arena.results import MatchResult
from tournaments.selfplay.budget import Ledger
from tournaments.selfplay.candidate import Candidate
from tournaments.selfplay.config import SelfPlayConfig
from tournaments.selfplay.phase import Episode, Job
from tournaments.selfplay.replay_buffer import ReplayBuffer
from tournaments.selfplay.select import UnitGame
from tournaments.selfplay.units import Unit

Played = list[tuple[Episode, MatchResult | None]]


@dataclass(frozen=True)
class Context:
    """The run every repeat belongs to: its config, its budget ledger and its directory."""

    config: SelfPlayConfig
    ledger: Ledger
    root: Path


@dataclass
class RepeatState:
    repeat: int
    run_id: str  # the run id of every phase directory of this repeat
    bank: Bank  # the repeat's own bank (rR/bank.sqlite): seed copy, then every reflect fold
    incumbent: Candidate
    seed: Candidate
    population: list[Candidate]
    known: dict[str, Candidate] = field(default_factory=dict)
    # what ratings read: every select unit so far as a contest of the candidates' scores
    select_units: list[UnitGame] = field(default_factory=list)
    # what reflection reads: candidate -> (unit, result, run directory of its record)
    train_results: dict[str, list[tuple[Unit, MatchResult, Path]]] = field(default_factory=dict)
    buffer: ReplayBuffer | None = None  # prioritised replay (config.replay.fraction > 0)
    gate_scores: dict[str, dict[str, float]] = field(default_factory=dict)  # cand -> unit -> s
    gated: set[str] = field(default_factory=set)
    tabu: list[dict[str, Any]] = field(default_factory=list)
    champions: list[Candidate] = field(default_factory=list)  # replaced incumbents
    decisions: list[dict[str, Any]] = field(default_factory=list)
    generations: list[dict[str, Any]] = field(default_factory=list)


class Play(Protocol):
    """Plays ``jobs`` as one phase of generation ``g`` into ``where`` (the driver's)."""

    async def __call__(
        self,
        state: RepeatState,
        phase: str,
        g: int,
        jobs: Sequence[tuple[Candidate, Unit] | Job],
        where: Path,
        offset: int = 0,
    ) -> Played: ...


def score(metric: str, res: MatchResult, unit: Unit) -> float:
    """The candidate's score in ``res`` by the run's metric (nan: the game did not count)."""
    if res.status not in ("finished", "forfeited") or unit.seat >= len(res.seats):
        return math.nan
    seat = res.seats[unit.seat]
    if metric == "win":
        return 1.0 if seat.result == "win" else 0.0
    return float(seat.reward)


def record_bank_head(ctx: Context, state: RepeatState, after: str) -> None:
    """ROOT/banks/r<repeat>.head.json: the head the repeat's bank was left at, the reference
    ``arena memory verify BANK --expect FILE`` checks (cut-off rows show against it)."""
    from arena.memory.evidence import HeadRecord, record_head

    version, head = state.bank.head()
    record = HeadRecord(
        bank=str(state.bank.path),
        version=version,
        head_hash=head,
        run_id=state.run_id,
        after=after,
    )
    record_head(ctx.root, f"r{state.repeat}", record)
