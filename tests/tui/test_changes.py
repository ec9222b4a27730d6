"""The screens redraw when told the run changed, never on a timer; a burst of changes is one
redraw, and redraws are paced."""

from __future__ import annotations

import pytest
from textual.message import Message
from textual.message_pump import MessagePump
from textual.pilot import Pilot
from textual.widgets import DataTable, RichLog, Static

from arena.events import Event, GameEvent
from tests.tui.screens.bare import until
from tui.app import ArenaApp
from tui.changes import ChangeSignal, RunChanged
from tui.model import RunModel
from tui.screens.dashboard import DashboardScreen
from tui.screens.match import MatchScreen

SIZE = (140, 40)


def _intervals(*nodes: MessagePump) -> list[str]:
    """The repeating timers the arena's code set on ``nodes`` (Textual's own, such as the
    screen's compositor, are not ours; a one-shot timer has a repeat count)."""
    return [
        t.name
        for node in nodes
        for t in node._timers
        if t._repeat is None and getattr(t._callback, "__module__", "").startswith("tui")
    ]


def _title(app: ArenaApp) -> str:
    return str(app.screen.query_one("#run-title", Static).content)


def _stats(app: ArenaApp) -> str:
    return str(app.screen.query_one("#run-stats", Static).content)


def _event(seq: int) -> Event:
    return Event.stamp(
        GameEvent(type="decision", text=f"move {seq}"), run_id="r", match_id="m1", seq=seq
    )


async def _dashboard(pilot: Pilot[None], app: ArenaApp) -> DashboardScreen:
    await until(pilot, lambda: isinstance(app.screen, DashboardScreen) and app.screen.ready)
    assert isinstance(app.screen, DashboardScreen)
    return app.screen


def _count_redraws(screen: DashboardScreen, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    draw = screen.refresh_view

    def counted() -> None:
        calls.append(1)
        draw()

    monkeypatch.setattr(screen, "refresh_view", counted)
    return calls


def test_the_signal_posts_one_message_until_it_is_taken() -> None:
    posted: list[Message] = []
    signal = ChangeSignal(posted.append)
    for _ in range(100):
        signal()
    assert len(posted) == 1 and isinstance(posted[0], RunChanged)
    signal.taken()
    signal()
    signal()
    assert len(posted) == 2


async def test_a_change_redraws_the_screen_with_no_timer_running() -> None:
    model = RunModel()
    app = ArenaApp(model=model)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _dashboard(pilot, app)
        assert "(no run yet)" in _title(app)
        # the app and its screen keep no repeating timer: nothing redraws on a clock
        assert _intervals(app, screen) == []
        model.apply_status({"run_id": "run-42", "status": "running", "total": 3, "done": 1})
        app.run_changed()
        await until(pilot, lambda: "run-42" in _title(app))
        assert "matches 1/3 done" in _stats(app)
        assert _intervals(app, screen) == []


async def test_a_burst_of_changes_is_one_redraw(monkeypatch: pytest.MonkeyPatch) -> None:
    model = RunModel()
    app = ArenaApp(model=model)
    async with app.run_test(size=SIZE) as pilot:
        redraws = _count_redraws(await _dashboard(pilot, app), monkeypatch)
        for seq in range(500):
            model.add_event(_event(seq))
            app.run_changed()
        await until(pilot, lambda: bool(redraws))
        await pilot.pause()  # whatever else was queued runs now
        assert len(redraws) == 1
        assert str(app.screen.query_one("#matches", DataTable).get_row_at(0)[0]) == "m1"


async def test_changes_within_the_gap_wait_for_one_redraw(monkeypatch: pytest.MonkeyPatch) -> None:
    """A change right after a redraw is drawn once the gap has passed, with every change that
    came meanwhile: not once each. (A gap longer than the test here.)"""
    model = RunModel()
    app = ArenaApp(model=model, redraw_gap_s=600.0)
    async with app.run_test(size=SIZE) as pilot:
        redraws = _count_redraws(await _dashboard(pilot, app), monkeypatch)
        app.run_changed()
        await until(pilot, lambda: len(redraws) == 1)
        for seq in range(20):  # each one a message of its own: the app takes each in turn
            model.add_event(_event(seq))
            app.run_changed()
            await pilot.pause()
        assert len(redraws) == 1 and model.events_seen == 20


async def test_the_last_change_of_a_burst_is_drawn() -> None:
    model = RunModel()
    app = ArenaApp(model=model)
    async with app.run_test(size=SIZE) as pilot:
        await _dashboard(pilot, app)
        for status in ("first", "second", "third"):
            model.apply_status({"run_id": "r", "status": status})
            app.run_changed()
            await pilot.pause()
        await until(pilot, lambda: "third" in _title(app))


async def test_the_rates_fall_to_zero_after_the_last_event_and_stop() -> None:
    """Rates are counted over a window of arrivals: when events stop, the line falls to zero
    with no change to tell about (a one-shot timer redraws that line alone until it does)."""
    now = [1000.0]
    model = RunModel(clock=lambda: now[0])
    app = ArenaApp(model=model)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _dashboard(pilot, app)
        for seq in range(30):
            model.add_event(_event(seq))
        app.run_changed()
        await until(pilot, lambda: "events/s 30 " in _stats(app))
        now[0] += 60.0  # the window is empty now
        await until(pilot, lambda: "events/s 0.00" in _stats(app))
        await until(pilot, lambda: screen._rates_timer is None)  # and nothing keeps ticking
        assert _intervals(app, screen) == []


async def test_an_open_match_screen_shows_new_lines_when_told() -> None:
    model = RunModel()
    model.add_event(_event(0))
    app = ArenaApp(model=model, open_match_id="m1")
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, MatchScreen) and app.screen.ready)
        log = app.screen.query_one("#transcript", RichLog)
        assert "move 0" in "\n".join(line.text for line in log.lines)
        model.add_event(_event(1))
        app.run_changed()
        await until(pilot, lambda: "move 1" in "\n".join(line.text for line in log.lines))
        assert _intervals(app, app.screen) == []
