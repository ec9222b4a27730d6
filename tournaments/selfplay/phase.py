"""One phase of a self-play generation, played as an ordinary tournament run.

Every game is a :class:`arena.runner.MatchRunner` match driven by
:class:`tournaments.executor.Tournament` into an ordinary run directory (``arena.sqlite`` +
``matches/*.jsonl``) — so ``arena runs``, the leaderboard, the metrics and ``arena memory
reflect`` read it like any run. The specs are the phase's episodes (ids from
:func:`tournaments.selfplay.units.episode_id`); matches already finished are skipped, so a resumed
phase plays only what is missing. Games are admitted one at a time against the ledger: a cap
is overshot by at most the games in flight.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.engine import RulesEngine
from arena.events import Event
from arena.results import MatchResult, MatchSpec
from arena.store import Store
from tournaments.batches import Batch, RunView
from tournaments.config import AgentEntry, RunConfig
from tournaments.executor import AsyncioExecutor, SinkFactory, Tournament
from tournaments.progress import Progress
from tournaments.selfplay.budget import Ledger, Usage
from tournaments.selfplay.candidate import Candidate
from tournaments.selfplay.units import Unit

# match id -> a factory of the engine the match starts from (a replay's restored state)
Starts = dict[str, Callable[[], RulesEngine[Any]]]


@dataclass(frozen=True)
class Episode:
    spec: MatchSpec
    candidate: str
    unit: Unit
    replicate: int = 0
    start: Callable[[], RulesEngine[Any]] | None = None  # None: a fresh deal from the seed
    note: dict[str, Any] | None = None  # extra fields of its units.jsonl row


@dataclass(frozen=True)
class Job:
    """One episode to schedule: who plays which unit (replicate), from which start."""

    candidate: Candidate
    unit: Unit
    replicate: int = 0
    start: Callable[[], RulesEngine[Any]] | None = None
    note: dict[str, Any] | None = None


class StartingTournament(Tournament):
    """A tournament whose matches may start from a given engine — a replay's state restored
    from a snapshot — instead of a fresh deal. The rest is :meth:`Tournament.run_one`: the same
    sinks, the same record, the same store."""

    def __init__(self, *args: Any, starts: Starts, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.starts = starts

    def start_engine(self, spec: MatchSpec) -> RulesEngine[Any] | None:
        start = self.starts.get(spec.match_id)
        return None if start is None else start()


class _Admitted(list[MatchSpec]):
    """The phase's to-do list, yielding a spec only while the ledger admits one more game."""

    def __init__(self, specs: list[MatchSpec], ledger: Ledger, phase: str) -> None:
        super().__init__(specs)
        self.ledger, self.phase = ledger, phase

    def __iter__(self) -> Iterator[MatchSpec]:
        for spec in super().__iter__():
            if not self.ledger.admit(self.phase):
                return
            yield spec


class UsageSink:
    """Counts one match's LLM calls and tokens into the ledger as they happen, and appends the
    match's totals to ``usage.jsonl`` when it closes (a resumed run reads them back)."""

    def __init__(self, match_id: str, ledger: Ledger, phase: str, path: Path) -> None:
        self.match_id, self.ledger, self.phase, self.path = match_id, ledger, phase, path
        self.usage = Usage()

    def write(self, event: Event) -> None:
        if event.type == "llm_call":
            p = event.payload
            one = Usage(
                llm_calls=1,
                tokens_in=int(p.get("tokens_in") or 0),
                tokens_out=int(p.get("tokens_out") or 0),
                usd=float(p.get("cost_usd") or 0.0),
            )
            self.usage.add(one)
            self.ledger.record(self.phase, one)

    def close(self) -> None:
        line = json.dumps({"match_id": self.match_id, **self.usage.as_dict()})
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(line + "\n")


def read_usage(path: Path) -> dict[str, Usage]:
    out: dict[str, Usage] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue  # a torn last line after a kill
            out[row["match_id"]] = Usage.from_dict(row)
    return out


def run_config(
    name: str,
    game: str,
    rules: dict[str, Any],
    entries: list[dict[str, Any]],
    concurrency: int,
    policy: Any,
) -> RunConfig:
    return RunConfig(
        name=name,
        game=game,
        rules=rules,
        agents=[AgentEntry.model_validate(e) for e in entries],
        matches=1,
        concurrency=concurrency,
        policy=policy,
    )


class PhaseSchedule:
    """One phase's episodes in one batch, admitted game by game against the ledger. A resumed
    phase first counts the games it already played (and their LLM usage) into the ledger."""

    def __init__(self, specs: list[MatchSpec], ledger: Ledger, phase: str, usage: Path) -> None:
        self.specs, self.total = specs, len(specs)
        self.ledger, self.phase, self.usage = ledger, phase, usage
        self.counted: set[str] = set()  # match ids whose game the ledger has counted

    def batches(self, run: RunView) -> Iterator[Batch]:
        done = run.store.done_ids()
        earlier = read_usage(self.usage)
        for r in run.store.results(ids=[s.match_id for s in self.specs if s.match_id in done]):
            u = earlier.get(r.match_id, Usage())
            self.ledger.record(self.phase, Usage(games=1, env_steps=r.n_decisions))
            self.ledger.record(self.phase, Usage(**{**u.as_dict(), "games": 0, "env_steps": 0}))
            self.counted.add(r.match_id)
        todo = [s for s in self.specs if s.match_id not in done]
        if todo:
            yield Batch(_Admitted(todo, self.ledger, self.phase))

    def count(self, progress: Progress) -> None:
        """The progress hook: each game that ends counts once into the ledger."""
        if progress.results and progress.results[-1].match_id not in self.counted:
            r = progress.results[-1]
            self.counted.add(r.match_id)
            self.ledger.record(self.phase, Usage(games=1, env_steps=r.n_decisions))

    async def after(self, batch: Batch, run: RunView) -> None:
        return None

    async def close(self) -> None:
        return None


async def play_phase(
    config: RunConfig,
    run_dir: Path,
    run_id: str,
    episodes: list[Episode],
    ledger: Ledger,
    phase: str,
    extra_sinks: SinkFactory | None = None,
) -> dict[str, MatchResult]:
    """Play ``episodes`` (skipping finished ones) into ``run_dir``; results by match id."""
    usage_path = run_dir / "usage.jsonl"

    def sinks(spec: MatchSpec) -> list[Any]:
        out: list[Any] = [UsageSink(spec.match_id, ledger, phase, usage_path)]
        if extra_sinks is not None:
            out.extend(extra_sinks(spec))
        return out

    starts = {e.spec.match_id: e.start for e in episodes if e.start is not None}
    # a restored start lives in this process: such a phase plays here whatever executor the
    # command chose (another executor would deal the match afresh from its seed). The self-play
    # run preflighted its backends once, before its first phase.
    executor = AsyncioExecutor() if starts else None
    tournament = StartingTournament(
        config,
        run_dir,
        run_id,
        extra_sinks=sinks,
        starts=starts,
        executor=executor,
        preflighted=True,
        started=True,
    )
    specs = [e.spec for e in episodes]
    schedule = PhaseSchedule(specs, ledger, phase, usage_path)
    progress = Progress(total=len(specs), on_change=schedule.count)
    ids = {s.match_id for s in specs}
    results = await _within_wall_cap(tournament.run(progress, schedule=schedule), ledger, phase)
    if results is None:  # the wall cap cancelled the games in flight: the stored ones stand
        store = Store(tournament.dir.db)
        try:
            results = store.results(ids=sorted(ids))
        finally:
            store.close()
    return {r.match_id: r for r in results if r.match_id in ids}


async def _within_wall_cap(
    run: Coroutine[Any, Any, list[MatchResult]], ledger: Ledger, phase: str
) -> list[MatchResult] | None:
    """Await ``run`` until the ledger's wall-clock deadline, then cancel the games still in
    flight and stop the ledger: the run's results, or None when it was cut. A cancelled game is not stored (its record says it was
    cancelled): ``--resume`` plays it again. Without this a wall cap only stopped admission,
    and games admitted just before it (each decision allowed its own timeout) ran on for
    minutes past the cap."""
    left = ledger.wall_left(phase)
    if left is None:
        return await run
    seconds, cap = left
    try:
        return await asyncio.wait_for(run, timeout=max(0.0, seconds))
    except TimeoutError:
        ledger.stop(f"budget: {cap} (games in flight cancelled)")
        return None


def write_json(path: Path, data: Any) -> None:
    """Atomically (a resume may read it after a kill)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(data, indent=1, sort_keys=True, default=str))
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
