"""The Ray side of the Ray executor: a task that plays a small chunk of matches.

A chunk's matches play concurrently on one event loop of the worker process (a thread kept for
the life of the process, so backends and their connections are reused across chunks). The
task is a streaming generator: it yields, per match, a ``start`` message, batches of its
events as JSON lines while it plays (every ``FLUSH_S``), and finally its result with the last
events — or a ``failed`` message when the match raised — and, last, ``chunk_done`` with the
CPU time the chunk cost its process. Nothing here writes a file: the driver
alone writes the store, the records and the live sinks (:mod:`tournaments.ray.executor`).
"""

from __future__ import annotations

import asyncio
import functools
import math
import os
import queue
import socket
import threading
import time
import traceback
from collections.abc import Iterator
from typing import Any

from arena import priority
from arena.events import Event
from arena.results import MatchSpec
from arena.runner import MatchRunner
from tournaments.config import RunConfig
from tournaments.entries import llm_backend
from tournaments.executor import build_agent, unstartable_result

FLUSH_S = 0.5  # how often a playing match's new events go to the driver (live view)
# Messages ready together travel as one streamed item (at most this many): each item costs the
# driver's process a fetch from Ray, and with one item per message that bound the driver first.
ITEM_MOST = 64

Message = dict[str, Any]


class _Loop:
    """One event loop per worker process, in a daemon thread."""

    _lock = threading.Lock()
    _loop: asyncio.AbstractEventLoop | None = None

    @classmethod
    def get(cls) -> asyncio.AbstractEventLoop:
        with cls._lock:
            if cls._loop is None:
                loop = asyncio.new_event_loop()
                threading.Thread(target=loop.run_forever, name="arena-ray", daemon=True).start()
                cls._loop = loop
            return cls._loop


class BufferSink:
    """Keeps a match's events as JSON lines until the next flush."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.llm_calls = 0

    def write(self, event: Event) -> None:
        if event.type == "llm_call":
            self.llm_calls += 1
        self.lines.append(event.model_dump_json())

    def take(self) -> list[str]:
        lines, self.lines = self.lines, []
        return lines

    def close(self) -> None:
        pass


def node_name() -> str:
    """The worker's node as people know it: host name (and Ray node id prefix)."""
    try:
        import ray

        node = ray.get_runtime_context().get_node_id()[:8]
    except Exception:  # outside Ray (tests of this module without a cluster)
        node = "local"
    return f"{socket.gethostname()}:{node}"


_PROVIDED: set[str] = set()  # backend keys this process's loop has (one loop per process)


def _provide_backends(config: RunConfig, models: dict[str, list[Any]], slots: int) -> None:
    """Backends of the run's LLM entries on this worker: local models through their actors;
    OpenAI-compatible ones with this process's share of the per-node concurrency limit."""
    from arena.llm.actor import ActorBackend
    from arena.llm.backends import make_backend, provide_backend

    for entry in config.agents:
        backend = llm_backend(entry)
        if backend is None:
            continue
        key = backend.key()
        if key in _PROVIDED:
            continue
        if backend.type == "local" and models.get(key):
            provide_backend(backend, ActorBackend(backend, models[key]))
        elif backend.type == "openai":
            share = max(1, math.ceil(backend.concurrency / max(slots, 1)))
            limited = backend.model_copy(update={"concurrency": share})
            provide_backend(backend, make_backend(limited))
        _PROVIDED.add(key)


async def _play(
    config: RunConfig, pins: dict[str, int], spec: MatchSpec, start: int, out: queue.Queue[Any]
) -> None:
    from arena.llm.actor import current_match

    priority.match_priority.set(start)
    current_match.set(spec.match_id)
    sink = BufferSink()
    out.put({"kind": "start", "match_id": spec.match_id, "pid": os.getpid()})
    flusher: asyncio.Task[None] | None = None
    try:
        try:
            make = functools.partial(build_agent, config, pins)
            runner = MatchRunner(spec, make, [sink], config.policy)
        except Exception as err:  # cannot seat the agents: an errored result, not a retry
            result = unstartable_result(spec, f"could not start: {type(err).__name__}: {err}")
            out.put({"kind": "result", "match_id": spec.match_id, "lines": [], "llm_calls": 0,
                     "result": result.model_dump(mode="json"), "record": False})  # fmt: skip
            return

        async def flush() -> None:
            while True:
                await asyncio.sleep(FLUSH_S)
                if sink.lines:
                    out.put({"kind": "events", "match_id": spec.match_id, "lines": sink.take()})

        flusher = asyncio.create_task(flush())
        result = await runner.run()
        flusher.cancel()
        out.put({"kind": "result", "match_id": spec.match_id, "lines": sink.take(),
                 "llm_calls": sink.llm_calls, "result": result.model_dump(mode="json"),
                 "record": True})  # fmt: skip
    except Exception as err:  # a bug in a game or agent: the driver retries, then errors it
        if flusher is not None:
            flusher.cancel()
        reason = f"{type(err).__name__}: {err}"
        out.put({"kind": "failed", "match_id": spec.match_id, "reason": reason,
                 "trace": traceback.format_exc(limit=8)})  # fmt: skip


async def _play_all(
    config: RunConfig,
    pins: dict[str, int],
    chunk: list[tuple[MatchSpec, int]],
    models: dict[str, list[Any]],
    slots: int,
    out: queue.Queue[Any],
) -> None:
    try:
        _provide_backends(config, models, slots)
        await asyncio.gather(*(_play(config, pins, spec, start, out) for spec, start in chunk))
    finally:
        out.put(None)


def play_chunk(
    config: RunConfig,
    pins: dict[str, int],
    chunk: list[tuple[MatchSpec, int]],
    models: dict[str, list[Any]],
    slots: dict[str, int],
) -> Iterator[list[Message]]:
    """Play ``chunk`` ((spec, start order) pairs) and yield its messages as they come, those
    ready together in one list (at most ``ITEM_MOST``), in the order they were made.

    ``models``: backend key -> model actor handles; ``slots``: node id -> how many chunks run
    there at once (the share of a per-node LLM limit)."""
    out: queue.Queue[Message | None] = queue.Queue()
    try:
        import ray

        node_id = ray.get_runtime_context().get_node_id()
    except Exception:
        node_id = ""
    here = slots.get(node_id, max(slots.values(), default=1))
    future = asyncio.run_coroutine_threadsafe(
        _play_all(config, pins, chunk, models, here, out), _Loop.get()
    )
    node = node_name()
    cpu = time.process_time()
    try:
        while (items := _ready(out)) is not None:
            for msg in items:
                msg["node"] = node
            yield items
    except BaseException:  # cancelled by the driver (KeyboardInterrupt) or the stream closed
        future.cancel()  # stop this chunk's matches on the worker's loop too
        raise
    future.result()  # surface a failure of the chunk itself (setting up its backends)
    # this process's CPU over the chunk, Ray's own threads included (bench/ray_executor.py)
    done = {"kind": "chunk_done", "match_id": "", "node": node, "cpu_s": time.process_time() - cpu}
    yield [done]


def _ready(out: queue.Queue[Message | None]) -> list[Message] | None:
    """The next message (waiting for it) and those already behind it; None at the end (the
    messages before the end still come first)."""
    first = out.get()
    if first is None:
        return None
    items = [first]
    while len(items) < ITEM_MOST:
        try:
            msg = out.get_nowait()
        except queue.Empty:
            break
        if msg is None:
            out.put(None)  # the end, once these are out
            break
        items.append(msg)
    return items
