"""The random-legal baseline: a uniform legal choice for every decision."""

from __future__ import annotations

import random
from typing import Any

from arena.agents.base import Agent, MatchContext
from arena.types import Action, Decision, Observation

FILLER = "I have nothing to add yet."


class RandomAgent(Agent):
    """Uniform over legal options; on speech decisions speaks a neutral line with ``p_speak``."""

    kind = "random"

    def __init__(self, name: str | None = None, p_speak: float = 0.2, **params: Any) -> None:
        super().__init__(name, p_speak=p_speak, **params)
        self.p_speak = p_speak
        self.rng = random.Random(0)

    def reset(self, context: MatchContext) -> None:
        super().reset(context)
        self.rng = random.Random(context.seed)

    async def act(self, observation: Observation, decision: Decision) -> Action | str:
        return self.choose(decision)

    def choose(self, decision: Decision) -> Action:
        if decision.belief_only and decision.options:  # no belief to report: skip it
            skip = decision.silent_option or decision.option_ids[0]
            return Action(choices=(skip,))
        if decision.free_text and (not decision.options or self.rng.random() < self.p_speak):
            return Action(text=FILLER[: decision.max_chars])
        ids = decision.option_ids
        if decision.silent_option and decision.free_text:
            return Action(choices=(decision.silent_option,))
        k = (
            self.rng.randint(decision.min_choices, decision.max_choices)
            if decision.max_choices > 1
            else 1
        )
        k = max(1, min(k, len(ids)))
        return Action(choices=tuple(self.rng.sample(ids, k)))
