"""Plumbing shared by the Werewolf bots: seeded RNG, the seat's View, dispatch by decision kind,
and the random-legal baseline (spec §13.1)."""

from __future__ import annotations

import random
import re
from typing import Any

from arena.agents.base import Agent, MatchContext
from arena.types import Action, Decision, Observation
from games.werewolf.suspicion import WOLF_ROLE, View

FILLER = "I have nothing to add yet."


def seat_options(decision: Decision) -> list[int]:
    """The option ids of ``decision`` that are seat numbers, in option order."""
    return [int(o) for o in decision.option_ids if o.isdigit()]


def silent(decision: Decision) -> Action:
    if decision.silent_option:
        return Action(choices=(decision.silent_option,))
    return Action(choices=(decision.option_ids[0],))


def say(decision: Decision, text: str) -> Action:
    if not decision.free_text:
        return silent(decision)
    return Action(text=text[: decision.max_chars])


class WerewolfBot(Agent):
    """Shared plumbing: seeded RNG, the seat's :class:`View`, decision dispatch by kind."""

    kind = "werewolf.bot"

    def __init__(self, name: str | None = None, **params: Any) -> None:
        super().__init__(name, **params)
        self.rng = random.Random(0)
        self.view: View | None = None

    def reset(self, context: MatchContext) -> None:
        super().reset(context)
        self.rng = random.Random(context.seed)
        self.view = None

    def sync(self, obs: Observation) -> View:
        if self.view is None:
            ctx = self.context
            names = list(ctx.names) if ctx and ctx.names else list(obs.state.get("names") or [])
            self.view = View(obs.seat, names, ctx.rules if ctx else {})
            self.on_view(self.view)
        self.view.update(obs.events, obs.state)
        return self.view

    def on_view(self, view: View) -> None:
        """Hook: attach models to a freshly created view."""

    async def act(self, observation: Observation, decision: Decision) -> Action | str:
        self.sync(observation)
        handler = getattr(self, f"on_{decision.kind}", None)
        answer = handler(decision) if handler is not None else None
        return answer if answer is not None else self.random_legal(decision)

    # -- helpers -------------------------------------------------------------------------
    def random_legal(self, decision: Decision) -> Action:
        if decision.belief_only:
            return silent(decision)
        if decision.free_text and decision.silent_option:
            return silent(decision)
        ids = decision.option_ids
        k = max(1, decision.min_choices)
        return Action(choices=tuple(self.rng.sample(ids, k)))

    def pick_max(self, candidates: list[int], score: dict[int, float]) -> int:
        """argmax of ``score`` over ``candidates``; ties broken by the bot RNG."""
        best = max(score[c] for c in candidates)
        tied = sorted(c for c in candidates if score[c] == best)
        return tied[0] if len(tied) == 1 else self.rng.choice(tied)

    def addressed(self) -> bool:
        """Own name appears as a whole word in the previous message by someone else."""
        view = self.view
        if view is None or view.last_message is None or view.last_message[0] == view.me:
            return False
        name = re.escape(view.names[view.me])
        return re.search(rf"\b{name}\b", view.last_message[1], re.IGNORECASE) is not None


class RandomLegalBot(WerewolfBot):
    """Spec §13.1: uniform legal choices, bids 0-4, rare filler speech, prior beliefs."""

    kind = "werewolf.random"

    def __init__(self, name: str | None = None, p_speak: float = 0.2, **params: Any) -> None:
        super().__init__(name, p_speak=p_speak, **params)
        self.p_speak = p_speak

    async def act(self, observation: Observation, decision: Decision) -> Action | str:
        if decision.belief_only:
            return Action(belief=self.prior(observation))
        if decision.free_text:
            if self.rng.random() < self.p_speak or not decision.options:
                return Action(text=FILLER[: decision.max_chars])
            return silent(decision)
        return Action(choices=(self.rng.choice(decision.option_ids),))

    def prior(self, obs: Observation) -> dict[str, float]:
        n = len(obs.state.get("names") or (self.context.names if self.context else []))
        wolves = 0
        for e in obs.events:
            if e.type == "setup":
                wolves = int(e.payload.get("composition", {}).get(WOLF_ROLE, 0))
        p = wolves / (n - 1) if n > 1 else 0.0
        return {str(j): p for j in range(n) if j != obs.seat}
