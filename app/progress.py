"""Progress display for long runs: a rich bar on a terminal, periodic plain lines otherwise.

Both are driven by two sources: the executor's changes (a match starts or ends) and a
periodic tick (:func:`ticking`), so a run whose matches take minutes (LLM seats) still shows
its LLM call rate and ETA moving, and a headless run prints a line every few seconds.
"""

from __future__ import annotations

import asyncio
import itertools
import sys
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager, suppress
from typing import TYPE_CHECKING, Any, TextIO

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

TICK_S = 1.0  # how often the display is refreshed while a run is in progress
HEADLESS_EVERY_S = 5.0  # headless: a line at least this often while matches run

if TYPE_CHECKING:
    from tournaments.progress import Progress as Counters

Clock = Callable[[], float]


def per_node(nodes: dict[str, int]) -> str:
    """Matches running per node (a Ray run), e.g. ``host-a:1f2e 3 · host-b:77c0 2``."""
    return " · ".join(f"{node} {n}" for node, n in sorted(nodes.items()))


class Pace:
    """The run's pace from what the counters show over time: when matches started (in flight
    now), how long the finished ones took, how many run at once. Its ETA counts the work left
    in the running matches, not only the queued ones, and divides it by the parallelism."""

    def __init__(self, clock: Clock = time.monotonic) -> None:
        self.clock = clock
        self.t0: float | None = None
        self.starts: deque[float] = deque()  # start times of the matches in flight (oldest first)
        # the finished matches' durations, as a sum and a count: the ETA is asked at every
        # change of the counters, and a list summed each time made a long run quadratic
        self.duration_sum = 0.0
        self.durations = 0
        self.peak = 0  # the most matches seen running at once (the run's concurrency)
        self.running = 0
        self.done: int | None = None  # None until the first observation (resumed ones skipped)

    def observe(self, c: Counters) -> None:
        now = self.clock()
        if self.t0 is None:
            self.t0 = now
        for _ in range(c.running - self.running):
            self.starts.append(now)
        for _ in range(self.running - c.running):
            if self.starts:  # matches of one run take alike: the oldest ends first
                self.starts.popleft()
        self.running = c.running
        self.peak = max(self.peak, c.running)
        if self.done is not None and c.done > self.done:
            # the newest results, newest first (the deque is bounded; no copy of it)
            for result in itertools.islice(reversed(c.results), c.done - self.done):
                if result.duration_s > 0:
                    self.duration_sum += result.duration_s
                    self.durations += 1
        self.done = c.done

    def elapsed_s(self) -> float:
        return 0.0 if self.t0 is None else self.clock() - self.t0

    def llm_rate(self, c: Counters) -> float:
        """LLM calls per second since the display started (calls count as they complete)."""
        elapsed = self.elapsed_s()
        return c.llm_calls / elapsed if elapsed > 0 else 0.0

    def eta_s(self, c: Counters) -> float | None:
        """Seconds left (None before a match of this session finished)."""
        if not self.durations:
            return None
        mean = self.duration_sum / self.durations
        now = self.clock()
        in_flight = sum(max(mean - (now - t), 0.0) for t in self.starts)
        queued = max(c.total - c.done - c.running, 0)
        return (in_flight + queued * mean) / max(self.peak, 1)


class HeadlessReport:
    """Plain lines on ``out``: the start, every 10% of the matches, the end, and while
    matches run at least every ``every_s`` seconds (the tick makes that happen)."""

    def __init__(
        self, out: TextIO, clock: Clock = time.monotonic, every_s: float = HEADLESS_EVERY_S
    ) -> None:
        self.out = out
        self.clock = clock
        self.every_s = every_s
        self.pace = Pace(clock)
        self.last_step = -1
        self.last_line: float | None = None
        self.finished = False

    def __call__(self, c: Counters) -> None:
        self.pace.observe(c)
        step = int(10 * c.done / max(c.total, 1))
        now = self.clock()
        end = c.done >= c.total and c.running == 0
        due = (
            step > self.last_step
            or (end and not self.finished)
            or (
                c.running > 0
                and self.last_line is not None
                and now - self.last_line >= self.every_s
            )
        )
        if not due:
            return
        self.last_step, self.last_line, self.finished = max(step, self.last_step), now, end
        eta = self.pace.eta_s(c)
        print(
            f"matches {c.done}/{c.total} done, {c.failed} failed, {c.running} running, "
            f"{self.pace.elapsed_s():.1f}s, LLM {self.pace.llm_rate(c):.1f} calls/s"
            + (f", ETA {eta:.0f}s" if eta is not None else "")
            + (f", running per node: {per_node(c.nodes)}" if c.nodes else ""),
            file=self.out,
            flush=True,
        )


class BarReport:
    """A rich bar, started at the first change: whatever the command prints before the run
    starts (its header) stays above it, never drawn over."""

    def __init__(self, total: int, console: Console | None = None) -> None:
        self.pace = Pace()
        self.bar = Progress(
            TextColumn("[bold]matches"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("failed {task.fields[failed]} · running {task.fields[running]}"),
            TextColumn("· LLM {task.fields[llm]:.1f} calls/s · ETA {task.fields[eta]}"),
            TextColumn("{task.fields[nodes]}"),
            console=console or Console(stderr=True),
            transient=False,
        )
        self.task = self.bar.add_task(
            "run", total=total, failed=0, running=0, llm=0.0, eta="-", nodes=""
        )
        self.started = False

    def __call__(self, c: Counters) -> None:
        if not self.started:
            self.bar.start()
            self.started = True
        self.pace.observe(c)
        eta = self.pace.eta_s(c)
        self.bar.update(
            self.task,
            total=c.total,
            completed=c.done,
            failed=c.failed,
            running=c.running,
            llm=self.pace.llm_rate(c),
            eta="-" if eta is None else _clock_time(eta),
            nodes=per_node(c.nodes),
        )

    def stop(self) -> None:
        if self.started:
            self.bar.stop()


def _clock_time(seconds: float) -> str:
    s = round(seconds)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


@contextmanager
def progress_display(total: int, quiet: bool = False) -> Iterator[Any]:
    """Yields a ``tournaments.executor.Progress`` wired to a display (run it under
    :func:`ticking` so the display moves between match ends)."""
    from tournaments.progress import Progress as Counters

    counters = Counters(total=total)
    if quiet:
        yield counters
        return
    if sys.stderr.isatty():
        bar = BarReport(total)
        counters.on_change = bar
        try:
            yield counters
        finally:
            bar.stop()
        return
    counters.on_change = HeadlessReport(sys.stderr)
    yield counters


async def tick(progress: Any, every_s: float = TICK_S) -> None:
    """Call the display every ``every_s`` seconds (forever; cancel it)."""
    while True:
        await asyncio.sleep(every_s)
        progress.changed()


@asynccontextmanager
async def ticking(progress: Any, every_s: float = TICK_S) -> AsyncIterator[None]:
    """Within the block, the display of ``progress`` is refreshed on time, not only when a
    match starts or ends."""
    task = asyncio.create_task(tick(progress, every_s))
    try:
        yield
    finally:
        task.cancel()
        with suppress(asyncio.CancelledError):
            await task
