"""``slip``: a rule bot's probability of playing a uniformly random legal move instead of its own.

A population of one rule bot at slip 0, 0.25, 0.5, 0.75 and 1 has a known strength order, which
is what rating tests and benches need (docs/ratings.md); with this parameter such a population is
a config (``params: {slip: 0.25}``), not code.

The random move is the game's own random-legal bot's answer (its ``random`` kind), so slip 1
plays as that bot does. Both the slip draws and the random moves come from streams of the bot's
own, seeded from its match context (no global random state): the rule play's RNG is untouched,
so a bot at slip 0 plays exactly as it did before the parameter existed. Belief reports are
never slipped (they are measurements, not moves).
"""

from __future__ import annotations

import math
import random
from typing import Any

from arena.agents.base import Agent, MatchContext
from arena.seeding import derive_seed
from arena.types import Action, Decision, Observation


def slip_probability(value: Any) -> float:
    """``value`` as a probability in [0, 1]; raises ValueError otherwise (a config error)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"slip must be a probability in [0, 1], got {value!r}")
    if not 0.0 <= float(value) <= 1.0:
        raise ValueError(f"slip must be a probability in [0, 1], got {value!r}")
    return float(value)


class Slip:
    """The slips of one bot. ``await slips.move(obs, decision)`` is a random legal move or None
    (play the rule move); bots that decide synchronously ask ``slips.now(decision)`` and answer
    with ``slips.bot``. ``exempt`` names decision kinds that are never slipped (probes)."""

    def __init__(
        self,
        p: Any,
        random_bot: type[Agent],
        name: str | None = None,
        exempt: tuple[str, ...] = (),
    ) -> None:
        self.p = slip_probability(p)
        self.random_bot, self.name, self.exempt = random_bot, f"{name or 'bot'}-slip", exempt
        self._bot: Agent | None = None  # built on first use: a random bot may itself take slip
        self.rng = random.Random(0)

    @property
    def bot(self) -> Agent:
        if self._bot is None:
            self._bot = self.random_bot(self.name)
        return self._bot

    def reset(self, context: MatchContext) -> None:
        if self.p <= 0.0:
            return
        self.rng = random.Random(derive_seed(context.seed, "slip"))
        self.bot.reset(context.model_copy(update={"seed": derive_seed(context.seed, "slip-move")}))

    def now(self, decision: Decision) -> bool:
        """Whether this decision slips (one draw from the slip stream when slip > 0)."""
        if self.p <= 0.0 or decision.belief_only or decision.kind in self.exempt:
            return False
        return self.rng.random() < self.p

    async def move(
        self, observation: Observation, decision: Decision
    ) -> Action | str | dict[str, Any] | None:
        """The random legal move when this decision slips, else None (play the rule move)."""
        if not self.now(decision):
            return None
        return await self.bot.act(observation, decision)
