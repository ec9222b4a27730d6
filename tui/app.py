"""The arena terminal UI (Textual): ``arena watch``, ``arena replay`` and ``arena run --tui``.

The data source (run directory or MQTT) folds into a :class:`~tui.model.RunModel` in a worker
and says when it changed something (:mod:`tui.changes`); the screen on top then redraws from
the model, at most every ``REDRAW_GAP_S``. Nothing redraws while the run stands still.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import App, ScreenStackError
from textual.binding import Binding
from textual.timer import Timer

from arena import untrusted
from arena.events import Event
from tui.changes import REDRAW_GAP_S, ChangeSignal, LiveScreen, RunChanged
from tui.model import RunModel
from tui.screens.dashboard import DashboardScreen
from tui.screens.match import MatchScreen, ReplayScreen

if TYPE_CHECKING:  # the sources' modules load when a command builds one
    from tui.sources import RunSource


class ArenaApp(App[None]):
    # absolute: Textual resolves a relative path against the module of each subclass
    CSS_PATH = Path(__file__).parent / "styles" / "arena.tcss"
    TITLE = "arena"
    BINDINGS = [Binding("ctrl+c", "quit", "quit", show=False, priority=True)]

    def __init__(
        self,
        *,
        source: RunSource | None = None,
        job: Callable[[], Awaitable[None]] | None = None,
        replay: list[Event] | None = None,
        truncated: bool = False,
        open_match_id: str | None = None,
        model: RunModel | None = None,
        redraw_gap_s: float = REDRAW_GAP_S,
    ) -> None:
        super().__init__()
        self.model = model or RunModel()
        self.source = source
        self.source_label = source.description if source is not None else "-"
        self.job = job
        self.replay = replay
        self.truncated = truncated
        self.open_match_id = open_match_id
        self.job_done = False
        self.job_error: str | None = None
        # sources call it when they changed the model (from any thread)
        self.run_changed = ChangeSignal(self.post_message)
        self.redraw_gap_s = redraw_gap_s  # redraws are at least this far apart
        self._drawn_at = float("-inf")
        self._deferred: Timer | None = None

    def on_mount(self) -> None:
        # Textual calls every class's on_mount along the MRO: subclasses override set_up instead
        self.set_up()

    def set_up(self) -> None:
        """The first screen, and the workers that feed it."""
        if self.replay is not None:
            self.push_screen(ReplayScreen(self.replay, truncated=self.truncated))
            return
        self.push_screen(self.dashboard())
        if self.source is not None:
            self.run_worker(self.source.run(self.model, self.run_changed), name="source")
        if self.job is not None:
            self.run_worker(self._run_job(), name="job")
        if self.open_match_id:
            self.open_match(self.open_match_id)

    async def _run_job(self) -> None:
        assert self.job is not None
        try:
            await self.job()
            self.job_done = True
            self.notify("run complete — press q to leave", timeout=10)
        except SystemExit as err:
            self.job_error = f"live session refused to start (exit {err.code})"
            self.exit(return_code=int(err.code or 1))
        except Exception as err:
            self.job_error = f"{type(err).__name__}: {err}"
            self.notify(
                untrusted.printable(f"run failed: {self.job_error}", newlines="mark"),
                severity="error",
                timeout=30,
                markup=False,
            )

    def on_run_changed(self, _message: RunChanged) -> None:
        self.run_changed.taken()  # a change from now on posts a new message
        if self._deferred is not None:
            return  # a redraw is already due: it draws the model as it is then
        wait = self._drawn_at + self.redraw_gap_s - time.monotonic()
        if wait > 0:
            self._deferred = self.set_timer(wait, self._redraw, name="redraw (one-shot)")
        else:
            self._redraw()

    def _redraw(self) -> None:
        self._deferred = None
        self._drawn_at = time.monotonic()
        try:
            screen = self.screen
        except ScreenStackError:  # exiting: no screen left to draw
            return
        if isinstance(screen, LiveScreen):
            screen.show_change()

    def dashboard(self) -> DashboardScreen:
        """The run's dashboard: it is handed the model and what it may ask of the app."""
        return DashboardScreen(
            self.model, open_match=self.open_match, source_label=self.source_label
        )

    def open_match(self, match_id: str) -> None:
        self.push_screen(MatchScreen(self.model.match(match_id), run=self.model))


def replay_app(path: Path) -> ArenaApp:
    from tui.sources import replay_events

    events, truncated = replay_events(path)
    return ArenaApp(replay=events, truncated=truncated)
