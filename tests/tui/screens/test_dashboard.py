"""Every view of the live leaderboard names its rating family and the final leaderboard's fit."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from textual.widgets import DataTable, Static

from arena.events import Event, GameEvent
from tests.tui.screens.bare import BareApp, until
from tui.app import ArenaApp
from tui.model import RunModel
from tui.screens.dashboard import DashboardScreen
from tui.screens.leaderboard import LeaderboardScreen
from tui.screens.match import MatchScreen
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


def _model(*match_ids: str) -> RunModel:
    model = RunModel()
    for seq, match_id in enumerate(match_ids):
        event = GameEvent(type="decision", text=f"move in {match_id}")
        model.add_event(Event.stamp(event, run_id="r", match_id=match_id, seq=seq))
    return model


async def test_the_run_screens_draw_from_what_they_are_handed_not_the_app() -> None:
    """Hosted by an app that has no model, no ``open_match`` and no source label, the dashboard,
    the leaderboard and a live match screen work from their constructors' arguments alone."""
    model = _model("m1", "m2")
    opened: list[str] = []
    dashboard = DashboardScreen(model, open_match=opened.append, source_label="run dir /x")
    app = BareApp(dashboard)
    async with app.run_test(size=(140, 40)) as pilot:
        await until(pilot, lambda: dashboard.ready)
        assert "source: run dir /x" in str(dashboard.query_one("#run-title", Static).content)
        assert dashboard.query_one("#matches", DataTable).row_count == 2
        dashboard.query_one("#matches", DataTable).focus()
        await pilot.press("down", "enter", "r")
        ordered = [m.match_id for m in model.ordered_matches()]
        assert opened == [ordered[1], ordered[0]]  # the row under the cursor, the most active
        await pilot.press("l")
        assert isinstance(app.screen, LeaderboardScreen) and app.screen.model is model
        await pilot.press("escape")
        match = MatchScreen(model.match("m1"), run=model)
        await app.push_screen(match)
        await until(pilot, lambda: match.ready)
        await pilot.press("n")  # the next match of the run it was handed
        assert match.match.match_id == "m2"
        await pilot.press("escape", "q")
    assert app.return_code == 0
