"""The Ray executor: a tournament's matches as Ray tasks, recorded by the driver alone.

The driver (this process) cuts the specs it is handed into small chunks and starts one Ray
task per chunk (:func:`tournaments.ray.worker.play_chunk`), at most one per CPU slot of the
cluster. Each task streams its matches' events and results back; the driver writes the JSONL
record, feeds the optional sinks (live bus, streaming metrics, self-play usage) and writes the
result row after its record is durable, for the results that arrive together in one group
commit (:mod:`tournaments.ray.commit`) — once per match id: a result arriving for a match
that already has its row (a rerun that raced a late reply, a resumed run) is counted in
``duplicates`` and dropped.

Failures: Ray's own task retries are off (``max_retries=0``) because the driver knows better
which matches of a chunk are missing: when a worker dies mid-chunk (or the task fails), the
chunk's matches without a result are rerun from their seeds in a new task, at most
``attempts`` times in all, each rerun in a task of its own (so a match that kills its worker
takes its chunk-mates down once, not every time); a match that keeps failing — its worker dies every time, or its game
raises — ends ``errored`` with the last reason, and every other match plays on. A match's
record is started afresh by its rerun, as on a resume. Local models run as Ray actors
(:mod:`arena.llm.actor`). docs/distributed.md has the operations side.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import sqlite3
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from arena.events import Event
from arena.results import MatchResult, MatchSpec
from arena.sinks import EventSink, GuardedSink
from arena.store import Store
from tournaments.entries import llm_backend
from tournaments.executor import unstartable_result
from tournaments.progress import Progress
from tournaments.ray.commit import GROUP_MOST, GroupCommit, RecordFile

if TYPE_CHECKING:
    from tournaments.executor import Tournament


@dataclass
class _Playing:
    """A match whose task has started it: its record and sinks on the driver."""

    spec: MatchSpec
    node: str
    record: RecordFile
    sinks: list[EventSink] = field(default_factory=list)

    def close(self, sync: bool = True) -> None:
        self.record.close(sync)
        for sink in self.sinks:
            sink.close()


class RayExecutor:
    """Runs matches on a Ray cluster: ``address`` None starts a local one (``num_cpus``),
    ``"auto"`` or ``HOST:PORT`` joins a running one. ``chunk``: the most matches per task
    (default: the run's concurrency spread over the cluster's CPU slots, at most 16)."""

    name = "ray"

    def __init__(
        self,
        address: str | None = None,
        chunk: int | None = None,
        attempts: int = 3,
        num_cpus: int | None = None,
        model_loader: Callable[[Any], Any] | None = None,
        model_cpus: float = 1.0,
        group_most: int = GROUP_MOST,
    ) -> None:
        if attempts < 1:
            raise ValueError("attempts must be at least 1")
        self.address = address
        self.chunk = chunk
        self.attempts = attempts
        self.num_cpus = num_cpus
        self.model_loader = model_loader
        self.model_cpus = model_cpus
        self.group_most = group_most  # results per group commit (1: a commit per match)
        self.models: dict[str, list[Any]] = {}  # backend key -> model actor handles
        self.duplicates = 0  # results dropped because the match already had its row
        self.reruns = 0  # matches started again after their task failed
        self.tasks = 0
        # seconds the driver spent on what it alone does: per message, and within that the
        # result rows and the records (bench/ray_executor.py projects from these)
        self.driver_s = 0.0
        self.store_s = 0.0
        self.record_s = 0.0
        self.worker_cpu_s = 0.0  # CPU the chunks cost their worker processes
        self.sync_s = 0.0  # within record_s: syncing records, in a thread beside the loop
        self.groups = 0  # group commits (results per commit = recorded / groups)
        self._owns_cluster = False

    # -- cluster -----------------------------------------------------------------------
    def connect(self) -> None:
        import ray

        if ray.is_initialized():
            return
        options: dict[str, Any] = {"include_dashboard": False}
        if self.address:
            options["address"] = self.address
        else:  # a new cluster of our own, never someone else's `ray start` on this host
            options.update(address="local", num_cpus=self.num_cpus)
        ray.init(**options)
        self._owns_cluster = True

    def slots(self) -> dict[str, int]:
        """Node id -> CPU slots (concurrent tasks) of every live node."""
        import ray

        return {
            n["NodeID"]: max(1, int(n["Resources"].get("CPU", 1)))
            for n in ray.nodes()
            if n.get("Alive")
        }

    def _model_actors(self, tournament: Tournament) -> dict[str, list[Any]]:
        """One actor per device for each local-model backend of the run (made once)."""
        import ray

        from arena.llm.actor import start_model_actors

        gpus = int(ray.cluster_resources().get("GPU", 0))
        for entry in tournament.config.agents:
            if entry.kind != "llm":
                continue
            backend = llm_backend(entry)
            if backend is None or backend.type != "local" or backend.key() in self.models:
                continue
            wants_gpu = backend.device.startswith("cuda") or backend.device == "auto"
            on_gpu = wants_gpu and gpus > 0
            devices = [f"cuda:{i}" for i in range(gpus)] if on_gpu else [backend.device]
            self.models[backend.key()] = start_model_actors(
                backend, devices, self.model_loader, num_cpus=self.model_cpus
            )
        return self.models

    async def start(self, tournament: Tournament) -> None:
        """Connect, start the model actors, and give this process's loop the backends that
        reach them (so the preflight asks an actor instead of loading the model here)."""
        from arena.llm.actor import ActorBackend
        from arena.llm.backends import provide_backend

        self.connect()
        models = self._model_actors(tournament)
        for entry in tournament.config.agents:
            backend = llm_backend(entry)
            if backend is not None and backend.key() in models:
                provide_backend(backend, ActorBackend(backend, models[backend.key()]))

    async def close(self) -> None:
        import ray

        if not ray.is_initialized():
            return
        for handles in self.models.values():
            for handle in handles:
                ray.kill(handle, no_restart=True)
        self.models = {}
        if self._owns_cluster:
            ray.shutdown()
            self._owns_cluster = False

    # -- running -----------------------------------------------------------------------
    async def run_specs(
        self,
        tournament: Tournament,
        todo: Iterable[MatchSpec],
        store: Store,
        progress: Progress,
        sem: asyncio.Semaphore,
    ) -> None:
        run = _RayRun(self, tournament, store, progress)
        await run.play(todo)


class _RayRun:
    """One hand-over of specs: the chunks in flight and what the driver has recorded."""

    def __init__(
        self, executor: RayExecutor, tournament: Tournament, store: Store, progress: Progress
    ) -> None:
        import ray

        from tournaments.ray.worker import play_chunk

        executor.connect()
        self.ex = executor
        self.t = tournament
        self.store = store
        self.progress = progress
        self.recorded = store.done_ids()
        self.commits = GroupCommit(store, self._counted, executor.group_most)
        self.failures: dict[str, int] = {}
        self.retry: deque[MatchSpec] = deque()
        self.models = executor._model_actors(tournament)
        self.slot_map = executor.slots()
        slots = sum(self.slot_map.values()) - sum(len(h) for h in self.models.values())
        concurrency = tournament.config.concurrency
        self.max_tasks = max(1, min(slots, concurrency))
        wanted = math.ceil(concurrency / self.max_tasks)
        self.per_chunk = max(1, min(executor.chunk or min(wanted, 16), concurrency))
        self.config_ref = ray.put(tournament.config)  # sent once, not per task
        self.task = ray.remote(play_chunk).options(num_returns="streaming", max_retries=0)

    def _take(self, fresh: Any) -> list[MatchSpec]:
        if self.retry:  # a rerun plays alone: a chunk-mate that kills workers costs it once
            return [self.retry.popleft()]
        out: list[MatchSpec] = []
        while len(out) < self.per_chunk:
            spec = next(fresh, None)
            if spec is None:
                break
            if spec.match_id not in self.recorded:  # resumed: never played twice
                out.append(spec)
        return out

    async def play(self, todo: Iterable[MatchSpec]) -> None:
        import ray

        fresh = iter(todo)
        running: dict[asyncio.Task[None], Any] = {}
        try:
            while True:
                while len(running) < self.max_tasks:
                    chunk = self._take(fresh)
                    if not chunk:
                        break
                    gen = self._submit(chunk)
                    running[asyncio.create_task(self._consume(chunk, gen))] = gen
                if not running:
                    break
                finished, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
                for task in finished:
                    del running[task]
                    task.result()  # a driver-side bug must surface, not become a retry
            await self.commits.drain()
            self._tally()
        except BaseException:
            # Interrupted (Ctrl-C, a stop): ask the chunks to stop, without force. A forced
            # cancel kills the worker process mid-stream, which Ray must then replace, and it
            # is the cancel path where Ray's native core has had its races; the chunk stops its
            # own matches when interrupted (tournaments.ray.worker.play_chunk).
            for task, gen in running.items():
                task.cancel()
                with contextlib.suppress(Exception):  # already done, or the cluster is gone
                    ray.cancel(gen, force=False)
            # what arrived is kept: the queued results are committed (records synced first)
            with contextlib.suppress(RuntimeError, OSError, sqlite3.Error):
                self.commits.commit_now()
            raise

    def _tally(self) -> None:
        commits, ex = self.commits, self.ex
        ex.driver_s += commits.rows_s  # the rows are written on the loop; the syncs are not
        ex.store_s += commits.rows_s
        ex.record_s += commits.sync_s
        ex.sync_s += commits.sync_s
        ex.groups += commits.groups

    def _submit(self, chunk: list[MatchSpec]) -> Any:
        starts = []
        for spec in chunk:
            # start order is the LLM priority, as on asyncio
            starts.append((spec, self.t.next_priority()))
        self.ex.tasks += 1
        pins = dict(self.t.memory_pins)
        return self.task.remote(self.config_ref, pins, starts, self.models, self.slot_map)

    async def _consume(self, chunk: list[MatchSpec], gen: Any) -> None:
        from ray.exceptions import RayError

        by_id = {s.match_id: s for s in chunk}
        playing: dict[str, _Playing] = {}
        settled: set[str] = set()
        try:
            async for ref in gen:
                items = await ref  # the messages the chunk had ready together
                began = time.perf_counter()
                for msg in items:
                    self._message(msg, by_id, playing, settled)
                self.ex.driver_s += time.perf_counter() - began
        except RayError as err:  # the worker died or the task failed: rerun what is missing
            reason = f"{type(err).__name__}: {str(err).strip().splitlines()[0][:300]}"
            for spec in chunk:
                if spec.match_id not in settled:
                    self._failed(spec, playing.pop(spec.match_id, None), reason)
        finally:
            for left in playing.values():  # cancelled: close what was open
                left.close()

    # -- messages ----------------------------------------------------------------------
    def _message(
        self,
        msg: dict[str, Any],
        by_id: dict[str, MatchSpec],
        playing: dict[str, _Playing],
        settled: set[str],
    ) -> None:
        mid = msg["match_id"]
        if msg["kind"] == "chunk_done":
            self.ex.worker_cpu_s += msg["cpu_s"]
        elif msg["kind"] == "start":
            playing[mid] = self._start(by_id[mid], msg["node"])
        elif msg["kind"] == "events":
            self._events(playing[mid], msg["lines"])
        elif msg["kind"] == "result":
            self._result(playing.pop(mid), msg)
            settled.add(mid)
        elif msg["kind"] == "failed":
            self._failed(by_id[mid], playing.pop(mid, None), msg["reason"])
            settled.add(mid)

    def _start(self, spec: MatchSpec, node: str) -> _Playing:
        sinks: list[EventSink] = []
        if self.t.extra_sinks is not None:
            sinks = [GuardedSink(s) for s in self.t.extra_sinks(spec)]
        p = self.progress
        p.running += 1
        p.nodes[node] = p.nodes.get(node, 0) + 1
        p.changed()
        return _Playing(spec, node, RecordFile(self.t.dir.jsonl(spec.match_id)), sinks)

    def _events(self, playing: _Playing, lines: list[str]) -> None:
        began = time.perf_counter()
        playing.record.write(lines)
        self.ex.record_s += time.perf_counter() - began
        for line in lines if playing.sinks else ():
            event = Event.model_validate_json(line)
            for sink in playing.sinks:
                sink.write(event)

    def _stopped(self, playing: _Playing, sync: bool = True) -> None:
        began = time.perf_counter()
        playing.close(sync)
        self.ex.record_s += time.perf_counter() - began
        p = self.progress
        p.running -= 1
        p.nodes[playing.node] -= 1

    def _result(self, playing: _Playing, msg: dict[str, Any]) -> None:
        self._events(playing, msg["lines"])
        # the record is complete; its group commit fsyncs it before the row is written
        self._stopped(playing, sync=False)
        result = MatchResult.model_validate(msg["result"])
        if msg["record"]:
            rel = self.t.dir.jsonl(result.match_id).relative_to(self.t.dir.root)
            result = result.model_copy(update={"jsonl": str(rel)})
        if result.seats:  # the match's condition fingerprint, as the asyncio executor records
            result = result.model_copy(
                update={"conditions": self.t.conditions(playing.spec, result)}
            )
        self.progress.llm_calls += msg["llm_calls"]
        self._record(result, playing.record)

    def _failed(self, spec: MatchSpec, playing: _Playing | None, reason: str) -> None:
        if playing is not None:
            self._stopped(playing)
        n = self.failures.get(spec.match_id, 0) + 1
        self.failures[spec.match_id] = n
        if n < self.ex.attempts:
            self.ex.reruns += 1
            self.retry.append(spec)
            self.progress.changed()
            return
        self._record(unstartable_result(spec, f"failed {n} times; last: {reason}"))

    def _record(self, result: MatchResult, record: RecordFile | None = None) -> None:
        """Queue ``result`` for its group commit (``record``: its record, synced first)."""
        p = self.progress
        if result.match_id in self.recorded or result.match_id in self.commits.ids:
            self.ex.duplicates += 1  # idempotent: a match id has one result row
            if record is not None:
                record.close()
            p.changed()
            return
        self.commits.add(result, record)

    def _counted(self, result: MatchResult) -> None:
        """``result``'s row is in the store (its record durable): the match counts as done."""
        p = self.progress
        self.recorded.add(result.match_id)
        p.done += 1
        if result.status != "finished":
            p.failed += 1
        p.results.append(result)
        p.changed()
