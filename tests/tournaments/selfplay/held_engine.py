"""A context-sensitive test backend that stops answering after a number of calls until the test
releases it: a model stuck on a decision, to see what a run does meanwhile (a wall cap, the
self-play screen's live counts). The hold is bounded: past it the engine releases itself, so a
test that never releases still ends (and sees ``release`` set)."""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from arena.llm.fakes.context import ContextEngine

HOLD_BOUND_S = 20.0


@dataclass
class HeldEngine(ContextEngine):
    hold_after: int = 0  # calls answered before the engine holds
    release: threading.Event = field(default_factory=threading.Event)
    held: threading.Event = field(default_factory=threading.Event)  # set once a call waits
    calls: int = 0

    async def reply(self, body: dict[str, Any]) -> tuple[str, int, int]:  # type: ignore[override]
        self.calls += 1
        if self.calls > self.hold_after:
            self.held.set()
            deadline = time.monotonic() + HOLD_BOUND_S
            while not self.release.is_set() and time.monotonic() < deadline:
                await asyncio.sleep(0.01)  # the server's own loop: other requests go on
            self.release.set()  # past the bound: a test that never released ends
        return super().reply(body)
