"""Dynamic batching: concurrent requests arriving within a short window run as one batch.

The first request of a batch waits at most ``window_s`` for company (or until ``max_batch``
requests are queued); the batch then runs in a worker thread so the event loop stays free,
and requests that arrive meanwhile form the next batch.

When more requests wait than fit in a batch, the batch takes them by programme priority
(:data:`arena.priority.match_priority`: matches started earlier first, then arrival order), the
same order the backend's priority gate admits them in: matches in flight finish first.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import itertools
from collections.abc import Callable

from arena.deadline import queued
from arena.llm.messages import ChatRequest, ChatResult
from arena.priority import UNTAGGED, match_priority

RunBatch = Callable[[list[ChatRequest]], list[ChatResult]]


class Batcher:
    def __init__(self, run_batch: RunBatch, window_s: float = 0.02, max_batch: int = 8) -> None:
        self.run_batch = run_batch
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
            result = await fut
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
                    self._pool, self.run_batch, [r for r, _ in batch]
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
