"""The match screen (live) and the replay screen (a recorded match with play/step/seek)."""

from __future__ import annotations

import time
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import DataTable, Footer, Input, RichLog, Static

from arena.events import Event
from arena.narration import cut
from tui.changes import LiveScreen
from tui.match_model import MatchModel
from tui.model import RunModel
from tui.render import event_line, matches_text, phase_header, plain, speaker_style
from tui.widgets import Transcript

TICK_S = 0.05  # replay clock


class MatchScreen(LiveScreen):
    """A match's transcript and seat panel; spectator view or the view of one seat."""

    BINDINGS = [
        Binding("escape", "back", "back"),
        Binding("f", "toggle_follow", "follow"),
        Binding("p", "toggle_pause", "pause"),
        Binding("v", "next_view", "view as seat"),
        # a terminal sends an uppercase V as "V"; "shift+v" only under a keyboard protocol
        Binding("V,shift+v", "spectator", "spectator view"),
        Binding("slash", "search", "search"),
        Binding("n", "next_match", "next match"),
        Binding("question_mark", "help", "help"),
        Binding("home", "scroll_home", "top", show=False),
        Binding("end", "scroll_end", "bottom", show=False),
        Binding("pageup", "page_up", "page up", show=False),
        Binding("pagedown", "page_down", "page down", show=False),
    ]

    help_title = "Match"

    def __init__(self, match: MatchModel, *, run: RunModel | None = None) -> None:
        """``run``: the live run the match is part of (``n`` steps through its matches); None
        for a match on its own (a replay)."""
        super().__init__()
        self.match = match
        self.run = run
        self.view: int | None = None  # None: spectator (god view)
        self.follow = True
        self.paused = False
        self.search = ""
        self.notice = ""
        self._rendered = 0
        self._last_phase: str | None = None
        self._shown: list[Event] = []

    # -- layout ------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Static(id="match-title")
        with Horizontal(id="match-body"):
            yield Transcript(id="transcript", wrap=True, markup=False, auto_scroll=True)
            with Vertical(id="side"):
                yield DataTable(id="seats", cursor_type="row", zebra_stripes=True)
                yield Static(id="match-info")
        yield Input(placeholder="search (enter: apply, escape: clear)", id="search")
        yield Footer()

    def on_mount(self) -> None:
        # Textual calls every class's on_mount along the MRO: subclasses extend set_up instead
        # (an on_mount of theirs calling this one would add the seat columns twice)
        self.set_up()
        self.ready = True

    def set_up(self) -> None:
        table = self.query_one("#seats", DataTable)
        table.add_columns("seat", "name", "agent", "role", "alive", "vote", "belief")
        self.query_one("#search", Input).display = False
        self.rerender()

    # -- what is shown -----------------------------------------------------------------
    def events(self) -> list[Event]:
        return [
            e for e in self.match.visible(self.view) if matches_text(e, self.match, self.search)
        ]

    def rerender(self) -> None:
        log = self.query_one("#transcript", RichLog)
        log.clear()
        self._rendered = 0
        self._last_phase = None
        self._shown = []
        self.refresh_view(force=True)

    def refresh_view(self, force: bool = False) -> None:
        if self.paused and not force:
            return
        log = self.query_one("#transcript", RichLog)
        log.auto_scroll = self.follow
        events = self.events()
        for event in events[self._rendered :]:
            # a header where the lines people read move to a new phase (the runner's records
            # carry the engine's phase at their time, and would flip the header back and forth)
            if event.text and event.phase != self._last_phase and not self.search:
                log.write(phase_header(event.phase))
                self._last_phase = event.phase
            log.write(event_line(event, self.match, self.search, self.view))
        self._rendered = len(events)
        self._shown = events
        self._refresh_side()

    def _refresh_side(self) -> None:
        m = self.match
        view = "spectator (god view)" if self.view is None else f"as {m.name(self.view)}"
        flags = []
        if not self.follow:
            flags.append("follow off")
        if self.paused:
            flags.append("PAUSED")
        if self.search:
            flags.append(f"search '{self.search}': {len(self._shown)} hits")
        title = Text()
        title.append_text(plain(f" {m.match_id} ", style="bold reverse"))
        title.append_text(plain(f"  {m.game}  phase {m.phase or '-'}  {m.status}  "))
        title.append_text(plain(f"view {view}", style="bold"))
        if flags:
            title.append_text(plain("  [" + " · ".join(flags) + "]", style="yellow"))
        if self.notice:
            title.append_text(plain(f"  {self.notice}", style="bold red"))
        self.query_one("#match-title", Static).update(title)
        table = self.query_one("#seats", DataTable)
        table.clear()
        # every cell a Text: a DataTable parses a str cell as markup
        for sv in m.seats(self.view):
            table.add_row(
                str(sv.seat),
                plain(sv.name, style=speaker_style(sv.seat)),
                # the seats a model plays stand out: they are what a demo is about
                plain(sv.agent, style="bold magenta" if m.is_model(sv.seat, self.view) else ""),
                plain(sv.role or ("?" if self.view is not None else "")),
                Text("alive", "green") if sv.alive else Text("dead", "red"),
                plain(sv.last_vote),
                plain(sv.belief),
            )
        info = Text("\n").join(plain(line) for line in self.info_lines())
        self.query_one("#match-info", Static).update(info)

    def info_lines(self) -> list[str]:
        m = self.match
        info = [f"events {m.n_events}  errors {m.errors}"]
        if m.outcome:
            info.append(f"outcome: {m.outcome}")
        if self.view is None:
            for seat, facts in sorted(m.facts.items()):
                info.append(cut(f"{m.name(seat)}: {', '.join(facts)}", 60))
        given = m.insight_lines(self.view)
        if given:
            info.append("insights given:")
            info += given
        metrics = list(m.metrics)
        if metrics:
            info.append("metrics: " + ", ".join(f"{e.type}" for e in metrics[-4:]))
        return info

    # -- actions -----------------------------------------------------------------------
    def action_back(self) -> None:
        search = self.query_one("#search", Input)
        if search.display or self.search:
            search.display = False
            self.search = ""
            self.rerender()
            return
        if len(self.app.screen_stack) > 2:
            self.app.pop_screen()
        else:
            self.app.exit()

    def action_toggle_follow(self) -> None:
        self.follow = not self.follow
        log = self.query_one("#transcript", RichLog)
        log.auto_scroll = self.follow
        if self.follow:
            log.scroll_end(animate=False)
        self._refresh_side()

    def action_toggle_pause(self) -> None:
        self.paused = not self.paused
        if not self.paused:
            self.refresh_view()
        else:
            self._refresh_side()

    def action_next_view(self) -> None:
        n = len(self.match.seats(None))
        if n == 0:
            return
        self.view = 0 if self.view is None else (None if self.view + 1 >= n else self.view + 1)
        self.rerender()

    def action_spectator(self) -> None:
        self.view = None
        self.rerender()

    def action_search(self) -> None:
        box = self.query_one("#search", Input)
        box.display = True
        box.value = self.search
        box.focus()

    def on_input_submitted(self, message: Input.Submitted) -> None:
        self.search = message.value.strip()
        message.input.display = bool(self.search)
        self.query_one("#transcript", RichLog).focus()
        self.rerender()

    def action_next_match(self) -> None:
        model = self.run
        if model is None:
            return
        ids = [m.match_id for m in model.ordered_matches()]
        if len(ids) < 2 or self.match.match_id not in ids:
            return
        nxt = ids[(ids.index(self.match.match_id) + 1) % len(ids)]
        self.match = model.matches[nxt]
        self.view = None
        self.rerender()

    def action_help(self) -> None:
        from tui.screens.help import HelpScreen

        self.app.push_screen(HelpScreen(self.help_title, list(self.BINDINGS)))

    def on_transcript_scrolled_back(self, _message: Transcript.ScrolledBack) -> None:
        self.unfollow()

    def unfollow(self) -> None:
        if self.follow:
            self.follow = False
            self.query_one("#transcript", RichLog).auto_scroll = False
            self._refresh_side()

    def action_scroll_home(self) -> None:
        self.unfollow()
        self.query_one("#transcript", RichLog).scroll_home(animate=False)

    def action_scroll_end(self) -> None:
        self.query_one("#transcript", RichLog).scroll_end(animate=False)

    def action_page_up(self) -> None:
        self.unfollow()
        self.query_one("#transcript", RichLog).scroll_page_up(animate=False)

    def action_page_down(self) -> None:
        self.query_one("#transcript", RichLog).scroll_page_down(animate=False)


class ReplayScreen(MatchScreen):
    """A recorded match: play/pause, step, seek; the same rendering as the live screen.

    It opens on the record's first event (a replay at position 0 would be an empty screen)."""

    help_title = "Replay"
    inherit_bindings = False  # the live screen's pause and next match mean nothing here
    BINDINGS = [
        *Screen.BINDINGS,  # focus keys (tab) and copy, which inherit_bindings also drops
        Binding("escape", "back", "back"),
        Binding("space", "play_pause", "play/pause"),
        Binding("right,full_stop", "step(1)", "step"),
        Binding("left,comma", "step(-1)", "step back"),
        Binding("right_square_bracket", "step(25)", "seek +25"),
        Binding("left_square_bracket", "step(-25)", "seek -25"),
        Binding("g", "seek_start", "start"),
        Binding("G", "seek_end", "end"),
        Binding("plus", "speed(2)", "faster"),
        Binding("minus", "speed(0.5)", "slower"),
        Binding("v", "next_view", "view as seat"),
        # a terminal sends an uppercase V as "V"; "shift+v" only under a keyboard protocol
        Binding("V,shift+v", "spectator", "spectator view"),
        Binding("f", "toggle_follow", "follow"),
        Binding("slash", "search", "search"),
        Binding("question_mark", "help", "help"),
        Binding("home", "scroll_home", "top", show=False),
        Binding("end", "scroll_end", "bottom", show=False),
        Binding("pageup", "page_up", "page up", show=False),
        Binding("pagedown", "page_down", "page down", show=False),
    ]

    def __init__(
        self, events: list[Event], *, truncated: bool = False, rate: float = 8.0, **kw: Any
    ) -> None:
        match = MatchModel(events[0].match_id if events else "(empty)")
        super().__init__(match)
        self.all_events = events
        self.cursor = 0
        self.playing = False
        self.rate = rate  # events per second while playing
        if truncated:
            self.notice = f"truncated record: replaying the {len(events)} complete events"
        self._timer: Timer | None = None
        self._credit = 0.0
        self._last_tick = 0.0

    def set_up(self) -> None:
        super().set_up()
        self.seek(1)
        self._last_tick = time.monotonic()
        # the replay's clock: it runs only while the replay plays
        self._timer = self.set_interval(TICK_S, self._tick, pause=True, name="replay clock")

    def seek(self, position: int) -> None:
        # never before the first event: position 0 would show nothing at all
        position = max(min(1, len(self.all_events)), min(len(self.all_events), position))
        if position < self.cursor:
            self.match = MatchModel(self.match.match_id)
            for event in self.all_events[:position]:
                self.match.add(event)
            self.cursor = position
            self.rerender()
            return
        for event in self.all_events[self.cursor : position]:
            self.match.add(event)
        self.cursor = position
        self.refresh_view(force=True)

    def info_lines(self) -> list[str]:
        state = "playing" if self.playing else "paused"
        head = f"replay {self.cursor}/{len(self.all_events)}  {state}  {self.rate:g} ev/s"
        return [head, *super().info_lines()]

    def _tick(self) -> None:
        now = time.monotonic()
        elapsed = min(now - self._last_tick, 0.25)  # no catch-up bursts after a stall
        self._last_tick = now
        if not self.playing:
            return
        if self.cursor >= len(self.all_events):
            self.action_play_pause(force=False)
            return
        self._credit += elapsed * self.rate
        steps = int(self._credit)
        if steps:
            self._credit -= steps
            self.seek(self.cursor + steps)

    def action_play_pause(self, force: bool | None = None) -> None:
        self.playing = (not self.playing) if force is None else force
        self._credit = 0.0
        self._last_tick = time.monotonic()
        if self._timer is not None and self.playing:
            self._timer.resume()
        elif self._timer is not None:
            self._timer.pause()
        self._refresh_side()

    def action_step(self, n: int) -> None:
        self.seek(self.cursor + n)

    def action_seek_start(self) -> None:
        self.seek(0)

    def action_seek_end(self) -> None:
        self.seek(len(self.all_events))

    def action_speed(self, factor: float) -> None:
        self.rate = max(0.5, min(512.0, self.rate * factor))
        self._refresh_side()
