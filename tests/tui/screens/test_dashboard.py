"""Every view of the live leaderboard names its rating family and the final leaderboard's fit."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from textual.widgets import DataTable, Static

from tui.app import ArenaApp
from tui.screens.dashboard import DashboardScreen
from tui.screens.leaderboard import LeaderboardScreen
from tui.sources import RunDirSource


async def _until(pilot: Any, predicate: Any, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout} s")
        await pilot.pause(0.05)


async def test_the_boards_name_their_rating_family(run_dir: Path) -> None:
    app = ArenaApp(source=RunDirSource(run_dir))
    async with app.run_test(size=(140, 40)) as pilot:
        await _until(pilot, lambda: bool(app.model.leaderboard))
        screen = app.screen
        assert isinstance(screen, DashboardScreen)
        board = screen.query_one("#board", DataTable)
        await _until(pilot, lambda: board.row_count == 2)
        title = str(board.border_title)
        assert "TrueSkill μ ± σ" in title and "Bradley–Terry" in title
        await pilot.press("l")
        assert isinstance(app.screen, LeaderboardScreen)
        heading = str(app.screen.query_one("#lb-title", Static).content)
        assert "TrueSkill μ ± σ" in heading and "Bradley–Terry" in heading
        assert "TrueSkill μ over the run" in str(app.screen.query_one("#lb-agent", Static).content)
        await pilot.press("escape", "q")
