"""Progress display for long runs: a rich bar on a terminal, periodic plain lines otherwise."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn


def per_node(nodes: dict[str, int]) -> str:
    """Matches running per node (a Ray run), e.g. ``host-a:1f2e 3 · host-b:77c0 2``."""
    return " · ".join(f"{node} {n}" for node, n in sorted(nodes.items()))


@contextmanager
def progress_display(total: int, quiet: bool = False) -> Iterator[Any]:
    """Yields a ``tournaments.executor.Progress`` wired to a display."""
    from tournaments.executor import Progress as Counters

    counters = Counters(total=total)
    if quiet:
        yield counters
        return
    if sys.stderr.isatty():
        bar = Progress(
            TextColumn("[bold]matches"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("failed {task.fields[failed]} · running {task.fields[running]}"),
            TextColumn("· LLM {task.fields[llm]:.1f} calls/s · ETA"),
            TimeRemainingColumn(),
            TextColumn("{task.fields[nodes]}"),
            transient=False,
        )
        task = bar.add_task("run", total=total, failed=0, running=0, llm=0.0, nodes="")

        def update(c: Counters) -> None:
            bar.update(
                task,
                total=c.total,
                completed=c.done,
                failed=c.failed,
                running=c.running,
                llm=c.llm_rate(),
                nodes=per_node(c.nodes),
            )

        counters.on_change = update
        with bar:
            yield counters
        return
    # Headless (CI, pipes): a line at every 10% and at the end.
    state = {"last": -1, "t0": time.perf_counter()}

    def report(c: Counters) -> None:
        step = int(10 * c.done / max(c.total, 1))
        if step != state["last"] and (c.running == 0 or step > state["last"]):
            state["last"] = step
            elapsed = time.perf_counter() - state["t0"]
            eta = c.eta_s()
            print(
                f"matches {c.done}/{c.total} done, {c.failed} failed, {c.running} running, "
                f"{elapsed:.1f}s, LLM {c.llm_rate():.1f} calls/s"
                + (f", ETA {eta:.0f}s" if eta is not None else "")
                + (f", running per node: {per_node(c.nodes)}" if c.nodes else ""),
                file=sys.stderr,
                flush=True,
            )

    counters.on_change = report
    yield counters
