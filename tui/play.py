"""The terminal UI of human seats: ``arena play`` and ``arena run --tui`` with a human entry.

The app serves a :class:`~arena.agents.human.HumanDesk` one request at a time, in the order
they were asked. It has no spectator screen and no run dashboard: a person at the table sees
only the seat whose turn it is. With more than one human seat in play (hot-seat), every
request starts on a hand-over screen that shows none of the seats' views, and the view is
hidden again as soon as the answer is given, so one player never sees another's screen.
When a match with a human seat ends, an end screen shows who won, the game's reason and every
seat's role; the next match's first decision waits until the players have read it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from textual.app import App
from textual.binding import Binding

from arena import untrusted
from arena.agents.human import HumanDesk, HumanRequest, using_desk
from arena.events import Event
from arena.results import MatchResult
from tui.screens.play import PassScreen, PlayScreen, WaitScreen
from tui.screens.play_end import EndScreen, end_reasons


class PlayApp(App[None]):
    CSS_PATH = [Path(__file__).parent / "styles" / n for n in ("arena.tcss", "play.tcss")]
    TITLE = "arena play"
    BINDINGS = [Binding("ctrl+c", "quit", "quit", show=False, priority=True)]

    def __init__(
        self,
        desk: HumanDesk,
        job: Callable[[], Awaitable[Any]] | None = None,
        *,
        humans: frozenset[str] = frozenset(),
    ) -> None:
        super().__init__()
        self.desk = desk
        self.job = job
        self.humans = humans  # agent entry names played by people (for the result lines)
        self.wait = WaitScreen(self.is_done)
        self.ends: list[EndScreen] = []  # finished matches not shown yet
        self.end: EndScreen | None = None  # the one on screen
        self._ending = asyncio.Lock()
        self.play: PlayScreen | None = None
        self.job_done = False
        self.job_error: str | None = None
        self.served = 0

    def is_done(self) -> bool:
        """Whether the run is over: the screens let the players leave then."""
        return self.job_done

    def on_mount(self) -> None:
        self.push_screen(self.wait)
        self.run_worker(self._serve(), name="desk", exclusive=False)
        if self.job is not None:
            self.run_worker(self._run_job(), name="job", exclusive=False)

    async def _run_job(self) -> None:
        assert self.job is not None
        try:
            with using_desk(self.desk):  # the run's human seats are served by this app
                await self.job()
            self.job_done = True
            await self._hide()
            self.wait.say("run complete — press q to leave")
            await self._show_ends()
        except SystemExit as err:
            self.job_error = f"the run refused to start (exit {err.code})"
            self.exit(return_code=int(err.code or 1))
        except Exception as err:
            self.job_done = True
            self.job_error = f"{type(err).__name__}: {err}"
            await self._hide()
            self.wait.say(
                untrusted.printable(f"run failed: {self.job_error} — press q", newlines="mark")
            )

    # -- serving the desk --------------------------------------------------------------
    async def _serve(self) -> None:
        while True:
            request = await self.desk.next_request()
            await self._show_ends()  # a finished match is read before the next one's turn
            if request.open:
                await self.take(request)

    async def take(self, request: HumanRequest) -> None:
        """Show ``request`` to its seat, wait for its answer (or withdrawal), then tidy up."""
        hot = self.desk.hot_seat
        if self.play is not None and (hot or self.play.request.key != request.key):
            await self._hide()
        if self.play is None and hot:
            ready: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

            def go() -> None:
                if not ready.done():
                    ready.set_result(None)

            await self.push_screen(PassScreen(request, go))
            either: list[asyncio.Future[Any]] = [ready, request.answer]
            await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
            await self.pop_screen()
            if not request.open:
                return
        if self.play is None:
            self.play = PlayScreen(request)
            await self.push_screen(self.play)
        else:
            self.play.show(request)
        self.served += 1
        await asyncio.wait([request.answer])
        if request.withdrawn and self.play is not None:
            self.play.idle("no answer in time: the tournament policy decides (re-ask or fallback)")
        if self.desk.hot_seat or hot:
            await self._hide()

    async def _hide(self) -> None:
        """Take the seat's view off the screen (back to the neutral wait screen)."""
        # the desk and the run both hide: whoever comes first takes the screen off, once
        play, self.play = self.play, None
        if play is not None and self.screen is play:
            await self.pop_screen()
        self.wait.say("waiting for the other players")

    # -- run progress --------------------------------------------------------------------
    async def _show_ends(self) -> None:
        """Show each finished match's end screen in turn, until its players press enter."""
        async with self._ending:
            while self.ends:
                end = self.ends.pop(0)
                await self._hide()
                self.end = end
                await self.push_screen(end)
                await end.closed
                self.end = None
                if self.screen is end:
                    await self.pop_screen()

    def note_result(self, result: MatchResult, events: list[Event] | None = None) -> None:
        """A finished match: its outcome and how each human seat of it did (a line on the wait
        screen), and its end screen (``events``: its record, for the game's closing words)."""
        seats = [s for s in result.seats if s.agent in self.humans]
        if not seats:
            return
        reasons = end_reasons(events or [], [s.seat for s in seats])
        self.ends.append(EndScreen(result, reasons, self.humans, job_done=self.is_done))
        mine = ", ".join(
            f"{s.name} (seat {s.seat}): {s.result}, reward {s.reward:g}" for s in seats
        )
        winners = ", ".join(result.winners) or "nobody"
        self.wait.say(line=f"{result.match_id}: {result.outcome} (won: {winners}) — {mine}")
