"""The screens of a human seat: its own view and decision, the hot-seat hand-over, the wait.

What a :class:`PlayScreen` shows comes from one :class:`~arena.agents.human.HumanRequest` only:
the observation the runner built for that seat (the same audience-filtered view an LLM agent is
prompted with, never the spectator's) and the pending decision — in words for a person: options
by their labels, a belief report as a likelihood per player, no answer format (``tui.play_text``).
Everything in it was written or relayed by the match (agents' speech among it), so it reaches
widgets as :class:`rich.text.Text` with controls shown as stand-ins
(:func:`arena.untrusted.printable`), never as markup.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Footer, Input, OptionList, RichLog, Static
from textual.widgets.option_list import Option as ListOption

from arena import untrusted
from arena.agents.human import Answer, HumanRequest
from arena.types import Action, Decision, InvalidAction
from tui.play_text import (
    BELIEF_LEVELS,
    belief_level_text,
    belief_seats,
    decision_hint,
    fact_lines,
    option_text,
    people_prompt,
    seat_view,
)
from tui.render import plain

#: the keys that pick options, in option order (options past the last have no key: arrows +
#: enter). Letters first: options are often seat numbers ("0: Bruno"), and a digit key that
#: picked another number's option would mislead.
OPTION_KEYS = "abcdefghijklmnopqrstuvwxyz123456789"


def _name(names: list[str], seat: int) -> str:
    return names[seat] if 0 <= seat < len(names) else f"seat {seat}"


def view_text(text: str) -> Text:
    """A multi-line view for a widget: line breaks kept, every control a visible stand-in."""
    return Text(untrusted.printable(text))


class PlayScreen(Screen[None]):
    """One human seat's view of its match and its pending decision."""

    BINDINGS = [
        Binding("ctrl+s", "submit", "submit"),
        Binding("ctrl+t", "focus_text", "message box", show=False),
        Binding("ctrl+o", "focus_options", "options", show=False),
    ]

    def __init__(self, request: HumanRequest) -> None:
        super().__init__()
        self.request = request
        self.selected: set[int] = set()
        # a belief report: seat -> index into BELIEF_LEVELS (absent: not reported)
        self.levels: dict[int, int] = {}
        self.accepting = False
        self.ready = False

    @property
    def seat(self) -> int:
        return self.request.seat

    @property
    def decision(self) -> Decision:
        return self.request.decision

    # -- layout ------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Static(id="play-title")
        with Horizontal(id="play-body"):
            yield RichLog(id="play-view", wrap=True, markup=False, auto_scroll=True)
            with Vertical(id="play-side"):
                yield Static(id="play-facts")
                with Vertical(id="play-decision"):
                    yield Static(id="play-prompt")
                    yield Static(id="play-error")
                    yield OptionList(id="play-beliefs")
                    yield OptionList(id="play-options")
                    yield Input(id="play-text", placeholder="message")
                    yield Static(id="play-hint")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#play-facts", Static).border_title = "what only you know"
        self.query_one("#play-decision", Vertical).border_title = "your decision"
        self.show(self.request)
        self.ready = True

    # -- what is shown -----------------------------------------------------------------
    def show(self, request: HumanRequest) -> None:
        """Show ``request`` (this seat's next decision) and start accepting an answer."""
        if request.key != self.request.key:
            raise ValueError("a play screen shows one seat; hand over with a new screen")
        self.request = request
        self.selected = set()
        self.levels = {}
        obs, decision = request.observation, request.decision
        title = Text()
        title.append_text(plain(f" {request.name} (seat {request.seat}) ", style="bold reverse"))
        title.append_text(plain(f"  {obs.game}  {request.match_id}  phase {obs.phase}"))
        if request.timeout_s is not None:
            title.append_text(plain(f"  answer within {request.timeout_s:g} s", style="yellow"))
        self.query_one("#play-title", Static).update(title)
        log = self.query_one("#play-view", RichLog)
        log.clear()
        log.write(view_text(seat_view(obs)))
        facts = fact_lines(list(obs.private), request.seat, obs.names)
        self.query_one("#play-facts", Static).update(
            Text("\n").join(plain(line) for line in facts) if facts else Text("(nothing)")
        )
        # a prompt that was all answer format (an id grammar) leaves the decision's kind
        prompt = people_prompt(decision.prompt) or decision.kind.replace("_", " ").capitalize()
        self.query_one("#play-prompt", Static).update(view_text(prompt))
        self._error(obs.error and f"refused: {obs.error}")
        options = self.query_one("#play-options", OptionList)
        options.clear_options()
        options.add_options(ListOption(self._option_label(i)) for i in range(len(decision.options)))
        options.display = bool(decision.options)
        options.disabled = False
        beliefs = self.query_one("#play-beliefs", OptionList)
        beliefs.clear_options()
        if decision.belief_only:
            beliefs.add_options(ListOption(self._belief_label(s)) for s in belief_seats(obs))
        beliefs.display = decision.belief_only
        beliefs.disabled = False
        box = self.query_one("#play-text", Input)
        box.value = ""
        # a belief is given by levels, never typed: no message box for a belief report
        box.display = decision.free_text and not decision.belief_only
        box.disabled = False
        box.max_length = decision.max_chars
        self.query_one("#play-hint", Static).update(plain(decision_hint(decision)))
        self.accepting = True
        if decision.belief_only:
            beliefs.highlighted = 0
            beliefs.focus()
        elif decision.options:
            options.highlighted = 0
            options.focus()
        else:
            box.focus()

    def idle(self, message: str) -> None:
        """Stop accepting answers (answered, or the time ran out); the view stays this seat's."""
        self.accepting = False
        self.query_one("#play-options", OptionList).disabled = True
        self.query_one("#play-beliefs", OptionList).disabled = True
        self.query_one("#play-text", Input).disabled = True
        self.query_one("#play-hint", Static).update(plain(message, style="italic"))

    def _option_label(self, index: int) -> Text:
        option = self.decision.options[index]
        key = OPTION_KEYS[index] if index < len(OPTION_KEYS) else " "
        mark = ""
        if self.decision.max_choices > 1:
            mark = "[x] " if index in self.selected else "[ ] "
        return plain(f"{key}  {mark}{option_text(option, self.request.observation)}")

    def _belief_label(self, seat: int) -> Text:
        names = self.request.observation.names
        level = belief_level_text(self.levels.get(seat))
        return plain(f"{_name(names, seat)} (seat {seat}): {level}")

    def _error(self, message: str | None) -> None:
        self.query_one("#play-error", Static).update(
            plain(message, style="bold red") if message else Text("")
        )

    # -- answering ---------------------------------------------------------------------
    def on_key(self, event: events.Key) -> None:
        if not self.accepting or isinstance(self.focused, Input):
            return
        if self.decision.belief_only and self._belief_key(event):
            event.stop()
            event.prevent_default()
            return
        char = event.character
        if char is None or char not in OPTION_KEYS:
            return
        index = OPTION_KEYS.index(char)
        if index < len(self.decision.options):
            event.stop()
            event.prevent_default()
            self.pick(index)

    def on_option_list_option_selected(self, message: OptionList.OptionSelected) -> None:
        message.stop()
        if not self.accepting:
            return
        if message.option_list.id == "play-beliefs":
            self._step_belief(message.option_index, +1)
        else:
            self.pick(message.option_index)

    # -- a belief report: a level per player ------------------------------------------
    def _belief_key(self, event: events.Key) -> bool:
        """Left/right steps the highlighted player's level, 1-5 sets it; True when used."""
        beliefs = self.query_one("#play-beliefs", OptionList)
        row = beliefs.highlighted
        if row is None:
            return False
        if event.key in ("left", "right"):
            self._step_belief(row, -1 if event.key == "left" else +1)
            return True
        char = event.character
        if char is not None and char.isdigit() and 1 <= int(char) <= len(BELIEF_LEVELS):
            self._set_belief(row, int(char) - 1)
            return True
        return False

    def _step_belief(self, row: int, step: int) -> None:
        seat = belief_seats(self.request.observation)[row]
        now = self.levels.get(seat)
        start = len(BELIEF_LEVELS) // 2 if now is None else now + step  # first step: the middle
        self._set_belief(row, max(0, min(len(BELIEF_LEVELS) - 1, start)))

    def _set_belief(self, row: int, level: int) -> None:
        seat = belief_seats(self.request.observation)[row]
        self.levels[seat] = level
        beliefs = self.query_one("#play-beliefs", OptionList)
        beliefs.replace_option_prompt_at_index(row, self._belief_label(seat))

    def _send_belief(self) -> None:
        if not self.levels:
            silent = self.decision.silent_option
            skip = f", or choose {silent} to skip the report" if silent else ""
            self._error(f"set how likely at least one player is{skip}")
            return
        report = {str(s): BELIEF_LEVELS[level][0] for s, level in sorted(self.levels.items())}
        self.answer(Action(belief=report))

    def pick(self, index: int) -> None:
        """Choose option ``index`` (multi-select: toggle it)."""
        decision = self.decision
        if decision.max_choices > 1:
            self.selected ^= {index}
            options = self.query_one("#play-options", OptionList)
            options.replace_option_prompt_at_index(index, self._option_label(index))
            return
        text = self.query_one("#play-text", Input).value.strip() if decision.free_text else ""
        self.answer(Action(choices=(decision.options[index].id,), text=text or None))

    def action_submit(self) -> None:
        if not self.accepting:
            return
        if self.decision.belief_only:
            self._send_belief()
            return
        if self.decision.max_choices > 1:
            ids = tuple(o.id for i, o in enumerate(self.decision.options) if i in self.selected)
            if not ids:
                self._error("nothing chosen yet")
                return
            self.answer(Action(choices=ids))
            return
        self._send_text()

    def on_input_submitted(self, message: Input.Submitted) -> None:
        message.stop()
        if self.accepting:
            self._send_text()

    def _send_text(self) -> None:
        text = self.query_one("#play-text", Input).value.strip()
        if not text:
            self._error("type a message first, or choose an option")
            return
        # an Action, not the string: a message that happens to read like an option id is
        # still a message
        self.answer(Action(text=text))

    def answer(self, answer: Answer) -> bool:
        """Check ``answer`` against the decision and give it; a refusal is shown, not sent."""
        try:
            self.decision.parse(answer, self.seat)
        except InvalidAction as err:
            self._error(f"not accepted: {err}")
            return False
        if not self.request.give(answer):
            self.idle("this decision is closed (time ran out)")
            return False
        self._error(None)
        self.idle("answer sent; waiting for the other players")
        return True

    def action_focus_text(self) -> None:
        box = self.query_one("#play-text", Input)
        if box.display:
            box.focus()

    def action_focus_options(self) -> None:
        options = self.query_one("#play-options", OptionList)
        if options.display:
            options.focus()


class PassScreen(Screen[None]):
    """Hot-seat hand-over: nothing of any seat's view, only whose turn it is."""

    BINDINGS = [Binding("enter", "ready", "I am ready")]

    def __init__(self, request: HumanRequest, on_ready: Callable[[], Any]) -> None:
        super().__init__()
        self.request = request
        self.on_ready = on_ready
        self.ready = False

    def compose(self) -> ComposeResult:
        r = self.request
        with Vertical(id="pass-box"):
            yield Static(plain(f"Pass the keyboard to {r.name} (seat {r.seat})"), id="pass-who")
            yield Static(plain(f"match {r.match_id}"), id="pass-match")
            yield Static(plain(f"{r.name}: press enter when you are at the keyboard."))
        yield Footer()

    def on_mount(self) -> None:
        self.ready = True

    def action_ready(self) -> None:
        self.on_ready()


class WaitScreen(Screen[None]):
    """Between decisions, with no seat's view on screen: the run's progress and results."""

    BINDINGS = [Binding("q", "leave", "leave (when the run is over)")]

    def __init__(self, job_done: Callable[[], bool]) -> None:
        """``job_done``: whether the run is over (``q`` leaves only then)."""
        super().__init__()
        self.job_done = job_done
        self.lines: list[str] = []
        self.status = "waiting for the first decision of a human seat"
        self.ready = False

    def compose(self) -> ComposeResult:
        with Vertical(id="wait-box"):
            yield Static(id="wait-status")
            yield Static(id="wait-results")
        yield Footer()

    def on_mount(self) -> None:
        self.ready = True
        self.redraw()

    def say(self, status: str | None = None, line: str | None = None) -> None:
        if status is not None:
            self.status = status
        if line is not None:
            self.lines = [*self.lines[-19:], line]
        if self.ready:
            self.redraw()

    def redraw(self) -> None:
        try:
            status = self.query_one("#wait-status", Static)
            results = self.query_one("#wait-results", Static)
        except NoMatches:  # not composed (yet, or any more: the app is closing)
            return
        status.update(plain(self.status, style="bold"))
        results.update(Text("\n").join(plain(line) for line in self.lines))

    def action_leave(self) -> None:
        if self.job_done():
            self.app.exit()
