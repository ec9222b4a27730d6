"""The one transcript renderer: the line a seat reads for an event, with one "self" convention.

Every consumer that shows a seat its transcript — the engine's render (the env text and
``Observation.text``), the LLM prompt, the TUI's "view as seat" — calls :func:`line`. A
speech event (one with :class:`~arena.events.Speech`) is written from its structure:

* everyone: ``Alice: hello``
* a team's channel: ``[wolves] Alice: hello``
* a side message: ``Alice → Bruno, Chloe (private): hello``
* a label: ``Alice (last words): hello``

The seat's own lines name their speaker "You" and a side message addressed to it names it
"you" — found from the actor and the recipients, never from the text. Every other event (a
narrated action such as "Alice votes for Bruno.") reads as the game wrote it, the same for
every seat. ``seat=None`` is the spectator's line, which is also the event's stored ``text``.

Every line is quoted by :func:`arena.untrusted.quote`: an agent's words (and anything that
echoes them, such as a forfeit reason) stay on the one line their trusted prefix starts, with
no control or bidi character and no markup that could close the block the line is quoted in.
Lines written before that rule (older records) are quoted when they are read, so every
consumer of this renderer gets safe lines; ordinary text is unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from arena.events import GameEvent, Speech, Visibility
from arena.untrusted import quote

SELF = "You"


def _name(seat: int, names: Sequence[str]) -> str:
    return names[seat] if 0 <= seat < len(names) else f"P{seat}"


def speech_line(
    actor: int, speech: Speech, visibility: Visibility, seat: int | None, names: Sequence[str]
) -> str:
    """The line of ``actor`` saying ``speech`` on ``visibility``'s channel, as ``seat`` reads it."""
    who = SELF if actor == seat else _name(actor, names)
    head = f"[{visibility.team}] " if visibility.scope == "team" and visibility.team else ""
    marks = [speech.label] if speech.label else []
    if visibility.scope == "private":
        to = [("you" if s == seat else _name(s, names)) for s in visibility.seats if s != actor]
        if to:
            who += " → " + ", ".join(to)
        marks.append("private")
    tail = f" ({', '.join(marks)})" if marks else ""
    return quote(f"{head}{who}{tail}: {speech.body}")


def line(event: GameEvent, seat: int | None, names: Sequence[str]) -> str:
    """The transcript line of ``event`` as ``seat`` reads it ("" for events without text)."""
    speech = event.speech
    if speech is None or seat is None or event.actor is None:
        return quote(event.text)
    vis = event.visibility
    # Only the speaker and a side message's recipients read it differently from spectators
    # (whose line is the stored text): skip re-rendering for everyone else.
    if event.actor != seat and not (vis.scope == "private" and seat in vis.seats):
        return quote(event.text)
    return speech_line(event.actor, speech, vis, seat, names)


def lines(events: Iterable[GameEvent], seat: int | None, names: Sequence[str]) -> list[str]:
    """The non-empty lines of ``events`` as ``seat`` reads them, in order."""
    out = []
    for e in events:
        if e.text:
            out.append(line(e, seat, names))
    return out


def transcript(events: Iterable[GameEvent], seat: int | None, names: Sequence[str]) -> str:
    """:func:`lines` joined, one per line."""
    return "\n".join(lines(events, seat, names))


def compose_view(
    briefing: str,
    transcript: str,
    decision: str | None,
    error: str | None = None,
    status: str = "",
) -> str:
    """The layout of the text a seat reads (see :meth:`arena.engine.RulesEngine.render`)."""
    parts = [briefing, "", "Transcript:"]
    if transcript:
        parts.append(transcript)
    if status:
        parts += ["", status]
    if decision is not None:
        parts += ["", "Your decision:", decision]
    if error:  # the refusal may echo the seat's own answer: quoted like any line
        parts += ["", f"Your previous answer was refused: {quote(error)}"]
    return "\n".join(parts)
