"""Rich renderings of events and seats (speaker colours, visibility marks, phase headers).

Match text is untrusted (agents wrote it; a live source may be spoofed): it reaches a widget
only as a :class:`rich.text.Text` built by :func:`plain` or from the quoted transcript line,
never as a markup string, so ``[bold red]`` is shown as written and an ANSI/OSC escape as
``␛[2J`` (:func:`arena.untrusted.printable`) instead of driving the terminal."""

from __future__ import annotations

import json

from rich.text import Text

from arena import narration, transcript, untrusted
from arena.events import Event
from tui.match_model import MatchModel

PALETTE = (
    "bright_cyan",
    "bright_green",
    "bright_magenta",
    "bright_yellow",
    "bright_blue",
    "orange1",
    "spring_green1",
    "hot_pink",
    "turquoise2",
    "gold1",
    "medium_purple1",
    "light_salmon1",
)


def plain(value: object, style: str = "") -> Text:
    """Match text for a widget: no markup parsed, controls and line breaks visible."""
    return Text(untrusted.printable(str(value), newlines="mark"), style=style)


def speaker_style(actor: int | None) -> str:
    return "bold white" if actor is None else f"bold {PALETTE[actor % len(PALETTE)]}"


def mark(event: Event, match: MatchModel) -> Text:
    vis = event.visibility
    if vis.scope == "public":
        return Text("")
    if vis.scope == "god":
        # a game's own god lines already say so ("[god] Quinn died")
        return Text("") if event.text.startswith("[god]") else Text("[god] ", style="dim italic")
    who = ",".join(match.name(s) for s in vis.seats)
    if vis.scope == "team":
        return plain(f"[team {vis.team}: {who}] ", style="italic yellow")
    return plain(f"[private → {who}] ", style="italic red")


def event_line(event: Event, match: MatchModel, search: str = "", seat: int | None = None) -> Text:
    """One transcript line as ``seat`` reads it (``None``: the spectator).

    The words come from the arena's renderers: a line with text from
    :func:`arena.transcript.line` (so a seat's view shows exactly the lines its agent was
    shown, its own speech as "You"), one without (a decision, a belief report, an LLM call)
    from :func:`arena.narration.account`, in words — never the payload's JSON."""
    line = Text()
    line.append(f"{event.seq:>5} ", style="dim")
    line.append_text(mark(event, match))
    cast = match.cast
    if event.actor is not None and not event.text:
        line.append_text(plain(match.name(event.actor) + " ", style=speaker_style(event.actor)))
    if event.text:
        body = transcript.line(event, seat, match.names)
        if event.actor is not None and event.speech is not None:
            # the speaker part (up to the colon) in the speaker's colour
            head, sep, rest = body.partition(": ")
            line.append(head + sep, style=speaker_style(event.actor))
            body = rest
    else:
        body = narration.account(event, cast)
    if event.type in ("error", "invalid_action", "fallback"):
        line.append_text(plain(body, style="red"))
    elif event.visibility.scope == "god":
        line.append_text(plain(body, style="dim"))
    else:
        line.append_text(plain(body))
    more = narration.extras(event, cast) if event.text else ""
    if more:
        line.append_text(plain(f"  ({more})", style="cyan"))
    if search:
        line.highlight_words([search], style="reverse", case_sensitive=False)
    return line


def phase_header(phase: str) -> Text:
    return plain(f"── {phase or '?'} " + "─" * 40, style="bold reverse")


def matches_text(event: Event, match: MatchModel, needle: str) -> bool:
    if not needle:
        return True
    needle = needle.lower()
    said = event.text or narration.account(event, match.cast)
    hay = f"{said} {event.type} {match.name(event.actor) if event.actor is not None else ''}"
    return needle in hay.lower() or needle in json.dumps(event.payload, default=str).lower()
