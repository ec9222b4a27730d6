"""A tiny game used to test the arena core without any real game.

Three rounds; each round every seat speaks once in seat order, then all seats vote
simultaneously for another seat (secret ballots, revealed together). Each seat holds a
private secret number. The seat with the most votes over the game loses.
"""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic import Field

from arena import registry
from arena.agents.base import Agent
from arena.engine import RulesEngine, RuleSet
from arena.events import Visibility
from arena.types import Action, Decision, Observation, Option, Outcome, PrivateFact


class ToyRules(RuleSet):
    n_players: int = Field(3, ge=2, le=8)
    rounds: int = Field(3, ge=1, le=10)


class ToyEngine(RulesEngine[ToyRules]):
    game = "toy"
    Rules = ToyRules

    @property
    def n_seats(self) -> int:
        return self.rules.n_players

    def _setup(self) -> None:
        n = self.n_seats
        self._names = [f"P{i}" for i in range(n)]
        self.secrets = [self.rng.randint(100, 999) for _ in range(n)]
        self.round = 1
        self.step_kind = "speak"
        self.speaker = 0
        self.ballots: dict[int, int] = {}
        self.votes_against = [0] * n
        self.phase = "round_1"
        for s in range(n):
            self.emit(
                "secret",
                f"Your secret is {self.secrets[s]}.",
                visibility=Visibility.private(s),
                seat=s,
                value=self.secrets[s],
            )

    def pending(self) -> list[int]:
        if self._is_over():
            return []
        if self.step_kind == "speak":
            return [self.speaker]
        return [s for s in range(self.n_seats) if s not in self.ballots]

    def decision(self, seat: int) -> Decision:
        if seat not in self.pending():
            raise KeyError(seat)
        if self.step_kind == "speak":
            return Decision(
                kind="speak",
                options=[Option(id="pass")],
                free_text=True,
                silent_option="pass",
                max_chars=200,
            )
        opts = [Option(id=str(t), label=self._names[t]) for t in range(self.n_seats) if t != seat]
        return Decision(kind="vote", options=opts, simultaneous=True)

    def _apply(self, seat: int, action: Action) -> None:
        if self.step_kind == "speak":
            if action.text:
                self.emit_speech("message", seat, action.text, text_=action.text)
            self.speaker += 1
            if self.speaker >= self.n_seats:
                self.step_kind = "vote"
            return
        self.ballots[seat] = int(action.choices[0])
        if len(self.ballots) == self.n_seats:
            for t in self.ballots.values():
                self.votes_against[t] += 1
            self.emit(
                "votes",
                "Votes: "
                + ", ".join(
                    f"{self._names[v]}->{self._names[t]}" for v, t in sorted(self.ballots.items())
                ),
                ballots={str(v): t for v, t in sorted(self.ballots.items())},
            )
            self.ballots = {}
            self.round += 1
            self.speaker = 0
            self.step_kind = "speak"
            self.phase = f"round_{self.round}"
            if self._is_over():
                self.phase = "end"

    def _is_over(self) -> bool:
        return self.round > self.rules.rounds

    def _outcome(self) -> Outcome | None:
        worst = max(self.votes_against)
        losers = [s for s in range(self.n_seats) if self.votes_against[s] == worst]
        rewards = {s: (-1.0 if s in losers else 1.0) for s in range(self.n_seats)}
        winners = tuple(f"seat{s}" for s in range(self.n_seats) if s not in losers)
        return Outcome(label="finished", winners=winners, rewards=rewards)

    def teams(self) -> dict[int, str]:
        return {s: f"seat{s}" for s in range(self.n_seats)}

    def private_facts(self) -> list[PrivateFact]:
        return [
            PrivateFact(
                owner=s,
                kind="secret",
                key="number",
                value=self.secrets[s],
                audience=(s,),
                numeric=float(self.secrets[s]),
            )
            for s in range(self.n_seats)
        ]

    def state(self, seat: int | None) -> dict[str, Any]:
        return {"phase": self.phase, "round": self.round}


def env(**rules: Any):
    from arena.env import ArenaEnv

    return ArenaEnv(ToyEngine, **rules)


class StubbornAgent(Agent):
    """Always answers the same fixed string (usually illegal): exercises the invalid-action policy."""

    kind = "stubborn"

    def __init__(self, name: str | None = None, answer: str = "nonsense", **params: Any) -> None:
        super().__init__(name, **params)
        self.answer = answer

    async def act(self, observation: Observation, decision: Decision) -> Action | str:
        return self.answer


class CrashingAgent(Agent):
    kind = "crashing"

    async def act(self, observation: Observation, decision: Decision) -> Action | str:
        raise RuntimeError("boom")


class SlowAgent(Agent):
    kind = "slow"

    def __init__(self, name: str | None = None, delay: float = 10.0, **params: Any) -> None:
        super().__init__(name, **params)
        self.delay = delay

    async def act(self, observation: Observation, decision: Decision) -> Action | str:
        await asyncio.sleep(self.delay)
        return "pass"


class LowestAgent(Agent):
    """Deterministic: always the first legal option (speech: pass)."""

    kind = "lowest"

    async def act(self, observation: Observation, decision: Decision) -> Action | str:
        return decision.options[0].id


# The game's registered bots: the ones that play legally (the conformance suite seats each).
# Stubborn, Crashing and Slow agents misbehave on purpose, for the runner's own tests.
BOTS = {"lowest": LowestAgent}


# The toy game's registration: shared by the suite's conftest and the Ray workers' setup hook.
INFO = registry.GameInfo(
    game="toy",
    env_id="arena/Toy-v0",
    engine="tests.arena.toygame:ToyEngine",
    env="tests.arena.toygame:env",
    bots="tests.arena.toygame:BOTS",
    description="test-only toy game",
    speech_types=("message",),
    event_types=("secret", "votes"),
)
