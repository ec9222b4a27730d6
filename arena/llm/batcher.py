"""Dynamic batching: concurrent requests arriving within a short window run as one batch.

The first request of a batch waits at most ``window_s`` for company (or until ``max_batch``
requests are queued); the batch then runs in a worker thread so the event loop stays free,
and requests that arrive meanwhile form the next batch.

A batch's results carry its model time (``ChatResult.model_s``, :class:`ComputeMeter`), which
is what the waiting decisions are charged (:func:`arena.deadline.computing`), not the wall time
the batch took on a machine that other programs also load.

When more requests wait than fit in a batch, the batch takes them by programme priority
(:data:`arena.priority.match_priority`: matches started earlier first, then arrival order), the
same order the backend's priority gate admits them in: matches in flight finish first.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import itertools
import time
from collections.abc import Callable

from arena.deadline import computing, queued
from arena.llm.messages import ChatRequest, ChatResult
from arena.priority import UNTAGGED, match_priority

RunBatch = Callable[[list[ChatRequest]], list[ChatResult]]


class ComputeMeter:
    """A batch's model time: the process's CPU seconds over the threads the model computes
    with, never more than the batch's wall time.

    On an idle machine a model using all its threads gets CPU time = threads x wall time, so
    its model time is its wall time; when other programs take the CPUs, the wall time grows
    but the model time does not. CPU time of the whole process is counted (the event loop and
    the bots too), so the figure errs towards charging more, never less. ``threads=None``
    (a GPU, whose work the CPU time does not show) charges wall time. ``wall`` and ``cpu`` are
    the clocks read (a test passes its own)."""

    def __init__(
        self,
        threads: int | None,
        wall: Callable[[], float] = time.perf_counter,
        cpu: Callable[[], float] = time.process_time,
    ) -> None:
        self.threads = threads
        self.wall = wall
        self.cpu = cpu

    def run(self, run_batch: RunBatch, batch: list[ChatRequest]) -> list[ChatResult]:
        """``run_batch(batch)``, each result's ``model_s`` set to the batch's model time."""
        wall0, cpu0 = self.wall(), self.cpu()
        results = run_batch(batch)
        wall = max(0.0, self.wall() - wall0)
        spent = wall if self.threads is None else min(wall, (self.cpu() - cpu0) / self.threads)
        for result in results:
            result.model_s = max(0.0, spent)
        return results


class Batcher:
    def __init__(
        self,
        run_batch: RunBatch,
        window_s: float = 0.02,
        max_batch: int = 8,
        meter: ComputeMeter | None = None,
    ) -> None:
        self.run_batch = run_batch
        self.meter = meter or ComputeMeter(None)
        self.window_s = window_s
        self.max_batch = max_batch
        # (priority, arrival, request, future); a future's ``taken`` event is set when a batch
        # takes it (the end of its queue wait)
        self._queue: list[tuple[int, int, ChatRequest, asyncio.Future[ChatResult]]] = []
        self._taken: dict[asyncio.Future[ChatResult], asyncio.Event] = {}
        self._tick = itertools.count()
        self._wake = asyncio.Event()
        self._full = asyncio.Event()
        self._worker: asyncio.Task[None] | None = None
        self._pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="llm-batch")
        self.batch_sizes: list[int] = []

    async def submit(self, request: ChatRequest) -> ChatResult:
        """The request's result; its wait for a batch is queue time (``ChatResult.queue_s``),
        which does not count against the caller's decision time limit (:mod:`arena.deadline`)."""
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[ChatResult] = loop.create_future()
        taken = self._taken[fut] = asyncio.Event()
        prio = match_priority.get()
        self._queue.append((UNTAGGED if prio is None else prio, next(self._tick), request, fut))
        self._wake.set()
        if len(self._queue) >= self.max_batch:
            self._full.set()
        if self._worker is None or self._worker.done():
            self._worker = asyncio.create_task(self._run())
        began = loop.time()
        try:
            with queued():
                await taken.wait()
            waited = loop.time() - began
            with computing() as spent:  # the batch's model time is charged, not its wall time
                result = await fut
                spent.seconds = result.model_s
        except asyncio.CancelledError:
            fut.cancel()  # a batch not yet run leaves it out
            raise
        finally:
            self._taken.pop(fut, None)
        result.queue_s += waited
        return result

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            if not self._queue:
                self._wake.clear()
                try:
                    await asyncio.wait_for(self._wake.wait(), timeout=5.0)
                except TimeoutError:
                    if not self._queue:
                        return
            if len(self._queue) < self.max_batch and self.window_s > 0:
                self._full.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._full.wait(), timeout=self.window_s)
            self._queue.sort(key=lambda item: (item[0], item[1]))
            taken = self._queue[: self.max_batch]
            del self._queue[: len(taken)]
            batch = [(r, f) for _, _, r, f in taken if not f.cancelled()]
            for _, fut in batch:
                event = self._taken.get(fut)
                if event is not None:
                    event.set()
            if not batch:
                continue
            self.batch_sizes.append(len(batch))
            try:
                results = await loop.run_in_executor(
                    self._pool, self.meter.run, self.run_batch, [r for r, _ in batch]
                )
            except Exception as err:  # a model failure fails this batch, not the worker
                for _, fut in batch:
                    if not fut.done():
                        fut.set_exception(err)
                continue
            for (_, fut), res in zip(batch, results, strict=True):
                if not fut.done():
                    fut.set_result(res)

    def close(self) -> None:
        if self._worker is not None:
            self._worker.cancel()
        self._pool.shutdown(wait=False, cancel_futures=True)
