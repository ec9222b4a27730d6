"""Egocentric views (spec §4): the briefing of one character, and chat turns.

Every function here reads only what the seat may see: its own card, goal and secrets, the
names and ``known_by``-granted facts of the others, and the events delivered to it. The
transcript itself is the arena's one renderer (:mod:`arena.transcript`: own lines as "You");
``chat_messages`` turns an observation's events into chat turns (own lines = assistant).
"""

from __future__ import annotations

from typing import Any

from arena.events import GameEvent
from arena.transcript import SELF, line
from games.persona_dialogue.cast import Cast

SPEECH = ("utterance", "act", "agree", "leave")


def briefing(cast: Cast, seat: int, turns_taken: int) -> str:
    """The briefing of ``seat`` after ``turns_taken`` turns; how to act ends it."""
    me = cast.characters[seat]
    s = cast.setting
    lines = [
        f"Scenario: {cast.title}",
        f"Place: {s.place}. Time: {s.time}.",
        f"Situation: {s.situation}",
    ]
    lines += [f"Known to everyone: {x}" for x in cast.public_info]
    lines.append("")
    if me.persona is None:
        lines.append(f"You are {me.name}, the interviewer. Ask one question per turn.")
    else:
        p = me.persona
        lines.append(f"You are {me.name}. Stay in character.")
        lines.append(f"About you: {p.render_description()}")
        lines += [f"- {f.slot}: {f.value}" for f in me.facts() if f.slot != "name"]
        if p.traits:
            lines.append("Traits: " + ", ".join(p.traits))
        if p.values:
            lines.append("Values: " + ", ".join(p.values))
        st = p.speaking_style
        style = f"Speaking style: {st.register_} register, {st.verbosity}"
        if st.quirks:
            style += "; quirks: " + "; ".join(st.quirks)
        if st.catchphrases:
            style += "; catchphrases: " + " / ".join(st.catchphrases)
        lines.append(style + f"; language: {st.language}")
    if me.goal is not None:
        lines.append(f"Your private goal: {me.goal.text}")
    for sec in me.secrets:
        allowed = [cast.names[a] for a in cast.audience[sec.id] if a != seat]
        who = ", ".join(allowed) if allowed else "nobody else"
        lines.append(f"Your secret ({sec.id}; may be known by {who}): {sec.text}")
    lines.append("")
    lines.append("The others:")
    for other in cast.characters:
        if other.seat == seat:
            continue
        rel, desc = cast.relation(seat, other.seat)
        lines.append(f"- {other.name}: {rel}" + (f" ({desc})" if desc else ""))
        for f in cast.granted_facts(seat, other.seat):
            lines.append(f"    {f.slot}: {f.value}")
    if cast.propositions:
        lines.append(
            "Propositions you can agree to: "
            + "; ".join(f"{p.id} = {p.text}" for p in cast.propositions)
        )
    lines.append("")
    lines.append(
        f"Turn mode: {cast.turn_mode}; turns left: {max(0, cast.max_turns - turns_taken)}."
    )
    lines.append(action_help(cast, seat))
    return "\n".join(lines)


def action_help(cast: Cast, seat: int) -> str:
    role = cast.characters[seat].role
    if role != "character":
        return "Each turn, write one message."
    text = "Each turn: write a message to everyone, or choose pass / leave / act (+text)"
    if cast.propositions:
        text += " / agree:<proposition>"
    if cast.allow_private:
        text += '; private message: "@Name: text" or {"choice": ["to:<id>"], "text": ...}'
    return text + "."


def chat_messages(
    events: list[Any], seat: int, names: list[str], system: str = ""
) -> list[dict[str, str]]:
    """Chat turns for ``seat``: own lines are assistant turns, others' lines user turns
    prefixed with the speaker's name (consecutive lines of others merged). Lines come from
    the one renderer (:func:`arena.transcript.line`): own lines read "You: ..."."""
    out: list[dict[str, str]] = [{"role": "system", "content": system}] if system else []
    for e in events:
        ev = e if isinstance(e, GameEvent) else GameEvent.model_validate(e)
        if ev.type not in SPEECH or not ev.text:
            continue
        text = line(ev, seat, names)
        if ev.actor == seat:
            out.append({"role": "assistant", "content": text.removeprefix(f"{SELF}: ")})
        elif out and out[-1]["role"] == "user":
            out[-1]["content"] += "\n" + text
        else:
            out.append({"role": "user", "content": text})
    return out
