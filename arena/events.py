"""The one event schema: everything downstream of the match runner reads these.

A rules engine emits :class:`GameEvent` drafts (what happened, who may see it). The match
recorder stamps them into :class:`Event` records (run id, match id, sequence number, time)
that go to the JSONL record, the results store and live views.

Who receives an event is decided once, when it is emitted: ``audience`` lists the seats it is
delivered to (spectators see everything). The engine computes it from ``visibility`` (the
scope and team label: who *may* see it) and the seats observing at that moment (a dead
Werewolf seat, a character who left). Every consumer — env observations, the runner, LLM
prompts, the MQTT seat topics, the TUI's seat view, the metrics — asks
:meth:`GameEvent.delivered_to` and nothing else.

Speech carries structure (:class:`Speech`: the speaker is ``actor``, the channel and the
recipients are the visibility, the words are ``body``) so that one renderer
(:mod:`arena.transcript`) writes a seat's own lines as "You" from the actor id.

Schema history: v1 records have no ``audience`` and no ``speech``; they read as events whose
audience is every seat their visibility admits and whose text is the line as written.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from arena.trusted import build_trusted

SCHEMA_VERSION = 2

Scope = Literal["public", "team", "private", "god"]


class Visibility(BaseModel):
    """Who may see an event.

    ``public``: every seat. ``team``: the listed seats, named by ``team``.
    ``private``: only the listed seats. ``god``: no seat (spectators and metrics only).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    scope: Scope = "public"
    seats: tuple[int, ...] = ()
    team: str | None = None

    @model_validator(mode="after")
    def _check(self) -> Visibility:
        if self.scope in ("team", "private") and not self.seats:
            raise ValueError(f"{self.scope} visibility needs at least one seat")
        if self.scope in ("public", "god") and self.seats:
            raise ValueError(f"{self.scope} visibility takes no seats")
        if self.scope == "team" and not self.team:
            raise ValueError("team visibility needs a team name")
        return self

    def visible_to(self, seat: int | None) -> bool:
        """True when ``seat`` may see the event; ``None`` means a spectator (god view)."""
        if seat is None:
            return True
        if self.scope == "public":
            return True
        if self.scope == "god":
            return False
        return seat in self.seats

    @classmethod
    def public(cls) -> Visibility:
        return _PUBLIC

    @classmethod
    def god(cls) -> Visibility:
        return _GOD

    @classmethod
    def private(cls, *seats: int) -> Visibility:
        return _shared("private", None, seats)

    @classmethod
    def for_team(cls, team: str, seats: Iterable[int]) -> Visibility:
        return _shared("team", team, seats)


_PUBLIC = Visibility(scope="public")
_GOD = Visibility(scope="god")
# One validated instance per (scope, team, seats): engines address the same few channels (a
# seat, the wolves alive) on most steps, and a Visibility is frozen, so it is shared safely.
_SHARED: dict[tuple[str, str | None, tuple[int, ...]], Visibility] = {}


def _shared(scope: Scope, team: str | None, seats: Iterable[int]) -> Visibility:
    key = (scope, team, tuple(sorted(set(seats))))
    found = _SHARED.get(key)
    if found is None:
        found = Visibility(scope=scope, team=team, seats=key[2])
        if len(_SHARED) < 4096:  # bounded: seats and team names are few in practice
            _SHARED[key] = found
    return found


class Speech(BaseModel):
    """What a seat said: the structure the one renderer needs (see :mod:`arena.transcript`).

    The speaker is the event's ``actor``; the channel (a team's, a private side message to
    its recipients, or everyone) is the event's ``visibility``. ``label`` qualifies the line
    (e.g. "last words").
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    body: str
    label: str = ""


class GameEvent(BaseModel):
    """An event as a rules engine (or the runner) emits it, before it is stamped.

    ``text`` is the human-readable line a spectator reads (for speech: rendered from
    ``speech``); ``payload`` is the machine-readable content. ``audience``: the seats the event
    is delivered to, fixed at emission; ``None`` only in v1 records and hand-made drafts,
    where it is every seat the visibility admits.
    """

    model_config = ConfigDict(extra="forbid")

    type: str
    phase: str = ""
    actor: int | None = None
    payload: dict[str, Any] = Field(default_factory=dict)
    visibility: Visibility = _PUBLIC
    text: str = ""
    audience: tuple[int, ...] | None = None
    speech: Speech | None = None

    @model_validator(mode="after")
    def _check_audience(self) -> GameEvent:
        aud, vis = self.audience, self.visibility
        if aud is not None and aud:
            if vis.scope == "god":
                raise ValueError("a god-only event is delivered to no seat")
            if vis.scope != "public" and not set(aud) <= set(vis.seats):
                raise ValueError(f"audience {aud} outside the visibility's seats {vis.seats}")
        if self.speech is not None and self.actor is None:
            raise ValueError("speech needs a speaker (actor)")
        return self

    @classmethod
    def emitted(
        cls,
        type: str,
        phase: str,
        actor: int | None,
        payload: dict[str, Any],
        visibility: Visibility,
        text: str,
        audience: tuple[int, ...],
        speech: Speech | None,
    ) -> GameEvent:
        """An event from already-typed parts, without validation: what ``model_construct``
        does, minus its generic default handling (the engine's emit is the hot path)."""
        state = {
            "type": type,
            "phase": phase,
            "actor": actor,
            "payload": payload,
            "visibility": visibility,
            "text": text,
            "audience": audience,
            "speech": speech,
        }
        return build_trusted(cls, state, _ALL_FIELDS)

    def delivered_to(self, seat: int | None) -> bool:
        """True when the event reaches ``seat``; ``None`` means a spectator (sees all)."""
        if seat is None:
            return True
        aud = self.audience
        if aud is None:
            return self.visibility.visible_to(seat)
        return seat in aud

    def delivered_seats(self, n_seats: int) -> tuple[int, ...]:
        """The seats the event reaches, in seat order, in a match of ``n_seats`` seats."""
        if self.audience is not None:
            return self.audience
        return tuple(s for s in range(n_seats) if self.visibility.visible_to(s))


_ALL_FIELDS = frozenset(GameEvent.model_fields)


class Event(GameEvent):
    """A stamped event: one line of a match's JSONL record."""

    v: int = SCHEMA_VERSION
    run_id: str = ""
    match_id: str = ""
    seq: int = 0
    ts: float = 0.0

    @classmethod
    def stamp(cls, draft: GameEvent, *, run_id: str, match_id: str, seq: int) -> Event:
        return cls(
            run_id=run_id,
            match_id=match_id,
            seq=seq,
            ts=time.time(),
            **draft.model_dump(),
        )

    def comparable(self) -> dict[str, Any]:
        """The event without wall-clock fields, for determinism checks."""
        data = self.model_dump(mode="json")
        data.pop("ts", None)
        payload = data.get("payload") or {}
        for key in ("latency_s", "elapsed_s", "wall_s"):
            payload.pop(key, None)
        return data


def visible_events(events: Iterable[GameEvent], seat: int | None) -> list[GameEvent]:
    """The events delivered to a seat (``None``: spectator, sees all)."""
    return [e for e in events if e.delivered_to(seat)]
