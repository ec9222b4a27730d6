"""Core contracts shared by every game, agent and consumer (pydantic v2 at the boundaries):
the private facts a seat may know, a match's outcome and the observation a seat is shown. The
decision a seat owes and its answer live in :mod:`arena.decisions` (re-exported here)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    field_validator,
)

from arena.decisions import Action, Decision, InvalidAction, Option
from arena.events import Event

__all__ = [
    "Action",
    "Decision",
    "InvalidAction",
    "NumericSpec",
    "Observation",
    "Option",
    "Outcome",
    "PrivateFact",
]


class PrivateFact(BaseModel):
    """A piece of private information with its owner and audience: ground truth for metrics.

    ``audience`` lists the seats allowed to know it (the owner included); ``public``
    facts have become known to everyone (e.g. a role revealed on death). Immutable: an engine
    hands the same facts to every reader until its state changes.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    owner: int
    kind: str  # "role", "team", "valuation", "reservation_price", "secret", "night_result", ...
    key: str
    value: Any
    audience: tuple[int, ...] = ()
    public: bool = False
    numeric: float | None = None
    aliases: tuple[str, ...] = ()

    def known_by(self, seat: int) -> bool:
        return self.public or seat in self.audience


class NumericSpec(BaseModel):
    """How a numeric secret is matched in text (metrics.md §A1): relative/absolute tolerances for
    a full or partial disclosure and the cue words that make a number a disclosure rather than
    an ordinary offer. One definition, shared by persona cards and the privacy metrics."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tol_full: float = Field(0.005, ge=0)
    tol_partial: float = Field(0.10, ge=0)
    abs_tol_full: float = Field(0.0, ge=0)
    abs_tol_partial: float = Field(0.0, ge=0)
    cues: list[str] | None = None
    anchors: list[str] = Field(default_factory=list)
    window: int = Field(8, ge=1)
    first_person: bool = True


class Outcome(BaseModel):
    """How a match ended."""

    model_config = ConfigDict(extra="forbid")

    label: str  # e.g. "village_win", "wolves_win", "draw_cap", "aborted"
    winners: tuple[str, ...] = ()  # winning teams; empty on a draw or abort
    rewards: dict[int, float] = Field(default_factory=dict)
    reason: str | None = None
    status: Literal["finished", "forfeited", "errored"] = "finished"

    @field_validator("rewards", mode="before")
    @classmethod
    def _int_keys(cls, v: Any) -> Any:
        if isinstance(v, dict):
            return {int(k): float(x) for k, x in v.items()}
        return v


class Observation(BaseModel):
    """What an agent receives with a decision: its own view of the match, nothing more.

    ``events`` are the events delivered to the seat (their audience includes it), in order.
    ``text`` is the rendered view (briefing, transcript, status, decision) that an env agent
    reads; the runner renders it only when it is read (no shipped agent reads it), from the
    same parts and the same line renderer as the env.
    """

    model_config = ConfigDict(extra="forbid")

    game: str
    match_id: str = ""
    seat: int
    name: str
    phase: str
    names: list[str] = Field(default_factory=list)  # every seat's name, by seat
    events: list[Event] = Field(default_factory=list)  # events delivered to this seat, in order
    private: list[PrivateFact] = Field(default_factory=list)  # facts this seat knows
    state: dict[str, Any] = Field(default_factory=dict)  # game-specific public summary
    error: str | None = None  # set on a re-ask: why the previous answer was refused
    _text: str | None = PrivateAttr(default=None)
    _render: Callable[[], str] | None = PrivateAttr(default=None)

    def __init__(self, text: str | None = None, **data: Any) -> None:
        super().__init__(**data)
        self._text = text

    @classmethod
    def lazy(cls, render: Callable[[], str], **fields: Any) -> Observation:
        """An observation built from trusted parts whose text ``render()`` makes on first read."""
        obs = cls.model_construct(**fields)
        obs._render = render
        return obs

    @property
    def text(self) -> str:
        """The rendered view a seat reads (rendered once, on first read)."""
        if self._text is None:
            render, self._render = self._render, None
            self._text = render() if render is not None else ""
        return self._text
