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
import os
import secrets
import time
from collections.abc import Callable, Iterable, Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Protocol

import yaml

from arena import priority
from arena.agents import factory
from arena.agents.base import Agent
from arena.engine import RulesEngine
from arena.results import MatchResult, MatchSpec
from arena.runner import MatchRunner
from arena.sinks import EventSink, GuardedSink, JsonlSink
from arena.store import Store
from tournaments.batches import PlannedSchedule, RunView, Schedule
from tournaments.conditions import match_conditions
from tournaments.config import RunConfig
from tournaments.entries import memory_bank
from tournaments.progress import LlmCallCounter, Progress
from tournaments.rundir import RunDirectory, run_lock
from tournaments.schedule import plan as plan_specs
from tournaments.schedule import total_planned


def new_run_id(config: RunConfig) -> str:
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%d-%H%M%S")
    return f"{config.name}-{stamp}-{secrets.token_hex(2)}"


SinkFactory = Callable[[MatchSpec], list[EventSink]]


def build_agent(config: RunConfig, pins: dict[str, int], entry_name: str, seat: int) -> Agent:
    """The agent of ``entry_name`` for one seat; ``pins``: entry -> bank version its memory
    reads (learning runs pin one per block). Executors on other processes build the same."""
    entry = config.entry(entry_name)
    params = entry.params
    pin = pins.get(entry.name)
    memory = memory_bank(entry)
    if pin is not None and memory is not None:
        params = params.model_copy(update={"memory": memory.model_copy(update={"version": pin})})
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
                priority.match_priority.set(tournament.next_priority())
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
    """Plans, runs and records one run. Re-running it on the same directory resumes it.

    ``preflighted``: the caller has already checked the LLM backends of this run (the TUI and
    ``arena play`` before the UI takes the terminal; self-play once for its whole run), so
    :meth:`ready` does not check them again. ``started``: the executor needs no start either
    (a self-play phase plays on what its run started)."""

    def __init__(
        self,
        config: RunConfig,
        run_dir: Path,
        run_id: str,
        extra_sinks: SinkFactory | None = None,
        executor: MatchExecutor | None = None,
        preflighted: bool = False,
        started: bool = False,
    ) -> None:
        self.config = config
        self.executor = executor if executor is not None else current_executor()
        self.dir = RunDirectory(run_dir)
        self.run_id = run_id
        self.extra_sinks = extra_sinks
        self.specs = plan_specs(config, run_id)
        self.total = total_planned(config)
        self.preflighted, self.started = preflighted, started
        self._priority = 0
        # entry -> bank version its memory reads (learning runs pin one per block)
        self.memory_pins: dict[str, int] = {}

    def schedule(self) -> Schedule:
        """The schedule of this run's config: rating-driven, learning or the plan as it is."""
        from tournaments.learning import LearningSchedule, learning_entries
        from tournaments.matchmaking import RatingDrivenSchedule

        if self.config.format == "rating_driven":
            return RatingDrivenSchedule(self.config, self.run_id, self.total)
        entries = learning_entries(self.config.agents)
        if entries:
            return LearningSchedule(entries, self.specs, self.total, self.config.game)
        return PlannedSchedule(self.specs, self.total)

    def prepare(self, specs: list[MatchSpec] | None = None) -> Store:
        """The run directory and its store, with ``specs`` (default: the plan) recorded."""
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
        store.plan(self.specs if specs is None else specs)
        return store

    def make_agent(self, entry_name: str, seat: int) -> Agent:
        return build_agent(self.config, self.memory_pins, entry_name, seat)

    def next_priority(self) -> int:
        """The LLM priority of the next match to start: start order (earlier matches get
        their calls first). Executors call it as they start each match."""
        self._priority += 1
        return self._priority

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

    async def ready(self) -> None:
        """Start the executor, then preflight the LLM backends (a ConfigError before anything
        is written): once per run, whoever asks first (the CLI asks before its live session
        opens; :meth:`run` asks again and finds it done)."""
        if not self.started:
            await self.executor.start(self)  # Ray: model actors answer the preflight
            self.started = True
        if not self.preflighted:
            from arena.llm.preflight import PREFLIGHT_KINDS, preflight_entries

            if any(a.kind in PREFLIGHT_KINDS for a in self.config.agents):
                await preflight_entries(self.config.agents)  # ConfigError before anything runs
            self.preflighted = True

    async def run(
        self, progress: Progress | None = None, *, schedule: Schedule | None = None
    ) -> list[MatchResult]:
        """Play ``schedule`` (default: :meth:`schedule`) into the run directory; every result
        in the store, in plan order."""
        plan = schedule if schedule is not None else self.schedule()
        await self.ready()
        with run_lock(self.dir.lock):
            store = self.prepare(plan.specs)
            try:
                return await self._play(plan, store, progress)
            except asyncio.CancelledError:
                store.set_run_status(self.run_id, "interrupted")
                raise
            finally:
                store.close()

    async def _play(
        self, plan: Schedule, store: Store, progress: Progress | None
    ) -> list[MatchResult]:
        done = store.done_ids()
        progress = progress if progress is not None else Progress(total=plan.total)
        progress.total = plan.total
        progress.skipped = progress.done = len(done)
        progress.started = time.monotonic()
        progress.changed()
        run = RunView(self.run_id, self.dir, store, progress)
        sem = asyncio.Semaphore(self.config.concurrency)
        store.set_run_status(self.run_id, "running")
        try:
            for batch in plan.batches(run):
                self.memory_pins = batch.pins
                await self.executor.run_specs(self, batch.specs, store, progress, sem)
                await plan.after(batch, run)
        finally:
            self.memory_pins = {}
            await plan.close()
        self.specs = plan.specs
        done = store.done_ids()
        complete = all(s.match_id in done for s in plan.specs)
        store.set_run_status(self.run_id, "complete" if complete else "incomplete")
        return store.results()
