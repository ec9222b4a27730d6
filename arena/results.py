"""Match specifications and results: what the scheduler plans and what the store keeps."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
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


# -- a match's result as rated ----------------------------------------------------------------
# The labelling the runner writes into the store and every rating reads (arena.ratings): it sits
# with the results so that the runner needs no rating model.
RATED = ("finished", "forfeited")


def ranks_by_reward(seats: Iterable[tuple[str, float]]) -> dict[str, int]:
    """Rank per team from its seats' (team, reward): the mean reward, 0 best, ties share."""
    rewards: dict[str, list[float]] = defaultdict(list)
    for team, reward in seats:
        rewards[team].append(reward)
    mean = {t: sum(v) / len(v) for t, v in rewards.items()}
    distinct = sorted(set(mean.values()), reverse=True)
    return {t: distinct.index(v) for t, v in mean.items()}


def rated_result(ranks: dict[str, int], team: str) -> str:
    """A seat's ``win``/``loss``/``draw`` as rated: a draw when every team ties, else a win
    for the best-ranked teams. The store's ``seats.result`` of a forfeited match is this."""
    if len(set(ranks.values())) == 1:
        return "draw"
    return "win" if ranks[team] == 0 else "loss"


def seat_results(
    status: str, teams: Mapping[int, str], rewards: Mapping[int, float], winners: Iterable[str]
) -> dict[int, str]:
    """Each seat's ``win``/``loss``/``draw``/``none``: the one notion of a match's result that
    the store, the leaderboard, ``arena show``, exports and memory trajectories share. A rated
    match of two or more teams is decided by the team ranks by reward (:func:`rated_result`,
    what the fit counts); a match of one team, by the engine's winners; an unrated one is
    ``none``. (A game whose engine names no winner but pays seats differently, e.g. a persona
    dialogue scored per seat, is a win for the better-paid team, as the board counts it.)"""
    if status not in RATED:
        return dict.fromkeys(teams, "none")
    ranks = ranks_by_reward((teams[s], rewards.get(s, 0.0)) for s in teams)
    if len(ranks) >= 2:
        return {s: rated_result(ranks, team) for s, team in teams.items()}
    won = set(winners)
    if status != "finished":
        return dict.fromkeys(teams, "none")
    return {
        s: ("draw" if not won else "win" if team in won else "loss") for s, team in teams.items()
    }
