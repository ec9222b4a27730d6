"""A population with a known strength order, for rating tests.

``duel``: two teams of two (red: seats 0 and 2, blue: 1 and 3) play three rounds; every seat
secretly plays a card 1-5 each round; the team whose total plus engine noise (seeded) is higher
wins. The rule bot always plays 5. :class:`EpsilonAgent` wraps any game's bot and plays a
uniform random legal move with probability ``p_random`` — so p = 0, 0.25, 0.5, 0.75, 1 is a
population whose true order is known.
"""

from __future__ import annotations

import random
from typing import Any

from pydantic import Field

from arena import registry
from arena.agents import factory
from arena.agents.base import Agent, MatchContext
from arena.agents.random_agent import RandomAgent
from arena.engine import RulesEngine, RuleSet
from arena.types import Action, Decision, Observation, Option, Outcome, PrivateFact


class DuelRules(RuleSet):
    rounds: int = Field(3, ge=1, le=20)
    noise: float = Field(3.0, ge=0)


class DuelEngine(RulesEngine[DuelRules]):
    game = "duel"
    Rules = DuelRules

    @property
    def n_seats(self) -> int:
        return 4

    def _setup(self) -> None:
        self.round = 1
        self.cards: dict[int, int] = {}
        self.total = {"red": 0.0, "blue": 0.0}
        self.phase = "round_1"

    def teams(self) -> dict[int, str]:
        return {s: ("red" if s % 2 == 0 else "blue") for s in range(4)}

    def pending(self) -> list[int]:
        return [] if self._is_over() else [s for s in range(4) if s not in self.cards]

    def decision(self, seat: int) -> Decision:
        opts = [Option(id=str(v)) for v in range(1, 6)]
        return Decision(kind="card", options=opts, simultaneous=True)

    def _apply(self, seat: int, action: Action) -> None:
        self.cards[seat] = int(action.choices[0])
        if len(self.cards) == 4:
            for s, v in self.cards.items():
                self.total[self.teams()[s]] += v
            self.emit("cards", f"Round {self.round}: {sorted(self.cards.items())}")
            self.cards = {}
            self.round += 1
            self.phase = f"round_{self.round}" if not self._is_over() else "end"

    def _is_over(self) -> bool:
        return self.round > self.rules.rounds

    def _outcome(self) -> Outcome | None:
        red = self.total["red"] + self.rng.gauss(0, self.rules.noise)
        blue = self.total["blue"] + self.rng.gauss(0, self.rules.noise)
        winner = "red" if red > blue else "blue"
        rewards = {s: (1.0 if t == winner else -1.0) for s, t in self.teams().items()}
        return Outcome(label=f"{winner}_wins", winners=(winner,), rewards=rewards)

    def private_facts(self) -> list[PrivateFact]:
        return []

    def state(self, seat: int | None) -> dict[str, Any]:
        return {"round": self.round}


class HighCard(Agent):
    kind = "high"

    async def act(self, observation: Observation, decision: Decision) -> Action | str:
        return decision.options[-1].id


class EpsilonAgent(Agent):
    """The game's ``base`` bot, except a uniform random legal move with probability p_random."""

    kind = "epsilon"

    def __init__(
        self, name: str | None = None, base: str = "high", p_random: float = 0.0, game: str = "duel"
    ) -> None:
        super().__init__(name, base=base, p_random=p_random)
        self.p_random = p_random
        self.base = factory.build(f"{name}-base", base, game)
        self.random = RandomAgent(f"{name}-random")
        self.rng = random.Random(0)

    def reset(self, context: MatchContext) -> None:
        super().reset(context)
        self.base.reset(context)
        self.random.reset(context)
        self.rng = random.Random(context.seed ^ 0x5EED)

    async def act(self, observation: Observation, decision: Decision) -> Action | str:
        if self.rng.random() < self.p_random:
            return self.random.choose(decision)
        return await self.base.act(observation, decision)


BOTS = {"high": HighCard}


def register() -> None:
    registry.register_game(
        registry.GameInfo(
            game="duel",
            env_id="arena/Duel-v0",
            engine="tests.tournaments.strength:DuelEngine",
            env="tests.tournaments.strength:env",
            bots="tests.tournaments.strength:BOTS",
            description="test-only team game with a known strength order",
        )
    )
    factory.BUILTIN_KINDS.setdefault("epsilon", "tests.tournaments.strength:EpsilonAgent")


def env(**rules: Any) -> Any:
    from arena.env import ArenaEnv

    return ArenaEnv(DuelEngine, **rules)


P_RANDOM = (0.0, 0.25, 0.5, 0.75, 1.0)


def population(game: str = "duel", base: str = "high") -> list[dict[str, Any]]:
    return [
        {
            "name": f"p{int(p * 100):03d}",
            "kind": "epsilon",
            "params": {"base": base, "p_random": p, "game": game},
        }
        for p in P_RANDOM
    ]
