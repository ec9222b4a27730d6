"""``arena selfplay --tui``: the arena app with the self-play screen on top.

The self-play screen reads the self-play directory (:mod:`tui.selfplay_model`) in a thread
twice a second; the counters of what the run has spent (games, LLM calls, wall time) come from
the run's own ledger when the run plays in this process (``spent``), so they move with every
game and every model call, not only when a generation's summary is written; ``d`` opens the dashboard of the games (as they are played, folded from the
run's events in process), ``s`` comes back.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from textual import events
from textual.binding import Binding

from arena.events import Event
from tui.app import REFRESH_S, ArenaApp
from tui.selfplay_model import SelfPlayView, load, with_spent

POLL_S = 0.5


class ModelFeed:
    """An event sink folding a game's events into the app's run model (the dashboard's matches)
    in the process that plays them: no broker round trip for the local screen."""

    def __init__(self, app: SelfPlayApp, match_id: str) -> None:
        self.app = app
        self.match_id = match_id

    def write(self, event: Event) -> None:
        self.app.model.add_event(event.model_copy(update={"match_id": self.match_id}))
        self.app.mark_dirty()

    def close(self) -> None:
        pass


class SelfPlayApp(ArenaApp):
    BINDINGS = [*ArenaApp.BINDINGS, Binding("s", "selfplay", "self-play", show=False)]

    def __init__(
        self,
        root: Path,
        job: Callable[[], Awaitable[None]] | None = None,
        spent: Callable[[], dict[str, Any]] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(job=job, **kwargs)
        self.root = Path(root)
        self.spent = spent  # the live ledger of the run played here (None: the files only)
        self.source_label = f"self-play dir {self.root}"
        self.selfplay_view = SelfPlayView()

    def on_mount(self, event: events.Mount) -> None:  # type: ignore[override]
        from tui.screens.selfplay import SelfPlayScreen

        event.prevent_default()  # Textual would run ArenaApp's handler too: not its dashboard

        self.push_screen(SelfPlayScreen())
        if self.job is not None:
            self.run_worker(self._run_job(), name="job")
        self.run_worker(self._poll(), name="selfplay-files")
        self.set_interval(REFRESH_S, self.tick)

    async def _poll(self) -> None:
        while True:
            view = await asyncio.to_thread(load, self.root)
            if self.spent is not None:
                view = with_spent(view, self.spent())
            self.selfplay_view = view
            self.mark_dirty()
            await asyncio.sleep(POLL_S)

    def feed(self, match_id: str) -> ModelFeed:
        return ModelFeed(self, match_id)

    def action_selfplay(self) -> None:
        from tui.screens.dashboard import DashboardScreen

        if isinstance(self.screen, DashboardScreen):
            self.pop_screen()
