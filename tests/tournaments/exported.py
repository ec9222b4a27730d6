"""Matches played in process with agents that note what they were shown, for the export tests.

:class:`Witness` wraps a real bot: it reads ``observation.text`` at every ask (the runner's own
rendering, independent of the export's), answers garbage to choice decisions now and then (refused, re-asked with
the error) or on every attempt of a decision (the policy's fallback applies), and keeps per
decision the text of its last ask: what the exported row of that decision must hold.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from arena.agents import factory
from arena.agents.base import Agent, MatchContext
from arena.events import Event
from arena.results import InvalidActionPolicy, MatchResult, MatchSpec
from arena.runner import MatchRunner
from arena.sinks import MemorySink
from arena.types import Action, Decision, Observation

RETRIES = 1
POLICY = InvalidActionPolicy(retries=RETRIES, fallback="random_legal", timeout_s=None)
GARBAGE = "certainly not an option id"


class Witness(Agent):
    kind = "witness"

    def __init__(self, inner: Agent, rng: random.Random, noise: float) -> None:
        super().__init__(inner.name)
        self.inner = inner
        self.rng = rng
        self.noise = noise
        self.texts: list[str] = []  # every observation text it was shown
        self.expected: list[dict[str, Any]] = []  # per decision: its last text, refusals
        self._attempts = 0
        self._stubborn = False

    def reset(self, context: MatchContext) -> None:
        super().reset(context)
        self.inner.reset(context)

    async def act(
        self, observation: Observation, decision: Decision
    ) -> Action | str | dict[str, Any]:
        text = observation.text
        self.texts.append(text)
        if self._attempts == 0:
            self._stubborn = self.rng.random() < self.noise / 2
        refuse = self._stubborn or (self._attempts == 0 and self.rng.random() < self.noise)
        refuse = refuse and not decision.free_text  # (free text would take the garbage)
        if refuse:
            self._attempts += 1
            if self._attempts > RETRIES:  # the fallback answers this decision
                self.expected.append({"text": text, "invalid": self._attempts, "fallback": True})
                self._attempts = 0
            return GARBAGE
        self.expected.append({"text": text, "invalid": self._attempts, "fallback": False})
        self._attempts = 0
        return await self.inner.act(observation, decision)


@dataclass
class Played:
    events: list[Event]
    result: MatchResult
    witnesses: list[Witness] = field(default_factory=list)


def play(game: str, rules: dict[str, Any], seed: int, kinds: list[str], noise: float) -> Played:
    """One seeded match; seat ``s`` plays ``kinds[s % len(kinds)]`` behind a :class:`Witness`."""
    rng = random.Random(seed)
    witnesses: list[Witness] = []

    def make(entry: str, seat: int) -> Agent:
        kind = kinds[seat % len(kinds)]
        agent = Witness(factory.build(entry, kind, game), random.Random(rng.random()), noise)
        witnesses.append(agent)
        return agent

    spec = MatchSpec(
        match_id=f"{game}-{seed}",
        run_id="fuzz",
        game=game,
        rules=rules,
        seed=seed,
        seats=[f"entry{s % len(kinds)}" for s in range(16)],
    )
    sink = MemorySink()
    result = MatchRunner(spec, make, [sink], POLICY).play()  # (seats past the game's unused)
    return Played(sink.events, result, witnesses)
