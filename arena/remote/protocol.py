"""The remote agent protocol, version 1: the messages the runner and an agent server exchange.

Four calls on the agent's base URL, JSON bodies, ``Authorization: Bearer <token>`` when the run
sets a token:

- ``GET  /info``   -> :class:`InfoReply` (preflight: reachable, same protocol version)
- ``POST /start``  :class:`StartRequest` -> :class:`StartReply` (a match begins for one seat)
- ``POST /decide`` :class:`DecideRequest` -> :class:`DecideReply` (one decision of that seat)
- ``POST /end``    :class:`EndRequest` -> :class:`EndReply` (the match is over)

Everything a request carries is the seat's own view, exactly what an in-process agent gets:
the events delivered to the seat, the private facts it knows, its decision. ``events`` of a
view are sent once: each request carries the ones not yet acknowledged, from index
``events_from`` of the seat's list (a server keeps the list; a retried request resends).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from arena.types import Decision

PROTOCOL_VERSION = 1


class _Message(BaseModel):
    # extra="ignore" on what we read from agents: a newer server may add fields
    model_config = ConfigDict(extra="ignore")


class InfoReply(_Message):
    protocol: int
    name: str = ""


class StartRequest(_Message):
    protocol: int = PROTOCOL_VERSION
    session: str  # unique per (match, seat): the key of every later call
    agent: str = ""  # the agent entry's name in the run's config
    game: str
    match_id: str
    seat: int
    name: str  # the seat's player name
    names: list[str]  # every seat's player name, by seat
    seed: int  # the agent's own seed (never the match seed)
    team_seed: int
    rules: dict[str, Any] = Field(default_factory=dict)
    briefing: str = ""  # the seat's briefing: its role, its goal, the rules in words


class StartReply(_Message):
    ok: bool = True
    # False: the agent never reads the rendered text, so the runner need not render it
    text: bool = True


class View(_Message):
    """The seat's observation: its view of the match as of this call."""

    phase: str
    text: str | None = None  # the rendered view (briefing, transcript, status, decision)
    events_from: int = 0  # index of events[0] in the seat's whole list of events
    events: list[dict[str, Any]] = Field(default_factory=list)  # Event records (docs/remote.md)
    private: list[dict[str, Any]] = Field(default_factory=list)  # facts the seat knows
    state: dict[str, Any] = Field(default_factory=dict)  # the game's public summary
    error: str | None = None  # on a re-ask: why the previous answer was refused


class DecideRequest(_Message):
    protocol: int = PROTOCOL_VERSION
    session: str
    match_id: str
    seat: int
    deadline_s: float | None = None  # seconds this answer may take (None: no limit)
    observation: View
    decision: dict[str, Any]  # a Decision: kind, prompt, options [{id, label}], bounds
    answer_schema: dict[str, Any]  # JSON schema of a valid answer to this decision


class DecideReply(_Message):
    # an option id or label, an option index, or {"choice": id | [ids], "text", "belief"}
    answer: str | int | dict[str, Any]
    # optional annotations of the agent's own, recorded god-only with the decision
    meta: dict[str, Any] | None = None


class Outcome(_Message):
    status: Literal["finished", "forfeited", "errored"]
    label: str
    winners: list[str] = Field(default_factory=list)  # winning teams
    reward: float = 0.0  # this seat's reward
    reason: str | None = None


class EndRequest(_Message):
    protocol: int = PROTOCOL_VERSION
    session: str
    match_id: str
    seat: int
    outcome: Outcome
    observation: View  # the final view: what the end of the game revealed to this seat


class EndReply(_Message):
    ok: bool = True


def answer_schema(decision: Decision) -> dict[str, Any]:
    """The JSON schema of an answer that ``decision`` accepts (the ``answer`` of a reply)."""
    ids = decision.option_ids
    forms: list[dict[str, Any]] = []
    if ids:
        forms.append({"type": "string", "enum": ids, "description": "an option id"})
        if decision.max_choices > 1:
            forms.append(
                {
                    "type": "object",
                    "properties": {
                        "choice": {
                            "type": "array",
                            "items": {"enum": ids},
                            "minItems": decision.min_choices,
                            "maxItems": decision.max_choices,
                            "uniqueItems": True,
                        }
                    },
                    "required": ["choice"],
                }
            )
        else:
            forms.append(
                {"type": "object", "properties": {"choice": {"enum": ids}}, "required": ["choice"]}
            )
    if decision.free_text:
        text = {"type": "string", "maxLength": decision.max_chars}
        forms.append({"type": "object", "properties": {"text": text}, "required": ["text"]})
    if decision.belief_only:
        belief = {
            "type": "object",
            "additionalProperties": {"type": "number", "minimum": 0, "maximum": 1},
        }
        forms.append({"type": "object", "properties": {"belief": belief}, "required": ["belief"]})
    return {"oneOf": forms}


def decision_json(decision: Decision) -> dict[str, Any]:
    """The decision as the protocol sends it (every field, ``meta`` included)."""
    return decision.model_dump(mode="json")


def schemas() -> dict[str, Any]:
    """The JSON schema of every message, by name (what docs/remote.md prints)."""
    models: list[type[BaseModel]] = [
        InfoReply, StartRequest, StartReply, DecideRequest, DecideReply, EndRequest, EndReply,
    ]  # fmt: skip
    return {m.__name__: m.model_json_schema() for m in models}
