"""Run a planned tournament concurrently on asyncio, writing the run directory as it goes."""

from __future__ import annotations

import asyncio
import datetime as dt
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from arena.agents import factory
from arena.agents.base import Agent
from arena.results import MatchResult, MatchSpec
from arena.runner import MatchRunner
from arena.sinks import EventSink, JsonlSink
from arena.store import Store
from tournaments import schedule
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
    on_change: Callable[[Progress], None] | None = None
    results: list[MatchResult] = field(default_factory=list)

    def changed(self) -> None:
        if self.on_change is not None:
            self.on_change(self)


class RunDirectory:
    """Paths of one run directory."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.config = root / "config.yaml"
        self.db = root / "arena.sqlite"
        self.matches = root / "matches"

    def jsonl(self, match_id: str) -> Path:
        return self.matches / f"{match_id}.jsonl"


SinkFactory = Callable[[MatchSpec], list[EventSink]]


class Tournament:
    """Plans, runs and records one run. Re-running it on the same directory resumes it."""

    def __init__(
        self,
        config: RunConfig,
        run_dir: Path,
        run_id: str,
        extra_sinks: SinkFactory | None = None,
    ) -> None:
        self.config = config
        self.dir = RunDirectory(run_dir)
        self.run_id = run_id
        self.extra_sinks = extra_sinks
        self.specs = schedule.plan(config, run_id)

    def prepare(self) -> Store:
        self.dir.matches.mkdir(parents=True, exist_ok=True)
        data = self.config.model_dump(mode="json")
        if not self.dir.config.exists():
            self.dir.config.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
        store = Store(self.dir.db)
        store.create_run(self.run_id, self.config.name, self.config.game, data)
        store.plan(self.specs)
        return store

    def make_agent(self, entry_name: str, seat: int) -> Agent:
        entry = self.config.entry(entry_name)
        return factory.build(entry.name, entry.kind, self.config.game, entry.params)

    async def run_one(self, spec: MatchSpec, store: Store) -> MatchResult:
        path = self.dir.jsonl(spec.match_id)
        sinks: list[EventSink] = [JsonlSink(path)]
        if self.extra_sinks is not None:
            sinks.extend(self.extra_sinks(spec))
        try:
            runner = MatchRunner(spec, self.make_agent, sinks, self.config.policy)
        except Exception as err:  # cannot even seat the agents: record, never lose the match
            for sink in sinks:
                sink.close()
            return self._unstartable(spec, err, store)
        result = await runner.run()
        result = result.model_copy(update={"jsonl": str(path.relative_to(self.dir.root))})
        store.write_result(result)  # only after the JSONL was closed and fsynced
        return result

    def _unstartable(self, spec: MatchSpec, err: Exception, store: Store) -> MatchResult:
        result = MatchResult(
            match_id=spec.match_id,
            run_id=spec.run_id,
            game=spec.game,
            seed=spec.seed,
            index=spec.index,
            repeat=spec.repeat,
            status="errored",
            outcome="aborted",
            reason=f"could not start: {type(err).__name__}: {err}",
        )
        store.write_result(result)
        return result

    async def run(self, progress: Progress | None = None) -> list[MatchResult]:
        if any(a.kind == "llm" for a in self.config.agents):
            from arena.llm.preflight import preflight_entries

            await preflight_entries(self.config.agents)  # ConfigError before anything runs
        store = self.prepare()
        try:
            done = store.done_ids()
            todo = [s for s in self.specs if s.match_id not in done]
            if progress is None:
                progress = Progress(total=len(self.specs))
            progress.skipped = len(self.specs) - len(todo)
            progress.done = progress.skipped
            progress.changed()
            sem = asyncio.Semaphore(self.config.concurrency)

            async def guarded(spec: MatchSpec) -> None:
                async with sem:
                    progress.running += 1
                    progress.changed()
                    try:
                        result = await self.run_one(spec, store)
                    finally:
                        progress.running -= 1
                    progress.done += 1
                    if result.status != "finished":
                        progress.failed += 1
                    progress.results.append(result)
                    progress.changed()

            await asyncio.gather(*(guarded(s) for s in todo))
            status = "complete" if len(store.done_ids()) == len(self.specs) else "incomplete"
            store.set_run_status(self.run_id, status)
            return store.results()
        except asyncio.CancelledError:
            store.set_run_status(self.run_id, "interrupted")
            raise
        finally:
            store.close()
