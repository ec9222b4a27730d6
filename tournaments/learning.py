"""Learning during a tournament: ``memory: {bank: PATH, learn: true, every: K}`` on ``llm``
entries (docs/memory.md).

The planned matches, in plan (match-identity) order, are cut into blocks of K. Block ``b``
plays with every learning entry pinned to the bank version the fold of block ``b - 1`` left;
once all its matches have finished, their learning seats are reflected on and folded into the
bank in one transaction (:mod:`arena.memory.learn`). A resumed run skips folded blocks, replays
unfinished matches of the current block at the same pinned version and folds it: the final
bank has the same hash chain as an uninterrupted run's.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Protocol

from pydantic import BaseModel

from arena.memory.reflect import ClosingReflector
from arena.memory.spec import MemorySpec
from arena.results import MatchSpec
from tournaments.batches import Batch, RunView
from tournaments.entries import memory_bank


class Entry(Protocol):
    """What these checks read of an agent entry (``tournaments.config.AgentEntry``)."""

    @property
    def name(self) -> str: ...

    @property
    def kind(self) -> str: ...

    @property
    def params(self) -> BaseModel: ...


def learning_entries(agents: Iterable[Entry]) -> dict[str, MemorySpec]:
    """The ``llm`` entries whose memory learns, by entry name."""
    out = {}
    for entry in agents:
        memory = memory_bank(entry)
        if memory is not None and memory.learn:
            out[entry.name] = memory
    return out


def bank_paths(agents: Iterable[Entry]) -> list[str]:
    """The banks the ``llm`` entries read (or grow), in entry order."""
    return [memory.bank for memory in map(memory_bank, agents) if memory is not None]


def learning_problems(agents: Sequence[Entry], run_format: str) -> list[str]:
    """Config problems of memory banks and learning (``tournaments.config.check`` reports
    them): a bank whose hash chain is broken is refused before anything runs."""
    from arena.memory.evidence import bank_problems

    problems = bank_problems(bank_paths(agents))
    entries = learning_entries(agents)
    if not entries:
        return problems
    if run_format == "rating_driven":
        problems.append("memory learning needs a planned format (round_robin or gauntlet)")
    specs = {(s.bank, s.every, str(s.reflector), s.namespace) for s in entries.values()}
    if len(specs) > 1:
        problems.append("learning entries must share one bank, every, reflector and namespace")
    return problems


class LearningSchedule:
    """The plan in blocks of ``every`` matches; block ``b`` plays pinned to the version the fold
    of block ``b - 1`` left, and is folded into the bank once its matches have ended."""

    def __init__(
        self, entries: dict[str, MemorySpec], specs: list[MatchSpec], total: int, game: str
    ) -> None:
        self.entries, self.specs, self.total, self.game = entries, specs, total, game
        self.spec = next(iter(entries.values()))
        self.bank: Any = None
        self.reflector: Any = None

    def batches(self, run: RunView) -> Iterator[Batch]:
        from arena.memory.bank import open_bank
        from arena.memory.learn import start, version_for
        from arena.memory.reflect import make_reflector

        self.bank = open_bank(self.spec.bank)
        start(self.bank, run.run_id, self.game)
        self.reflector = make_reflector(self.spec.reflector)
        every = self.spec.every
        for b in range(0, (len(self.specs) + every - 1) // every):
            if version_for(self.bank, run.run_id, b + 1) is not None:
                _record_fold(run, self.bank, b)  # folded before (a resumed run)
                continue
            pin = version_for(self.bank, run.run_id, b)
            assert pin is not None, "blocks are folded in order"
            done = run.store.done_ids()
            block = self.specs[b * every : (b + 1) * every]
            todo = [s for s in block if s.match_id not in done]
            yield _Block(todo, {name: pin for name in self.entries}, b, block)

    async def after(self, batch: Batch, run: RunView) -> None:
        from arena.memory.learn import FinishedMatch, fold
        from arena.memory.trajectory import load_events
        from arena.memory.update import UpdateSettings

        assert isinstance(batch, _Block)
        finished = []
        for s in batch.block:
            path = run.dir.jsonl(s.match_id)
            if not path.exists():
                continue
            events = load_events(path)
            seats = _learning_seats(events, self.entries)
            if seats and any(e.type == "match_end" for e in events):
                finished.append(FinishedMatch(s.match_id, events, seats))
        settings = UpdateSettings(budget=self.spec.budget, cap=self.spec.cap)
        await fold(
            self.bank,
            run.run_id,
            batch.index,
            finished,
            self.reflector,
            self.spec.namespace,
            settings,
        )
        _record_fold(run, self.bank, batch.index)

    async def close(self) -> None:
        if isinstance(self.reflector, ClosingReflector):
            await self.reflector.close()


class _Block(Batch):
    """A learning batch: the block's unfinished matches, and the whole block it folds."""

    def __init__(
        self, specs: list[MatchSpec], pins: dict[str, int], index: int, block: list[MatchSpec]
    ) -> None:
        super().__init__(specs, pins)
        self.index, self.block = index, block


def _record_fold(run: RunView, bank: Any, block: int) -> None:
    """RUN/banks/<bank>.head.json: the head the fold of ``block`` left (its marker), the
    reference that shows later whether the bank's newest rows were cut off."""
    from arena.memory.evidence import HeadRecord, record_head
    from arena.memory.learn import folds

    marker = folds(bank, run.run_id)[block]
    record = HeadRecord(
        bank=str(bank.path),
        version=marker.version,
        head_hash=marker.hash,
        run_id=run.run_id,
        after=f"the fold of block {block}",
    )
    record_head(run.dir.root, bank.path.stem, record)


def _learning_seats(events: list[Any], entries: dict[str, MemorySpec]) -> list[int]:
    truth = next((e for e in events if e.type == "ground_truth"), None)
    seating = (truth.payload.get("seats") or {}) if truth is not None else {}
    return sorted(int(seat) for seat, entry in seating.items() if entry in entries)
