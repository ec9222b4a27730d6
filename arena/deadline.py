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

A model computing in this process (the local backend) is timed by its own work, not by the
wall clock: on a machine shared with other programs the same computation takes longer in wall
time, and counting that would turn someone else's load into our timeouts. Its batch runs
inside :func:`computing`: the wall clock stops, the batch's model time (process CPU seconds
over the threads the model computes with, never more than the batch's wall time:
:class:`arena.llm.batcher.ComputeMeter`) is charged when it returns, and a decision whose
charged time passes its limit ends in a timeout then. While the batch runs, a wall bound of
its own still stops a model that never returns: the time left divided by
:data:`MIN_CPU_SHARE`.

Code outside a runner's ask (a probe, a benchmark) has no clock: :func:`queued` and
:func:`computing` do nothing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from contextvars import ContextVar

#: While a local model computes, the wall bound assumes it gets at least this share of its CPUs.
MIN_CPU_SHARE = 0.1

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
        self._computing = False  # a local model is computing this ask's call
        self.model_s = 0.0  # of computing_s, the local model's own time charged
        self._late = False  # a charge of model time passed the limit
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

    def compute_begin(self) -> None:
        """A local model starts on the call: the wall clock stops; the time left is a wall
        bound stretched by :data:`MIN_CPU_SHARE`."""
        now = self.loop.time()
        self.computing_s += now - self._since
        self._since = now
        self._computing = True
        left = max(0.0, self.limit_s - self.computing_s)
        self._move(now + left / MIN_CPU_SHARE)

    def compute_end(self, model_s: float) -> None:
        """The model is done after ``model_s`` seconds of its own time: charged, and the clock
        runs again with what is left (TimeoutError when nothing is)."""
        self._computing = False
        now = self.loop.time()
        self.model_s += model_s
        self.computing_s += model_s
        self._since = now
        if self.computing_s > self.limit_s:
            self._late = True
            self._move(None)  # the answer is late: this ask ends here, not at a later tick
            raise TimeoutError(self.reason())
        self._move(now + self.limit_s - self.computing_s)

    def _move(self, when: float | None) -> None:
        # a wait that ends after the ask did (a call left running) has no deadline to move
        if not self.timeout.expired():
            with suppress(RuntimeError):
                self.timeout.reschedule(when)

    def reason(self) -> str:
        """Why the deadline passed, for the refusal the runner records."""
        if self._computing:
            return (
                f"the model computed for more than {self.limit_s / MIN_CPU_SHARE:g}s of wall "
                f"time and had not answered (limit {self.limit_s}s of model time)"
            )
        if self.in_queue:
            return f"queued for more than {self.queue_limit_s}s before the model started"
        if self._late:
            return f"the model's own time, {self.model_s:.1f}s, passed the limit of {self.limit_s}s"
        waited = f" (besides {self.queued_s:.1f}s queued)" if self.queued_s >= 0.05 else ""
        return f"no answer within {self.limit_s}s{waited}"


class ModelTime:
    """What :func:`computing` yields: the batch's model time is set here before the block ends."""

    def __init__(self) -> None:
        self.seconds = 0.0


@contextmanager
def computing() -> Iterator[ModelTime]:
    """A local model computing the current decision's call: charged its model time, not its
    wall time (set ``seconds`` on what this yields). TimeoutError at the end when that passes
    the decision's limit."""
    clock = current_clock.get()
    spent = ModelTime()
    if clock is None:
        yield spent
        return
    clock.compute_begin()
    # cancelled (the wall bound, a stop) or failed, the ask ends with that exception and the
    # clock stays as it was, so its reason says the model was still computing
    yield spent
    clock.compute_end(spent.seconds)


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
