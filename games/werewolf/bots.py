"""Werewolf baseline bots (spec §13): random-legal, village role bots, coordinating wolves.

Every bot reads only its own observation (visible events and ``obs.state``), owns a
``random.Random(context.seed)``, and answers every decision kind of the engine contract legally.
Wolves additionally derive a team RNG from ``context.team_seed`` and the night number, so all
wolf bots compute the same night target without talking. ``rule`` looks at its own role on the
first decision and plays the matching role bot; configs name it ``werewolf.rule``. Its ``slip``
(a probability) plays a random-legal move instead of the role bot's on that share of decisions
(:mod:`arena.agents.slip`), so ``slip`` 0, 0.25, ..., 1 is a population of known strength order.
"""

from __future__ import annotations

from typing import Any

from arena.agents.base import Agent, MatchContext
from arena.agents.slip import Slip
from arena.types import Action, Decision, Observation
from games.werewolf.bot_base import RandomLegalBot, WerewolfBot
from games.werewolf.suspicion import WOLF_ROLE
from games.werewolf.village_bots import (
    DoctorBot,
    GuardBot,
    HunterBot,
    SeerBot,
    VillagerBot,
    WitchBot,
)
from games.werewolf.wolf_bot import WolfBot

ROLE_BOTS: dict[str, type[WerewolfBot]] = {
    "villager": VillagerBot,
    "seer": SeerBot,
    "doctor": DoctorBot,
    "guard": GuardBot,
    "witch": WitchBot,
    "hunter": HunterBot,
    WOLF_ROLE: WolfBot,
}


class RuleBot(Agent):
    """Plays the role bot that matches its own role (read on the first decision); ``slip``: the
    probability of a random-legal move instead, decision by decision."""

    kind = "werewolf.rule"

    def __init__(self, name: str | None = None, slip: float = 0.0, **params: Any) -> None:
        super().__init__(name, **params)  # the role bot gets these params; slip stays here
        self.slips = Slip(slip, RandomLegalBot, name)
        self.inner: WerewolfBot | None = None

    @classmethod
    def accepted_params(cls) -> frozenset[str]:
        """Its own arguments (``slip``) and any role bot's parameters: the others go to
        whichever role bot the seat plays."""
        roles = (bot.accepted_params() for bot in ROLE_BOTS.values())
        return super().accepted_params().union(*roles)

    def reset(self, context: MatchContext) -> None:
        super().reset(context)
        self.slips.reset(context)
        self.inner = None

    @staticmethod
    def own_role(obs: Observation) -> str:
        if obs.state.get("role"):
            return str(obs.state["role"])
        for e in obs.events:
            p = e.payload
            if e.type == "role" and int(p.get("seat", -1)) == obs.seat:
                return str(p["role"])
        return "villager"

    async def act(self, observation: Observation, decision: Decision) -> Action | str:
        if self.inner is None:
            cls = ROLE_BOTS.get(self.own_role(observation), VillagerBot)
            self.inner = cls(self.name, **self.params)
            assert self.context is not None
            self.inner.reset(self.context)
        slipped = await self.slips.move(observation, decision)
        if isinstance(slipped, Action | str):
            self.inner.sync(observation)  # the role bot keeps reading the match it skips a move of
            return slipped
        return await self.inner.act(observation, decision)


BOTS: dict[str, type[Agent]] = {
    "random": RandomLegalBot,
    "random_legal": RandomLegalBot,
    "rule": RuleBot,
    "villager": VillagerBot,
    "seer": SeerBot,
    "doctor": DoctorBot,
    "guard": GuardBot,
    "witch": WitchBot,
    "hunter": HunterBot,
    "wolf": WolfBot,
}

__all__ = ["BOTS", "ROLE_BOTS", "RandomLegalBot", "RuleBot", "SeerBot", "VillagerBot", "WolfBot"]
