"""A decision's time limit that counts the time an answer is being computed, not queued.

The runner gives each program seat ``policy.timeout_s`` per decision. When many seats share one
model, a call may wait behind the others' calls before the model even starts on it; counting
that wait would turn our own queue into timeouts (and the fallback moves that follow). So the
runner runs each ask under a :class:`DecisionClock`, and code that waits in a queue (a
backend's concurrency gate, its rate limiter, a local model's batch queue) does so inside
:func:`queued`: while any queued block is open the clock is stopped, and the deadline is moved
on by the wait when it closes. A queue wait still has a bound of its own (``queue_limit_s``,
counted over the whole decision), so a queue that never moves ends in a timeout too, and the
error says which limit was reached.

Code outside a runner's ask (a probe, a benchmark) has no clock: :func:`queued` does nothing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from contextvars import ContextVar

current_clock: ContextVar[DecisionClock | None] = ContextVar("arena_decision_clock", default=None)


class DecisionClock:
    """The deadline of one ask: ``limit_s`` of computing plus at most ``queue_limit_s`` of
    waiting in queues. ``timeout`` is the ``asyncio.timeout`` context the ask runs in."""

    def __init__(
        self, timeout: asyncio.Timeout, limit_s: float, queue_limit_s: float | None
    ) -> None:
        self.timeout = timeout
        self.limit_s = limit_s
        self.queue_limit_s = queue_limit_s
        self.loop = asyncio.get_running_loop()
        self.computing_s = 0.0  # time the clock ran (outside queues)
        self.queued_s = 0.0  # time spent inside queued blocks
        self._since = self.loop.time()  # when the current running (or queued) stretch began
        self._depth = 0  # open queued blocks (a gate inside a limiter wait, ...)
        self._move(self._since + limit_s)

    @property
    def in_queue(self) -> bool:
        return self._depth > 0

    def pause(self) -> None:
        """A queue wait begins: the computing deadline stops; the queue's bound applies."""
        self._depth += 1
        if self._depth > 1:
            return
        now = self.loop.time()
        self.computing_s += now - self._since
        self._since = now
        if self.queue_limit_s is None:
            self._move(None)
        else:
            self._move(now + max(0.0, self.queue_limit_s - self.queued_s))

    def resume(self) -> None:
        """The wait is over: the computing deadline runs again with what was left of it."""
        self._depth -= 1
        if self._depth > 0:
            return
        now = self.loop.time()
        self.queued_s += now - self._since
        self._since = now
        self._move(now + max(0.0, self.limit_s - self.computing_s))

    def _move(self, when: float | None) -> None:
        # a wait that ends after the ask did (a call left running) has no deadline to move
        if not self.timeout.expired():
            with suppress(RuntimeError):
                self.timeout.reschedule(when)

    def reason(self) -> str:
        """Why the deadline passed, for the refusal the runner records."""
        if self.in_queue:
            return f"queued for more than {self.queue_limit_s}s before the model started"
        waited = f" (besides {self.queued_s:.1f}s queued)" if self.queued_s >= 0.05 else ""
        return f"no answer within {self.limit_s}s{waited}"


@contextmanager
def queued() -> Iterator[None]:
    """Wait in a queue without spending the current decision's time limit."""
    clock = current_clock.get()
    if clock is None:
        yield
        return
    clock.pause()
    try:
        yield
    finally:
        clock.resume()
