"""The run's progress display moves on time: lines while matches run, a live LLM call rate
and an ETA that counts the matches in flight (a hand-driven clock; no sleeps)."""

from __future__ import annotations

import asyncio
import io

import pytest
from rich.console import Console

from app.progress import BarReport, HeadlessReport, Pace, ticking
from arena.results import MatchResult
from tournaments.progress import Progress


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def finished(i: int, duration: float) -> MatchResult:
    return MatchResult(
        match_id=f"m{i}", game="toy", seed=i, status="finished", outcome="x", duration_s=duration
    )


def test_headless_lines_come_on_time_while_matches_run_with_the_llm_rate() -> None:
    clock, out = Clock(), io.StringIO()
    report = HeadlessReport(out, clock, every_s=5.0)
    c = Progress(total=4, on_change=report)
    c.changed()  # the run starts
    c.running = 2
    c.changed()
    lines = out.getvalue().splitlines()
    assert len(lines) == 1 and lines[0].startswith("matches 0/4 done")
    clock.now += 3.0
    c.llm_calls = 9  # calls complete inside matches that have not ended
    c.changed()  # a tick before the interval: nothing new
    assert len(out.getvalue().splitlines()) == 1
    clock.now += 3.0
    c.llm_calls = 12
    c.changed()  # a tick past it: a line, no match has ended
    lines = out.getvalue().splitlines()
    assert len(lines) == 2
    assert "0/4 done, 0 failed, 2 running, 6.0s, LLM 2.0 calls/s" in lines[1]


def test_the_eta_counts_the_matches_in_flight() -> None:
    """Four at a time, ten seconds each: when the first ends and the fifth starts, the work
    left is 3 queued matches plus the newest one's 10 s, over 4 at a time."""
    clock = Clock()
    pace = Pace(clock)
    c = Progress(total=8)
    pace.observe(c)
    c.running = 4
    pace.observe(c)
    assert pace.eta_s(c) is None  # nothing finished yet: no pace to go by
    clock.now += 10.0
    c.running, c.done = 3, 1
    c.results.append(finished(0, 10.0))
    pace.observe(c)
    c.running = 4
    pace.observe(c)
    assert pace.eta_s(c) == (3 * 10.0 + 10.0) / 4
    clock.now += 5.0  # half way through the fifth: 5 s of it left
    assert pace.eta_s(c) == (3 * 10.0 + 5.0) / 4


def test_the_tick_refreshes_the_display_without_any_match_event() -> None:
    calls: list[int] = []
    c = Progress(total=1, on_change=lambda p: calls.append(p.done))

    async def run() -> None:
        async with ticking(c, every_s=0.001):
            async with asyncio.timeout(30):  # a bound, not a measure: ticks arrive long before
                while len(calls) < 3:
                    await asyncio.sleep(0.001)

    asyncio.run(run())
    assert len(calls) >= 3


def test_the_bar_starts_at_the_first_change_so_a_header_printed_before_stays() -> None:
    file = io.StringIO()
    console = Console(file=file, force_terminal=True, width=120)
    bar = BarReport(total=2, console=console)
    console.print("run r1 → runs/r1  (2 matches, concurrency 1)")
    assert not bar.started and file.getvalue().count("\n") == 1  # only the header so far
    c = Progress(total=2, on_change=bar)
    c.changed()
    bar.stop()
    assert bar.started and "matches" in file.getvalue().split("\n", 1)[1]


def test_the_pace_holds_no_state_per_finished_match() -> None:
    """A 5,000-match run: the ETA still uses every finished match's duration, but the pace
    keeps nothing per match (its containers hold at most the matches in flight)."""
    clock = Clock()
    pace = Pace(clock)
    c = Progress(total=10_000)
    pace.observe(c)
    for i in range(5_000):
        c.running = 4
        pace.observe(c)
        clock.now += 1.0
        c.running, c.done = 3, c.done + 1
        c.results.append(finished(i, 2.0 + i % 3))  # durations 2, 3, 4 in turn
        pace.observe(c)
    sized = [v for v in vars(pace).values() if isinstance(v, list | dict | set | tuple)]
    sized += [v for v in vars(pace).values() if type(v).__name__ == "deque"]
    assert all(len(v) <= pace.peak for v in sized)
    mean = sum(2.0 + i % 3 for i in range(5_000)) / 5_000
    in_flight = sum(max(mean - (clock.now - t), 0.0) for t in pace.starts)
    queued = c.total - c.done - c.running
    assert pace.eta_s(c) == pytest.approx((in_flight + queued * mean) / 4, rel=1e-12)
