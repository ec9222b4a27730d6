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

import asyncio
from typing import TYPE_CHECKING, Any

from arena.memory.spec import MemorySpec
from arena.store import Store

if TYPE_CHECKING:
    from tournaments.config import RunConfig
    from tournaments.executor import Progress, Tournament


def learning_entries(config: RunConfig) -> dict[str, MemorySpec]:
    """The ``llm`` entries whose memory learns, by entry name."""
    out = {}
    for entry in config.agents:
        memory = entry.params.get("memory") if entry.kind == "llm" else None
        if isinstance(memory, dict) and memory.get("learn"):
            out[entry.name] = MemorySpec.model_validate(memory)
    return out


def bank_paths(config: RunConfig) -> list[str]:
    """The banks the ``llm`` entries of ``config`` read (or grow), in entry order."""
    out = []
    for entry in config.agents:
        memory = entry.params.get("memory") if entry.kind == "llm" else None
        if isinstance(memory, dict) and isinstance(memory.get("bank"), str):
            out.append(memory["bank"])
    return out


def learning_problems(config: RunConfig) -> list[str]:
    """Config problems of memory banks and learning (``tournaments.config.check`` reports
    them): a bank whose hash chain is broken is refused before anything runs."""
    from arena.memory.evidence import bank_problems

    problems = bank_problems(bank_paths(config))
    try:
        entries = learning_entries(config)
    except ValueError as err:
        return [*problems, f"memory: {err}"]
    if not entries:
        return problems
    if config.format == "rating_driven":
        problems.append("memory learning needs a planned format (round_robin or gauntlet)")
    specs = {(s.bank, s.every, str(s.reflector), s.namespace) for s in entries.values()}
    if len(specs) > 1:
        problems.append("learning entries must share one bank, every, reflector and namespace")
    return problems


async def run_learning(
    tournament: Tournament, store: Store, progress: Progress, sem: asyncio.Semaphore
) -> None:
    from arena.memory.bank import open_bank
    from arena.memory.learn import FinishedMatch, fold, start, version_for
    from arena.memory.reflect import make_reflector
    from arena.memory.trajectory import load_events
    from arena.memory.update import UpdateSettings

    entries = learning_entries(tournament.config)
    spec = next(iter(entries.values()))
    bank = open_bank(spec.bank)
    run_id = tournament.run_id
    start(bank, run_id, tournament.config.game)
    reflector = make_reflector(spec.reflector)
    settings = UpdateSettings(budget=spec.budget, cap=spec.cap)
    plan = tournament.specs
    blocks = [plan[i : i + spec.every] for i in range(0, len(plan), spec.every)]
    for b, block in enumerate(blocks):
        version = version_for(bank, run_id, b + 1)
        if version is not None:
            _record_fold(tournament, bank, b)  # folded before (a resumed run)
            continue
        pin = version_for(bank, run_id, b)
        assert pin is not None, "blocks are folded in order"
        tournament.memory_pins = {name: pin for name in entries}
        done = store.done_ids()
        await tournament._run_specs(
            [s for s in block if s.match_id not in done], store, progress, sem
        )
        finished = []
        for s in block:
            path = tournament.dir.jsonl(s.match_id)
            if not path.exists():
                continue
            events = load_events(path)
            seats = _learning_seats(events, entries)
            if seats and any(e.type == "match_end" for e in events):
                finished.append(FinishedMatch(s.match_id, events, seats))
        await fold(bank, run_id, b, finished, reflector, spec.namespace, settings)
        _record_fold(tournament, bank, b)
    tournament.memory_pins = {}
    if hasattr(reflector, "close"):
        await reflector.close()


def _record_fold(tournament: Tournament, bank: Any, block: int) -> None:
    """RUN/banks/<bank>.head.json: the head the fold of ``block`` left (its marker), the
    reference that shows later whether the bank's newest rows were cut off."""
    from arena.memory.evidence import HeadRecord, record_head
    from arena.memory.learn import folds

    marker = folds(bank, tournament.run_id)[block]
    record = HeadRecord(
        bank=str(bank.path),
        version=marker.version,
        head_hash=marker.hash,
        run_id=tournament.run_id,
        after=f"the fold of block {block}",
    )
    record_head(tournament.dir.root, bank.path.stem, record)


def _learning_seats(events: list[Any], entries: dict[str, MemorySpec]) -> list[int]:
    truth = next((e for e in events if e.type == "ground_truth"), None)
    seating = (truth.payload.get("seats") or {}) if truth is not None else {}
    return sorted(int(seat) for seat, entry in seating.items() if entry in entries)
