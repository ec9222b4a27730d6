"""The end of a match for the people who played it: who won, why, and who every seat was.

The "why" is the game's own words: the events of the match's end that the human seats were
delivered (Werewolf's "Game over: ... Roles: ...", Deal or No Deal's "No deal (turn cap)."),
never god-only records. The seat table (name, who played it, team, role, result) is the match
result the run stores; once the match is over nothing in it is secret any more.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Footer, Static

from arena.events import Event
from arena.results import MatchResult
from tui.render import plain

#: the runner's own end-of-match records (god-only bookkeeping, not the game's words)
_RUNNER_TYPES = frozenset({"match_end", "facts", "ground_truth"})


def end_reasons(events: Iterable[Event], seats: Iterable[int]) -> list[str]:
    """The lines the game wrote when the match ended, as every seat in ``seats`` saw them."""
    seats = list(seats)
    return [
        e.text
        for e in events
        if e.phase == "end"
        and e.text
        and e.type not in _RUNNER_TYPES
        and all(e.delivered_to(s) for s in seats)
    ]


def winner_line(result: MatchResult) -> str:
    if result.status != "finished":
        why = f" ({result.reason})" if result.reason else ""
        return f"Not finished: {result.status}{why}"
    if not result.winners:
        return f"No winner: {result.outcome.replace('_', ' ')}"
    teams = [
        f"{team} ({', '.join(s.name for s in result.seats if s.team == team)})"
        for team in result.winners
    ]
    return f"Winner: {', '.join(teams)} — {result.outcome.replace('_', ' ')}"


def seat_lines(result: MatchResult, humans: frozenset[str]) -> list[str]:
    """Every seat as a row of aligned columns: seat, name, who played it, team, role, result."""
    head = ("seat", "name", "played by", "team", "role", "result", "reward")
    rows = [head] + [
        (
            str(s.seat),
            s.name,
            f"{s.agent} (a person)" if s.agent in humans else s.agent,
            s.team,
            s.role,
            s.result,
            f"{s.reward:g}",
        )
        for s in result.seats
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    return [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]


class EndScreen(Screen[None]):
    """One finished match: the winner, the game's reason, every seat's role and result."""

    BINDINGS = [
        Binding("enter", "next", "continue"),
        Binding("q", "leave", "leave (when the run is over)"),
    ]

    def __init__(
        self,
        result: MatchResult,
        reasons: list[str],
        humans: frozenset[str],
        *,
        job_done: Callable[[], bool],
    ) -> None:
        """``job_done``: whether the run is over (``q`` leaves only then)."""
        super().__init__()
        self.result = result
        self.reasons = reasons
        self.humans = humans
        self.job_done = job_done
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.ready = False

    def compose(self) -> ComposeResult:
        r = self.result
        with Vertical(id="end-box"):
            yield Static(plain(f"Match over: {r.match_id} ({r.game})"), id="end-title")
            yield Static(plain(winner_line(r), style="bold"), id="end-winner")
            why = self.reasons or ([r.reason] if r.reason else [])
            yield Static(
                Text("\n").join(plain(line) for line in why) if why else Text(""),
                id="end-why",
            )
            yield Static(
                Text("\n").join(plain(line) for line in seat_lines(r, self.humans)),
                id="end-seats",
            )
            yield Static(plain("enter: continue", style="italic"), id="end-hint")
        yield Footer()

    def on_mount(self) -> None:
        self.ready = True

    def action_next(self) -> None:
        if not self.closed.done():
            self.closed.set_result(None)

    def action_leave(self) -> None:
        if self.job_done():
            self.app.exit()
