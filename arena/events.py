"""The one event schema: everything downstream of the match runner reads these.

A rules engine emits :class:`GameEvent` drafts (what happened, who may see it). The match
recorder stamps them into :class:`Event` records (run id, match id, sequence number, time)
that go to the JSONL record, the results store and live views. Visibility is data: a
player's view is computed from it, never from engine internals.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

SCHEMA_VERSION = 1

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
        return cls(scope="private", seats=tuple(sorted(set(seats))))

    @classmethod
    def for_team(cls, team: str, seats: Iterable[int]) -> Visibility:
        return cls(scope="team", team=team, seats=tuple(sorted(set(seats))))


_PUBLIC = Visibility(scope="public")
_GOD = Visibility(scope="god")


class GameEvent(BaseModel):
    """An event as a rules engine (or the runner) emits it, before it is stamped.

    ``text`` is the human-readable line a seat that may see the event reads in its
    transcript; ``payload`` is the machine-readable content.
    """

    model_config = ConfigDict(extra="forbid")

    type: str
    phase: str = ""
    actor: int | None = None
    payload: dict[str, Any] = Field(default_factory=dict)
    visibility: Visibility = _PUBLIC
    text: str = ""


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
    """The events a seat may see (``None``: spectator, sees all)."""
    return [e for e in events if e.visibility.visible_to(seat)]
