"""Textual Pilot tests: every screen and key binding of the arena TUI."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from textual.widgets import DataTable, Input, RichLog, Sparkline, Static

from tui.app import ArenaApp
from tui.screens.dashboard import DashboardScreen
from tui.screens.help import HelpScreen
from tui.screens.leaderboard import LeaderboardScreen
from tui.screens.match import MatchScreen, ReplayScreen
from tui.sources import RunDirSource, replay_events

SIZE = (140, 40)


def transcript(screen) -> str:  # type: ignore[no-untyped-def]
    return "\n".join(line.text for line in screen.query_one("#transcript", RichLog).lines)


async def _until(pilot, predicate, timeout: float = 60.0) -> None:  # type: ignore[no-untyped-def]
    """Poll the app until ``predicate()`` holds; the deadline only matters when it never does."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout} s")
        await pilot.pause(0.05)


def _dashboard_drawn(app: ArenaApp) -> bool:
    screen = app.screen
    if not isinstance(screen, DashboardScreen) or not getattr(screen, "ready", False):
        return False
    stats = str(screen.query_one("#run-stats", Static).content)
    return "4/4 done" in stats and screen.query_one("#board", DataTable).row_count > 0


async def _loaded(pilot, app: ArenaApp) -> None:  # type: ignore[no-untyped-def]
    # the source folds the run into the model and tells the app, which redraws the dashboard
    await _until(pilot, lambda: app.model.done == 4 and bool(app.model.leaderboard))
    await _until(pilot, lambda: _dashboard_drawn(app))


async def test_dashboard_shows_progress_matches_and_leaderboard(run_dir: Path) -> None:
    app = ArenaApp(source=RunDirSource(run_dir))
    async with app.run_test(size=SIZE) as pilot:
        await _loaded(pilot, app)
        screen = app.screen
        assert isinstance(screen, DashboardScreen)
        assert screen.query_one("#matches", DataTable).row_count == 4
        board = screen.query_one("#board", DataTable)
        assert board.row_count == 2
        assert "±" in str(board.get_row_at(0)[1])
        assert "4/4 done" in str(screen.query_one("#run-stats", Static).content)
        assert "run1" in str(screen.query_one("#run-title", Static).content)


async def test_dashboard_shows_matches_running_per_node(run_dir: Path) -> None:
    # an executor that spreads matches over nodes (Ray) reports them in-process
    nodes = {"vm:aa11": 3, "vm:bb22": 1}
    app = ArenaApp(source=RunDirSource(run_dir, extra=lambda: {"nodes": dict(nodes)}))
    async with app.run_test(size=SIZE) as pilot:
        await _loaded(pilot, app)
        await _until(
            pilot, lambda: "per node" in str(app.screen.query_one("#run-stats", Static).content)
        )
        stats = str(app.screen.query_one("#run-stats", Static).content)
        assert "per node: vm:aa11 3 · vm:bb22 1" in stats
        nodes.clear()  # matches done: the line goes away with the next poll
        await _until(
            pilot, lambda: "per node" not in str(app.screen.query_one("#run-stats", Static).content)
        )


async def test_dashboard_keys_open_match_leaderboard_help_and_quit(run_dir: Path) -> None:
    app = ArenaApp(source=RunDirSource(run_dir))
    async with app.run_test(size=SIZE) as pilot:
        await _loaded(pilot, app)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.press("l")
        assert isinstance(app.screen, LeaderboardScreen)
        assert app.screen.query_one("#lb-spark", Sparkline).data
        board = app.screen.query_one("#lb", DataTable)
        # harness health beside the live rating: refused, fallback, forfeited, verdict
        assert [str(c) for c in board.get_row_at(0)[-4:]] == ["0.0%", "0.0%", "0.0%", "ok"]
        await pilot.press("down", "question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape", "escape")
        assert isinstance(app.screen, DashboardScreen)
        app.screen.query_one("#matches", DataTable).focus()
        await pilot.press("down", "enter")
        assert isinstance(app.screen, MatchScreen)
        second = sorted(app.model.matches)[1]
        assert app.screen.match.match_id == second
        await pilot.press("escape")
        await pilot.press("r")
        assert isinstance(app.screen, MatchScreen)
        await pilot.press("escape", "q")
    assert app.return_code == 0


async def test_match_screen_views_follow_pause_search_and_next(run_dir: Path) -> None:
    app = ArenaApp(source=RunDirSource(run_dir))
    async with app.run_test(size=SIZE) as pilot:
        await _loaded(pilot, app)
        first = sorted(app.model.matches)[0]
        app.open_match(first)
        await _until(
            pilot,
            lambda: (
                isinstance(app.screen, MatchScreen)
                and getattr(app.screen, "ready", False)
                and "── round_1" in transcript(app.screen)
            ),
        )
        screen = app.screen
        assert isinstance(screen, MatchScreen)
        text = transcript(screen)
        assert "── round_1" in text and "[god]" in text and "[private → P0]" in text
        seats = screen.query_one("#seats", DataTable)
        assert seats.row_count == 4 and str(seats.get_row_at(0)[3]) == "seat0"
        # view as seat 0: no god lines, no other seat's secret, roles of others hidden
        await pilot.press("v")
        assert screen.view == 0
        text = transcript(screen)
        assert "[god]" not in text and "[private → P1]" not in text and "[private → P0]" in text
        assert str(seats.get_row_at(1)[3]) == "?"
        await pilot.press("v", "v", "v")
        assert screen.view == 3
        await pilot.press("v")
        assert screen.view is None
        await pilot.press("v", "shift+v")
        assert screen.view is None
        # follow and pause
        await pilot.press("f")
        assert not screen.follow
        await pilot.press("f", "p")
        assert screen.follow and screen.paused
        assert "PAUSED" in str(screen.query_one("#match-title", Static).content)
        await pilot.press("p")
        assert not screen.paused
        # scrolling keys turn follow off
        screen.query_one("#transcript", RichLog).focus()
        await pilot.press("home")
        assert not screen.follow
        await pilot.press("end", "pageup", "pagedown")
        # search
        await pilot.press("slash")
        box = screen.query_one("#search", Input)
        assert box.display and box.has_focus
        await pilot.press(*"votes", "enter")
        assert screen.search == "votes"
        hits = [ln for ln in transcript(screen).splitlines() if ln.strip()[:1].isdigit()]
        assert len(hits) == 3 and all("Votes" in line for line in hits)  # one per round
        await pilot.press("escape")
        assert screen.search == "" and not box.display
        # next match and help
        await pilot.press("n")
        assert screen.match.match_id != first
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape", "escape")
        assert isinstance(app.screen, DashboardScreen)


async def test_replay_plays_steps_seeks_and_changes_speed(record: Path) -> None:
    events, truncated = replay_events(record)
    app = ArenaApp(replay=events, truncated=truncated)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        # it opens on the first event (no empty screen until a key is pressed)
        assert isinstance(screen, ReplayScreen) and screen.cursor == 1
        await pilot.press("right", "right", "full_stop")
        assert screen.cursor == 4 and screen.match.n_events == 4
        await pilot.press("left")
        assert screen.cursor == 3 and len(screen.match.events) == 3
        await pilot.press("right_square_bracket")
        assert screen.cursor == 28
        await pilot.press("left_square_bracket", "comma")
        assert screen.cursor == 2
        await pilot.press("G")
        assert screen.cursor == len(events) and screen.match.status == "finished"
        assert "Match over" in transcript(screen)
        await pilot.press("g")
        assert screen.cursor == 1 and transcript(screen).startswith("── setup")
        await pilot.press("plus", "plus", "plus")
        assert screen.rate == 64
        await pilot.press("minus")
        assert screen.rate == 32
        # play slowly (2 ev/s: the whole record takes ~20 s), so that a loaded machine cannot
        # reach the end (where the replay pauses by itself) between two key presses
        await pilot.press("minus", "minus", "minus", "minus")
        assert screen.rate == 2
        await pilot.press("space")
        assert screen.playing
        await _until(pilot, lambda: screen.cursor >= 3)
        await pilot.press("space")
        assert not screen.playing and 3 <= screen.cursor <= len(events)
        at = screen.cursor
        await pilot.pause(0.2)
        assert screen.cursor == at  # paused means paused
        await pilot.press("v")
        assert screen.view == 0
        await pilot.press("shift+v", "f")
        assert screen.view is None and not screen.follow
        await pilot.press("slash")
        assert screen.query_one("#search", Input).has_focus
        await pilot.press("escape", "question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.press("escape")
    assert app.return_code == 0


async def test_replay_of_a_truncated_record_shows_a_notice(record: Path, tmp_path: Path) -> None:
    cut = tmp_path / "cut.jsonl"
    data = record.read_bytes()
    cut.write_bytes(data[: len(data) - 10])
    events, truncated = replay_events(cut)
    app = ArenaApp(replay=events, truncated=truncated)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("G")
        title = str(app.screen.query_one("#match-title", Static).content)
        assert "truncated record" in title and str(len(events)) in title
        assert isinstance(app.screen, ReplayScreen)
        assert app.screen.match.status == "running"  # match_end was the cut line


@pytest.fixture
def hostile_record(tmp_path: Path) -> Path:
    """An Avalon match whose injecting agents (tests/games) say escapes, markup and controls."""
    from arena.sinks import JsonlSink
    from tests.games.adversarial import injecting_agents, play_injected

    path = tmp_path / "hostile.jsonl"
    play_injected("avalon", injecting_agents("avalon", inject=True), sinks=[JsonlSink(path)])
    return path


async def test_replay_of_hostile_speech_shows_escapes_and_markup_as_text(
    hostile_record: Path,
) -> None:
    """Issue 15: ``ESC[2J`` in a message once wiped the replay screen; Rich markup in a message
    must not style (or crash) the transcript, the seat table or the side panel either."""
    from arena.untrusted import is_clean

    events, truncated = replay_events(hostile_record)
    app = ArenaApp(replay=events, truncated=truncated)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("G")
        screen = app.screen
        assert isinstance(screen, ReplayScreen) and screen.cursor == len(events)
        for view in ("spectator", "seat 0"):
            shown = transcript(screen)
            assert "INJ" in shown and "\x1b" not in shown, view
            assert all(is_clean(line) for line in shown.split("\n")), view
            flat = shown.replace("\n", "")  # a long line wraps: look across the breaks
            assert "␛[2J" in flat and "markup[/bold" in flat, view
            await pilot.press("v")
        side = str(screen.query_one("#match-info", Static).content)
        title = str(screen.query_one("#match-title", Static).content)
        assert is_clean(side.replace("\n", " ")) and is_clean(title)
        seats = screen.query_one("#seats", DataTable)
        cells = [str(c) for r in range(seats.row_count) for c in seats.get_row_at(r)]
        assert cells and all(is_clean(c) for c in cells)
        await pilot.press("escape")
    assert app.return_code == 0
