"""The agent contract: ``reset(context)`` then ``await act(observation, decision)`` per decision."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from arena.types import Action, Decision, Observation


class MatchContext(BaseModel):
    """What an agent is told when a match starts.

    ``seed`` is the agent's own seed, derived from (match seed, seat, agent name); agents never
    receive the match seed itself (with it they could replay the engine RNG and learn secrets).
    ``team_seed`` is shared by the seats of one team (derived from the match seed and the team
    name), so teammates can coordinate; it reveals nothing about other seats.
    """

    model_config = ConfigDict(extra="forbid")

    game: str
    match_id: str
    seat: int
    name: str
    names: list[str]
    seed: int
    team_seed: int
    rules: dict[str, Any] = Field(default_factory=dict)


class Agent(ABC):
    """Base class of every agent. One instance plays one seat of one match at a time."""

    #: the kind name used in configs (e.g. "random", "werewolf.rule")
    kind: str = "agent"

    def __init__(self, name: str | None = None, **params: Any) -> None:
        self.name = name or self.kind
        self.params = params
        self.context: MatchContext | None = None

    def reset(self, context: MatchContext) -> None:
        """Called once before the match; rule bots seed their own RNG here."""
        self.context = context

    @abstractmethod
    async def act(
        self, observation: Observation, decision: Decision
    ) -> Action | str | dict[str, Any]:
        """Answer the decision; an invalid answer is re-asked with ``observation.error`` set.

        Any answer ``Decision.parse`` accepts: an Action, a text answer or a JSON-like dict."""

    async def close(self) -> None:
        """Release resources after the match (HTTP clients, etc.)."""
        return None
