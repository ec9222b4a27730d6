"""A bare Textual app to host one screen: none of the arena apps' attributes (no run model,
no ``open_match``, no source label, no ``job_done``), so a screen shown in it works from what
its constructor was handed, or not at all."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from textual.app import App
from textual.pilot import Pilot
from textual.screen import Screen


class BareApp(App[None]):
    def __init__(self, first: Screen[Any]) -> None:
        super().__init__()
        self.first = first

    def on_mount(self) -> None:
        self.push_screen(self.first)


async def until(pilot: Pilot[None], predicate: Callable[[], bool], timeout: float = 30.0) -> None:
    """Let the app run until ``predicate()`` holds; the deadline only matters when it never does."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout} s")
        await pilot.pause(0.02)
