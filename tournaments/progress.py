"""What a run reports while it plays: counters the UI reads, and the sink that counts LLM calls."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from arena.events import Event
from arena.results import MatchResult


@dataclass
class Progress:
    """Counters the UI reads; ``on_change`` is called after every update."""

    total: int
    done: int = 0
    failed: int = 0
    running: int = 0
    skipped: int = 0
    llm_calls: int = 0
    # node -> matches running there (filled by executors that spread matches over nodes)
    nodes: dict[str, int] = field(default_factory=dict)
    started: float = field(default_factory=time.monotonic)
    on_change: Callable[[Progress], None] | None = None
    # the most recent results (bounded: a 10,000-match run must not hold them all here)
    results: deque[MatchResult] = field(default_factory=lambda: deque(maxlen=256))

    def changed(self) -> None:
        if self.on_change is not None:
            self.on_change(self)

    def llm_rate(self) -> float:
        """LLM calls per second since the run (or resume) started."""
        elapsed = time.monotonic() - self.started
        return self.llm_calls / elapsed if elapsed > 0 else 0.0

    def eta_s(self) -> float | None:
        """Seconds left at the pace of this session's matches (None before the first)."""
        played = self.done - self.skipped
        if played <= 0:
            return None
        per = (time.monotonic() - self.started) / played
        return per * max(self.total - self.done, 0)


class LlmCallCounter:
    """A sink counting the god-only ``llm_call`` events of LLM agents into the progress."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress

    def write(self, event: Event) -> None:
        if event.type == "llm_call":
            self.progress.llm_calls += 1

    def close(self) -> None:
        pass
