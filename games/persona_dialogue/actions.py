"""Turning a validated Action into dialogue effects (spec §2), refusing illegal combinations.

Answer forms for a ``turn`` decision:

* free text — speak to everyone present;
* ``@Name[, @Name2]: text`` or ``{"choice": ["to:Name", ...], "text": ...}`` — a private message
  to present characters (when the scenario allows side messages);
* ``{"choice": "act", "text": "..."}`` — a non-verbal action;
* ``agree:<proposition>`` (text optional: said publicly first);
* ``pass``; ``leave`` (text optional: parting words said publicly first).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from arena.types import Action, InvalidAction
from games.persona_dialogue.cast import Cast

_MENTION = re.compile(r"^\s*((?:@[^,:@]+,?\s*)+):\s*(.*)$", re.S)


@dataclass(frozen=True)
class Effect:
    kind: str  # "speak", "act", "agree", "pass", "leave"
    text: str = ""
    to: tuple[int, ...] = ()  # private recipients (empty: everyone present)
    proposition: str = ""


def plan(cast: Cast, present: list[bool], seat: int, action: Action, limit: int) -> list[Effect]:
    """The effects of ``action``; raises InvalidAction without side effects."""
    text = (action.text or "").strip()
    if len(text) > limit:
        raise InvalidAction(f"message too long ({len(text)} > {limit} chars)")
    choices = list(action.choices)
    if not choices:
        if not text:
            raise InvalidAction("empty message")
        m = _MENTION.match(text)
        if m:
            names = [n.strip().lstrip("@").strip() for n in m.group(1).split("@") if n.strip(" ,")]
            return [_private(cast, present, seat, names, m.group(2).strip())]
        return [Effect("speak", text)]
    to = [c.removeprefix("to:") for c in choices if c.startswith("to:")]
    rest = [c for c in choices if not c.startswith("to:")]
    if to:
        if rest:
            raise InvalidAction("to:<name> choices combine only with a text, not with " + rest[0])
        return [_private(cast, present, seat, to, text)]
    if len(rest) != 1:
        raise InvalidAction(f"choose one action, got {rest}")
    c = rest[0]
    said = [Effect("speak", text)] if text else []
    if c == "pass":
        if text:
            raise InvalidAction("'pass' takes no text; send only the text to speak")
        return [Effect("pass")]
    if c == "leave":
        return [*said, Effect("leave")]
    if c == "act":
        if not text:
            raise InvalidAction("'act' needs a text describing the action")
        return [Effect("act", text)]
    if c.startswith("agree:"):
        pid = c.removeprefix("agree:")
        if pid not in {p.id for p in cast.propositions}:
            raise InvalidAction(f"unknown proposition {pid!r}")
        return [*said, Effect("agree", proposition=pid)]
    raise InvalidAction(f"unknown action {c!r}")


def _private(cast: Cast, present: list[bool], seat: int, names: list[str], text: str) -> Effect:
    if not cast.allow_private:
        raise InvalidAction("this scenario does not allow private messages")
    if not text:
        raise InvalidAction("a private message needs a text")
    seats: list[int] = []
    for n in names:
        s = cast.seat_of(n)
        if s is None:
            raise InvalidAction(
                f"no character named {n!r}; present: {present_names(cast, present, seat)}"
            )
        if s == seat:
            raise InvalidAction("you cannot send a private message to yourself")
        if not present[s]:
            raise InvalidAction(f"{cast.names[s]} has left the conversation")
        if s not in seats:
            seats.append(s)
    return Effect("speak", text, to=tuple(sorted(seats)))


def present_names(cast: Cast, present: list[bool], seat: int) -> str:
    return ", ".join(n for i, n in enumerate(cast.names) if present[i] and i != seat) or "nobody"
