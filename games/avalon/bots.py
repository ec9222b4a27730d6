"""Avalon baseline bots (spec avalon.md §8): `random` (random_legal) and `rule` (role-dispatching).

Bots read only their own Observation: ``obs.state`` (the engine's per-seat summary), falling
back to their private ``role`` event for their role. Each owns ``random.Random(context.seed)``.
"""

from __future__ import annotations

import random
from abc import abstractmethod
from typing import Any

from arena.agents.base import Agent, MatchContext
from arena.agents.slip import Slip
from arena.types import Action, Decision, Observation
from games.avalon.bot_evil import EvilStrategy, MerlinStrategy
from games.avalon.bot_servant import ServantStrategy
from games.avalon.config import side_of


def own_role(obs: Observation) -> str | None:
    """The seat's role from its state, else from its private ``role`` event or fact."""
    if obs.state.get("role"):
        return str(obs.state["role"])
    for e in obs.events:
        if e.type == "role" and e.payload.get("seat") == obs.seat:
            return str(e.payload["role"])
    for f in obs.private:
        if f.kind == "role" and f.owner == obs.seat:
            return str(f.value)
    return None


class AvalonBot(Agent):
    """Shared plumbing: seeded RNG, decision dispatch, synchronous ``decide`` for fast drivers."""

    kind = "avalon.bot"

    def __init__(self, name: str | None = None, **params: Any) -> None:
        super().__init__(name, **params)
        self.rng = random.Random(0)

    def reset(self, context: MatchContext) -> None:
        super().reset(context)
        self.rng = random.Random(context.seed)

    async def act(self, observation: Observation, decision: Decision) -> Action | str:
        return self.decide(observation, decision)

    @abstractmethod
    def decide(self, obs: Observation, d: Decision) -> Action:
        """This bot's answer to one decision."""


class RandomBot(AvalonBot):
    """`random_legal`: uniform legal choices, passes in discussion, reports the prior."""

    kind = "avalon.random"

    def decide(self, obs: Observation, d: Decision) -> Action:
        if d.kind == "belief":
            return Action(belief=prior_report(obs))
        if d.free_text and d.silent_option:
            return Action(choices=(d.silent_option,))
        ids = d.option_ids
        return Action(choices=tuple(self.rng.sample(ids, d.max_choices)))


def prior_report(obs: Observation) -> dict[str, float]:
    st, me = obs.state, obs.seat
    n = st["n_players"]
    mine = side_of(own_role(obs) or "servant")
    good_others = st["n_good"] - 1 if mine == "good" else st["n_good"]
    return {str(j): round(good_others / (n - 1), 6) for j in range(n) if j != me}


SPEC_DEFAULTS: dict[str, Any] = {
    "p_hint": 0.5, "p_conceal": 0.0,
    "delta": 0.05, "evidence": "hard", "p_fail": 0.7, "gamma": 1.0, "hammer_aware": False,
    "p_cover": 0.0, "p_bide": 0.0,
}  # fmt: skip
"""The literal §8 defaults (the uncalibrated bots; ``calibration="spec"``)."""

CALIBRATED: dict[str, Any] = {
    **SPEC_DEFAULTS,
    "p_conceal": 0.75,  # §8.3 concealment: Merlin approves a one-evil team on quest 1
    "delta": 0.15,  # §8.4 approval margin below the best team's P_clean
    "gamma": 3.0,  # §8.4 vote evidence: approvers of a failed team weigh 3x as evil
}
"""Calibrated defaults of ``avalon.rule`` (5 players, rule vs rule; docs/games/avalon.md)."""

CALIBRATIONS = {"calibrated": CALIBRATED, "spec": SPEC_DEFAULTS}


class RuleBot(AvalonBot):
    """`rule_bots` (§8.5): Merlin → merlin, Servant/Percival → belief_servant, evil → evil_aware.

    Parameters (all optional): ``calibration`` (``calibrated`` default, or ``spec`` for the
    literal §8 defaults) picks the base values; any of ``p_hint``, ``p_conceal`` (Merlin);
    ``delta``, ``evidence`` (``hard``/``soft``), ``p_fail``, ``gamma``, ``hammer_aware``
    (servant); ``p_cover``, ``p_bide`` (evil) overrides one of them. ``slip`` (0 default):
    the probability of a random-legal move (``avalon.random``'s) instead, decision by decision
    (:mod:`arena.agents.slip`).
    """

    kind = "avalon.rule"

    def __init__(self, name: str | None = None, slip: float = 0.0, **params: Any) -> None:
        super().__init__(name, **params)
        self.slips = Slip(slip, RandomBot, name)
        self.settings()  # refuse an unknown calibration or parameter before the match

    @classmethod
    def accepted_params(cls) -> frozenset[str]:
        """Its own arguments (``slip``), ``calibration`` and every calibrated value."""
        return super().accepted_params() | {"calibration", *SPEC_DEFAULTS}

    def reset(self, context: MatchContext) -> None:
        super().reset(context)
        self.slips.reset(context)
        self.strategy: Any = None

    def settings(self) -> dict[str, Any]:
        """Effective parameters: the chosen calibration overridden by explicit params."""
        params = dict(self.params)
        name = params.pop("calibration", "calibrated")
        if name not in CALIBRATIONS:
            raise ValueError(f"calibration must be one of {sorted(CALIBRATIONS)}, not {name!r}")
        unknown = set(params) - set(SPEC_DEFAULTS)
        if unknown:
            raise ValueError(f"unknown avalon.rule parameters: {sorted(unknown)}")
        return {**CALIBRATIONS[name], **params}

    def _strategy(self, obs: Observation) -> Any:
        if self.strategy is None:
            role = own_role(obs) or "servant"
            p = self.settings()
            if role == "merlin":
                self.strategy = MerlinStrategy(self.rng, p["p_hint"], p["p_conceal"])
            elif side_of(role) == "good":
                self.strategy = ServantStrategy(
                    self.rng, p["delta"], p["evidence"], p["p_fail"], p["gamma"],
                    p["hammer_aware"],
                )  # fmt: skip
            else:
                self.strategy = EvilStrategy(self.rng, role == "oberon", p["p_cover"], p["p_bide"])
        return self.strategy

    def decide(self, obs: Observation, d: Decision) -> Action:
        s, st = self._strategy(obs), obs.state
        if self.slips.now(d):
            bot = self.slips.bot
            assert isinstance(bot, RandomBot)
            return bot.decide(obs, d)
        k = d.kind
        if k == "propose":
            team = s.propose(st, d.max_choices)
            return Action(choices=tuple(str(j) for j in team))
        if k == "vote":
            return Action(choices=(s.vote(st),))
        if k == "quest":
            card = s.quest(st)
            return Action(choices=(card if card in d.option_ids else "success",))
        if k == "discuss":
            text = s.discuss(st)
            return Action(text=text[: d.max_chars]) if text else Action(choices=("pass",))
        if k == "confer":
            text = s.confer(st) if hasattr(s, "confer") else None
            return Action(text=text[: d.max_chars]) if text else Action(choices=("pass",))
        if k == "assassinate":
            options = [int(i) for i in d.option_ids]
            return Action(choices=(str(s.assassinate(st, options)),))
        if k == "lady":
            options = [int(i) for i in d.option_ids]
            pick = s.lady(st, options) if hasattr(s, "lady") else self.rng.choice(options)
            return Action(choices=(str(pick),))
        if k == "belief":
            return Action(belief=s.report(st))
        return Action(choices=(self.rng.choice(d.option_ids),))


BOTS: dict[str, type[AvalonBot]] = {
    "random": RandomBot,
    "random_legal": RandomBot,
    "rule": RuleBot,
}
