"""A priority gate: matches already in progress get their next LLM call before new matches start.

The tournament executor tags each match task with its start order (``match_priority``, a
context variable inherited by every task the match spawns). A backend that limits concurrent
requests awaits a shared :class:`PriorityGate` instead of a plain semaphore; when a slot frees,
the waiter from the earliest-started match gets it, so in-flight matches finish first and new
matches fill the remaining capacity. Code outside a tournament has priority ``None`` (served
after every tagged waiter, in arrival order).

Usage in a backend::

    from arena import priority

    gate = priority.gate("openai:http://host/v1", limit=32)   # shared per backend key
    async with gate.slot():
        response = await client.chat.completions.create(...)
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from contextvars import ContextVar

match_priority: ContextVar[int | None] = ContextVar("match_priority", default=None)

UNTAGGED = 1 << 62  # priority of waiters outside any tournament


class PriorityGate:
    """At most ``limit`` holders; waiters are admitted lowest priority value first (FIFO ties)."""

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError("limit must be >= 1")
        self.limit = limit
        self.active = 0
        self._waiters: list[tuple[int, int, asyncio.Future[None]]] = []
        self._tick = itertools.count()

    @property
    def waiting(self) -> int:
        return sum(1 for _, _, f in self._waiters if not f.done())

    async def acquire(self, priority: int | None = None) -> None:
        if priority is None:
            priority = match_priority.get()
        key = UNTAGGED if priority is None else priority
        if self.active < self.limit and not self.waiting:
            self.active += 1
            return
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiters, (key, next(self._tick), fut))
        try:
            await fut
        except asyncio.CancelledError:
            if fut.done() and not fut.cancelled():
                self.release()  # the slot was handed over just as we were cancelled
            raise

    def release(self) -> None:
        if self.active > self.limit:  # the limit was lowered: this slot closes
            self.active -= 1
            return
        while self._waiters:
            _, _, fut = heapq.heappop(self._waiters)
            if not fut.done():
                fut.set_result(None)  # the slot passes straight to the waiter
                return
        self.active -= 1

    def resize(self, limit: int) -> None:
        """A new limit (at least 1): a higher one admits waiters at once, a lower one closes
        slots as their holders release them."""
        self.limit = max(1, limit)
        while self.active < self.limit and self._waiters:
            _, _, fut = heapq.heappop(self._waiters)
            if not fut.done():
                self.active += 1
                fut.set_result(None)

    @asynccontextmanager
    async def slot(self, priority: int | None = None) -> AsyncIterator[None]:
        await self.acquire(priority)
        try:
            yield
        finally:
            self.release()


_gates: dict[tuple[int, str], PriorityGate] = {}


def gate(key: str, limit: int) -> PriorityGate:
    """The shared gate for ``key`` in the running event loop (created on first use)."""
    loop_id = id(asyncio.get_running_loop())
    g = _gates.get((loop_id, key))
    if g is None:
        for stale in [k for k in _gates if k[0] != loop_id]:
            del _gates[stale]  # gates of finished event loops
        g = _gates[(loop_id, key)] = PriorityGate(limit)
    return g
