"""Match specifications and results: what the scheduler plans and what the store keeps."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

MatchStatus = Literal["finished", "forfeited", "errored"]


class InvalidActionPolicy(BaseModel):
    """What happens when an agent's answer is refused.

    The agent is re-asked with the error up to ``retries`` times; then ``fallback`` applies:
    ``random_legal`` (uniform legal choice; speech stays silent), ``abstain`` (the decision's
    abstain/pass option when it has one), or ``forfeit`` (the match ends, forfeited by that
    seat). Every refusal and fallback is recorded as an event.
    """

    model_config = ConfigDict(extra="forbid", strict=True)  # `retries: true` is not 1

    retries: int = Field(2, ge=0, le=10)
    fallback: Literal["random_legal", "abstain", "forfeit"] = "random_legal"
    timeout_s: float | None = Field(300.0, gt=0)


class MatchSpec(BaseModel):
    """One planned match: game, rules, seat -> agent entry, seed."""

    model_config = ConfigDict(extra="forbid")

    match_id: str
    run_id: str = ""
    game: str
    rules: dict[str, Any] = Field(default_factory=dict)
    seed: int
    seats: list[str]  # agent entry name per seat (resolved before the match starts)
    index: int = 0  # position in the plan: results are folded in this order
    repeat: int = 0
    # When set, seats are assigned by team after the engine deals roles: team -> entry name.
    by_team: dict[str, str] | None = None
    # False when the seating was chosen from the dealt roles (balanced seating): it would hint
    # at roles, so the runner records it for spectators only, as with by_team.
    public_seating: bool = True
    # > 0: a replicate of the same deal — the engine still starts from ``seed``, the agents'
    # seeds are salted with it (fresh sampling and bot draws; 0 keeps the seeds of old runs)
    replicate: int = Field(0, ge=0)


class SeatResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    seat: int
    name: str
    agent: str
    team: str
    role: str
    reward: float
    result: Literal["win", "loss", "draw", "none"]
    invalid: int = 0  # refused answers (every attempt counts)
    fallbacks: int = 0
    # Harness health per decision (None: recorded before these counts were kept). A decision is
    # one settled move of the seat: its answer applied, or a fallback.
    decisions: int | None = None
    refused: int | None = None  # decisions with at least one refused answer
    reasked: int | None = None  # decisions on which the seat was asked again
    timeouts: int | None = None  # decisions with at least one answer past the time limit
    forfeited: bool | None = None  # this seat forfeited the match


class MatchResult(BaseModel):
    """How a match ended, written once after its JSONL record is complete."""

    model_config = ConfigDict(extra="forbid")

    match_id: str
    run_id: str = ""
    game: str
    seed: int
    index: int = 0
    repeat: int = 0
    status: MatchStatus
    outcome: str
    reason: str | None = None
    winners: list[str] = Field(default_factory=list)
    seats: list[SeatResult] = Field(default_factory=list)
    n_events: int = 0
    n_decisions: int = 0
    duration_s: float = 0.0
    jsonl: str | None = None
    # What makes the result comparable with others (rules, prompts, models, policy): see
    # ``arena.conditions``. None: recorded before conditions were kept (unknown conditions).
    conditions: dict[str, Any] | None = None
