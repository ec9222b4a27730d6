"""The arena terminal UI (Textual): ``arena watch``, ``arena replay`` and ``arena run --tui``.

The data source (run directory or MQTT) folds into a :class:`~tui.model.RunModel` in a worker;
the visible screen redraws from the model four times a second.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from textual.app import App
from textual.binding import Binding
from textual.css.query import NoMatches

from arena import untrusted
from arena.events import Event
from tui.model import RunModel

REFRESH_S = 0.25


class ArenaApp(App[None]):
    # absolute: Textual resolves a relative path against the module of each subclass
    CSS_PATH = Path(__file__).parent / "styles" / "arena.tcss"
    TITLE = "arena"
    BINDINGS = [Binding("ctrl+c", "quit", "quit", show=False, priority=True)]

    def __init__(
        self,
        *,
        source: Any = None,
        job: Callable[[], Awaitable[None]] | None = None,
        replay: list[Event] | None = None,
        truncated: bool = False,
        open_match_id: str | None = None,
        model: RunModel | None = None,
    ) -> None:
        super().__init__()
        self.model = model or RunModel()
        self.source = source
        self.source_label = getattr(source, "description", "-") if source else "-"
        self.job = job
        self.replay = replay
        self.truncated = truncated
        self.open_match_id = open_match_id
        self.job_done = False
        self.job_error: str | None = None
        self._dirty = True

    def on_mount(self) -> None:
        if self.replay is not None:
            from tui.screens.match import ReplayScreen

            self.push_screen(ReplayScreen(self.replay, truncated=self.truncated))
            return
        from tui.screens.dashboard import DashboardScreen

        self.push_screen(DashboardScreen())
        if self.source is not None:
            self.run_worker(self.source.run(self.model, self.mark_dirty), name="source")
        if self.job is not None:
            self.run_worker(self._run_job(), name="job")
        self.set_interval(REFRESH_S, self.tick)
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

    def mark_dirty(self) -> None:
        self._dirty = True

    def tick(self) -> None:
        screen = self.screen
        refresh = getattr(screen, "refresh_view", None)
        if refresh is not None and getattr(screen, "ready", False):
            # the screen's widgets may be being removed (the app is exiting, the screen is
            # leaving): a tick in between has nothing to draw on, and must not end the app
            with contextlib.suppress(NoMatches):
                refresh()

    def open_match(self, match_id: str) -> None:
        from tui.screens.match import MatchScreen

        self.push_screen(MatchScreen(self.model.match(match_id), live=True))


def replay_app(path: Path) -> ArenaApp:
    from tui.sources import replay_events

    events, truncated = replay_events(path)
    return ArenaApp(replay=events, truncated=truncated)
