"""Run a planned tournament, writing the run directory as it goes.

The tournament plans and records; an executor plays the specs it is handed. The default,
:class:`AsyncioExecutor`, plays them concurrently on this process's event loop; the Ray
executor (:mod:`tournaments.ray.executor`) plays them as Ray tasks, and either way this
process alone writes the store, the JSONL records and the optional sinks (docs/distributed.md).

Crash safety: every match of the plan is recorded as a ``planned`` row before anything runs; a
match's result row is written in one transaction only after its JSONL record was closed and
fsynced, so a kill at any moment loses at most the matches in flight (they have no result and
rerun from scratch with the same seed on resume). A file lock on ``run.lock`` keeps two
processes from running the same directory at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import fcntl
import os
import secrets
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Protocol

import yaml

from arena import priority
from arena.agents import factory
from arena.agents.base import Agent
from arena.engine import RulesEngine
from arena.events import Event
from arena.results import MatchResult, MatchSpec
from arena.runner import MatchRunner
from arena.sinks import EventSink, GuardedSink, JsonlSink
from arena.store import Store
from tournaments import schedule
from tournaments.conditions import match_conditions
from tournaments.config import RunConfig


def new_run_id(config: RunConfig) -> str:
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%d-%H%M%S")
    return f"{config.name}-{stamp}-{secrets.token_hex(2)}"


@dataclass
class Progress:
    """Counters the UI reads; ``on_change`` is called after every update."""

    total: int
    done: int = 0
    failed: int = 0
    running: int = 0
    skipped: int = 0
    llm_calls: int = 0
    # node -> matches running there (filled by executors that spread matches over nodes)
    nodes: dict[str, int] = field(default_factory=dict)
    started: float = field(default_factory=time.monotonic)
    on_change: Callable[[Progress], None] | None = None
    # the most recent results (bounded: a 10,000-match run must not hold them all here)
    results: deque[MatchResult] = field(default_factory=lambda: deque(maxlen=256))

    def changed(self) -> None:
        if self.on_change is not None:
            self.on_change(self)

    def llm_rate(self) -> float:
        """LLM calls per second since the run (or resume) started."""
        elapsed = time.monotonic() - self.started
        return self.llm_calls / elapsed if elapsed > 0 else 0.0

    def eta_s(self) -> float | None:
        """Seconds left at the pace of this session's matches (None before the first)."""
        played = self.done - self.skipped
        if played <= 0:
            return None
        per = (time.monotonic() - self.started) / played
        return per * max(self.total - self.done, 0)


class LlmCallCounter:
    """A sink counting the god-only ``llm_call`` events of LLM agents into the progress."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress

    def write(self, event: Event) -> None:
        if event.type == "llm_call":
            self.progress.llm_calls += 1

    def close(self) -> None:
        pass


class RunDirectory:
    """Paths of one run directory."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.config = root / "config.yaml"
        self.db = root / "arena.sqlite"
        self.matches = root / "matches"
        self.lock = root / "run.lock"

    def jsonl(self, match_id: str) -> Path:
        return self.matches / f"{match_id}.jsonl"


class RunLocked(RuntimeError):
    """Another live process is running this run directory."""


@contextlib.contextmanager
def run_lock(path: Path) -> IO[str]:  # type: ignore[misc]
    """An exclusive lock held for the life of the process (released even on kill -9)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fh = open(path, "a+", encoding="utf-8")  # noqa: SIM115
    try:
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        fh.seek(0)
        holder = fh.read().strip() or "?"
        fh.close()
        raise RunLocked(f"{path.parent} is being run by another process (pid {holder})") from None
    fh.seek(0)
    fh.truncate()
    fh.write(str(os.getpid()))
    fh.flush()
    try:
        yield fh
    finally:
        fcntl.flock(fh, fcntl.LOCK_UN)
        fh.close()


def is_locked(path: Path) -> bool:
    """Whether a live process holds the run lock."""
    if not path.exists():
        return False
    with open(path, "a+", encoding="utf-8") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(fh, fcntl.LOCK_UN)
    return False


SinkFactory = Callable[[MatchSpec], list[EventSink]]


def build_agent(config: RunConfig, pins: dict[str, int], entry_name: str, seat: int) -> Agent:
    """The agent of ``entry_name`` for one seat; ``pins``: entry -> bank version its memory
    reads (learning runs pin one per block). Executors on other processes build the same."""
    entry = config.entry(entry_name)
    params = entry.params
    pin = pins.get(entry.name)
    if pin is not None:
        params = {**params, "memory": {**params["memory"], "version": pin}}
    return factory.build(entry.name, entry.kind, config.game, params)


def unstartable_result(spec: MatchSpec, reason: str) -> MatchResult:
    """The ``errored`` result of a match that never got to play (no JSONL record)."""
    return MatchResult(
        match_id=spec.match_id,
        run_id=spec.run_id,
        game=spec.game,
        seed=spec.seed,
        index=spec.index,
        repeat=spec.repeat,
        status="errored",
        outcome="aborted",
        reason=reason,
    )


class MatchExecutor(Protocol):
    """Plays the specs a tournament hands it and records each through the tournament's
    store, once per match id. ``todo`` is consumed lazily: a spec is taken when a slot for
    it frees (self-play's budget admits games as they are taken)."""

    name: str

    async def start(self, tournament: Tournament) -> None:
        """Before the backends' preflight: connect, start what serves the run's models."""
        ...

    async def run_specs(
        self,
        tournament: Tournament,
        todo: Iterable[MatchSpec],
        store: Store,
        progress: Progress,
        sem: asyncio.Semaphore,
    ) -> None: ...

    async def close(self) -> None: ...


class AsyncioExecutor:
    """Every match on this process's event loop, at most ``config.concurrency`` at a time."""

    name = "asyncio"

    async def start(self, tournament: Tournament) -> None:
        return None

    async def run_specs(
        self,
        tournament: Tournament,
        todo: Iterable[MatchSpec],
        store: Store,
        progress: Progress,
        sem: asyncio.Semaphore,
    ) -> None:
        """A fixed pool of workers pulls specs in plan order (no task per planned match, so
        memory stays flat for runs of any size)."""
        pending = iter(todo)

        async def one(spec: MatchSpec) -> None:
            async with sem:
                # Start order is the LLM priority: earlier matches get their calls first.
                tournament._started += 1
                priority.match_priority.set(tournament._started)
                progress.running += 1
                progress.changed()
                try:
                    result = await tournament.run_one(spec, store, progress)
                finally:
                    progress.running -= 1
                progress.done += 1
                if result.status != "finished":
                    progress.failed += 1
                progress.results.append(result)
                progress.changed()

        async def worker() -> None:
            for spec in pending:  # a shared iterator: every spec is taken once
                await one(spec)

        size = len(todo) if isinstance(todo, list | tuple) else tournament.config.concurrency
        n = min(tournament.config.concurrency, size)
        await asyncio.gather(*(worker() for _ in range(n)))

    async def close(self) -> None:
        return None


# The executor a Tournament built without one uses: `arena run/selfplay --executor ray` sets
# it for the command, so code that builds tournaments (self-play phases) needs no argument.
_EXECUTOR: ContextVar[MatchExecutor | None] = ContextVar("arena_executor", default=None)


def current_executor() -> MatchExecutor:
    return _EXECUTOR.get() or AsyncioExecutor()


@contextlib.contextmanager
def use_executor(executor: MatchExecutor) -> Iterator[MatchExecutor]:
    """Tournaments built inside this block (and in ``asyncio.run`` loops started in it) use
    ``executor``."""
    token = _EXECUTOR.set(executor)
    try:
        yield executor
    finally:
        _EXECUTOR.reset(token)


class Tournament:
    """Plans, runs and records one run. Re-running it on the same directory resumes it."""

    def __init__(
        self,
        config: RunConfig,
        run_dir: Path,
        run_id: str,
        extra_sinks: SinkFactory | None = None,
        executor: MatchExecutor | None = None,
    ) -> None:
        self.config = config
        self.executor = executor if executor is not None else current_executor()
        self.dir = RunDirectory(run_dir)
        self.run_id = run_id
        self.extra_sinks = extra_sinks
        self.specs = schedule.plan(config, run_id)
        self.total = schedule.total_planned(config)
        self._started = 0
        # entry -> bank version its memory reads (learning runs pin one per block)
        self.memory_pins: dict[str, int] = {}

    def prepare(self) -> Store:
        self.dir.matches.mkdir(parents=True, exist_ok=True)
        data = self.config.model_dump(mode="json")
        if not self.dir.config.exists():  # atomically: a resume may read it after a kill
            tmp = self.dir.config.with_suffix(".yaml.tmp")
            with open(tmp, "w", encoding="utf-8") as fh:
                fh.write(yaml.safe_dump(data, sort_keys=False))
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.dir.config)
        store = Store(self.dir.db)
        store.create_run(self.run_id, self.config.name, self.config.game, data)
        store.plan(self.specs)
        if self.config.format == "rating_driven":  # adaptive: what was planned so far
            self.specs = store.specs()
        return store

    def make_agent(self, entry_name: str, seat: int) -> Agent:
        return build_agent(self.config, self.memory_pins, entry_name, seat)

    async def run_one(
        self, spec: MatchSpec, store: Store, progress: Progress | None = None
    ) -> MatchResult:
        path = self.dir.jsonl(spec.match_id)
        sinks: list[EventSink] = [JsonlSink(path)]
        if progress is not None:
            sinks.append(LlmCallCounter(progress))
        if self.extra_sinks is not None:
            # optional consumers must never break a match
            sinks.extend(GuardedSink(s) for s in self.extra_sinks(spec))
        try:
            engine = self.start_engine(spec)
            runner = MatchRunner(spec, self.make_agent, sinks, self.config.policy, engine=engine)
        except Exception as err:  # cannot seat the agents or start: record, never lose the match
            for sink in sinks:
                sink.close()
            return self._unstartable(spec, err, store)
        result = await runner.run()
        result = result.model_copy(
            update={
                "jsonl": str(path.relative_to(self.dir.root)),
                "conditions": self.conditions(spec, result),
            }
        )
        store.write_result(result)  # only after the JSONL was closed and fsynced
        return result

    def conditions(self, spec: MatchSpec, result: MatchResult) -> dict[str, Any]:
        """The match's condition fingerprint (what the board pools by)."""
        return match_conditions(self.config, spec.rules, [s.agent for s in result.seats])

    def start_engine(self, spec: MatchSpec) -> RulesEngine[Any] | None:
        """The engine ``spec`` starts from; None deals it fresh from its seed (the default)."""
        return None

    def _unstartable(self, spec: MatchSpec, err: Exception, store: Store) -> MatchResult:
        result = unstartable_result(spec, f"could not start: {type(err).__name__}: {err}")
        store.write_result(result)
        return result

    async def _run_specs(
        self, todo: Iterable[MatchSpec], store: Store, progress: Progress, sem: asyncio.Semaphore
    ) -> None:
        """Hand ``todo`` to the executor (at most ``concurrency`` matches in flight)."""
        await self.executor.run_specs(self, todo, store, progress, sem)

    async def run(self, progress: Progress | None = None) -> list[MatchResult]:
        await self.executor.start(self)
        from arena.llm.preflight import PREFLIGHT_KINDS

        if any(a.kind in PREFLIGHT_KINDS for a in self.config.agents):
            from arena.llm.preflight import preflight_entries

            await preflight_entries(self.config.agents)  # ConfigError before anything runs
        with run_lock(self.dir.lock):
            store = self.prepare()
            try:
                return await self._run(store, progress)
            except asyncio.CancelledError:
                store.set_run_status(self.run_id, "interrupted")
                raise
            finally:
                store.close()

    async def _run(self, store: Store, progress: Progress | None) -> list[MatchResult]:
        done = store.done_ids()
        if progress is None:
            progress = Progress(total=self.total)
        progress.total = self.total
        progress.skipped = len(done)
        progress.done = len(done)
        progress.started = time.monotonic()
        progress.changed()
        sem = asyncio.Semaphore(self.config.concurrency)
        store.set_run_status(self.run_id, "running")
        from tournaments.learning import learning_entries, run_learning

        if self.config.format == "rating_driven":
            await self._run_adaptive(store, progress, sem)
        elif learning_entries(self.config):
            await run_learning(self, store, progress, sem)
        else:
            todo = [s for s in self.specs if s.match_id not in done]
            await self._run_specs(todo, store, progress, sem)
        complete = len(store.done_ids()) == len(self.specs)
        store.set_run_status(self.run_id, "complete" if complete else "incomplete")
        return store.results()

    async def _run_adaptive(self, store: Store, progress: Progress, sem: asyncio.Semaphore) -> None:
        from tournaments.matchmaking import Matchmaker

        for repeat in range(self.config.repeats):
            maker = Matchmaker(self.config, repeat, self.run_id)
            while True:
                pending = store.specs(pending=True, repeat=repeat)
                if not pending:
                    planned = store.specs(repeat=repeat)
                    pending = maker.next_batch(store.results(repeat), planned)
                    if not pending:
                        break
                    store.plan(pending)
                    self.specs.extend(pending)
                await self._run_specs(pending, store, progress, sem)
            if maker.converged:
                # a converged repeat plays fewer matches than its budget
                progress.total -= maker.budget - len(store.specs(repeat=repeat))
                progress.changed()
