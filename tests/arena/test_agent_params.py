"""Agent params: a typo is an error naming the accepted parameters, for every bot of every game.

The accepted names come from each agent's own declaration (named ``__init__`` arguments and
``PARAMS``), so a parameter a bot gains is accepted without touching the check."""

from __future__ import annotations

from typing import Any

import pytest

from arena import registry
from arena.agents import factory
from arena.agents.base import Agent
from arena.agents.random_agent import RandomAgent
from arena.types import Action, Decision, Observation

BOTS = sorted((game, bot) for game in registry.games() for bot in registry.bots(game))


@pytest.mark.parametrize(("game", "bot"), BOTS)
def test_an_unknown_parameter_is_refused_naming_the_accepted_ones(game: str, bot: str) -> None:
    kind = f"{game}.{bot}"
    cls = factory.resolve(kind, game)
    problems = factory.param_problems(kind, game, {"no_such_param": 1})
    assert len(problems) == 1 and "unknown parameter(s) ['no_such_param']" in problems[0]
    accepted = sorted(cls.accepted_params())
    assert problems[0].endswith("accepted: " + (", ".join(accepted) or "none"))
    with pytest.raises(ValueError, match="no_such_param"):
        factory.build("x", kind, game, {"no_such_param": 1})


@pytest.mark.parametrize(("game", "bot"), BOTS)
def test_no_parameters_build_every_bot(game: str, bot: str) -> None:
    assert factory.param_problems(f"{game}.{bot}", game, {}) == []


def test_declared_parameters_are_accepted() -> None:
    assert factory.param_problems("random", "toy", {"p_speak": 0.5}) == []
    assert factory.param_problems("random", "toy", {"p_spek": 0.5}) == [
        "params: unknown parameter(s) ['p_spek'] for random; accepted: p_speak"
    ]
    rule = {"seer_reveal": "immediately", "wolf_fake_claim_prob": 0.5, "p_self": 0.1}
    assert factory.param_problems("werewolf.rule", "werewolf", rule) == []
    assert factory.param_problems("werewolf.wolf", "werewolf", {"seer_reveal": "never"}) != []
    assert factory.param_problems("avalon.rule", "avalon", {"gamma": 2.0}) == []
    # rule bots' slip (a named argument) is accepted beside their role bots' parameters
    for kind, game in [("werewolf.rule", "werewolf"), ("avalon.rule", "avalon"),
                       ("price_bargaining.boulware", "price_bargaining")]:  # fmt: skip
        assert factory.param_problems(kind, game, {"slip": 0.25}) == [], kind
    assert factory.param_problems("werewolf.rule", "werewolf", {"slip": 2}) != []
    assert factory.param_problems("persona_dialogue.leaker", "persona_dialogue", {"p": 0.1}) == []


def test_refused_values_are_reported() -> None:
    problems = factory.param_problems("avalon.rule", "avalon", {"calibration": "wild"})
    assert problems == ["params: calibration must be one of ['calibrated', 'spec'], not 'wild'"]
    problems = factory.param_problems(
        "persona_dialogue.card_reader", "persona_dialogue", {"slip_mode": "sideways"}
    )
    assert problems == ["params: slip_mode must be leak, contradict or mixed"]


def test_llm_params_are_checked_against_their_schema() -> None:
    assert factory.param_problems("llm", "toy", {"style": "terse"}) == []
    assert factory.param_problems("llm", "toy", {"stlye": "terse"}) == [
        "params.stlye: unknown field"
    ]


class Tuned(RandomAgent):
    """A new parameter, declared either way, is accepted with no change to the check."""

    kind = "tuned"
    PARAMS = ("slip",)

    def __init__(self, name: str | None = None, depth: int = 1, **params: Any) -> None:
        super().__init__(name, **params)
        self.depth = depth


class Quiet(Agent):
    kind = "quiet"

    async def act(self, observation: Observation, decision: Decision) -> Action | str:
        return decision.option_ids[0]


def test_accepted_names_follow_the_class_hierarchy() -> None:
    assert Tuned.accepted_params() == {"slip", "depth", "p_speak"}
    assert Tuned.param_problems({"slip": 0.1, "depth": 2, "p_speak": 0.0}) == []
    assert Quiet.param_problems({"x": 1}) == [
        "params: unknown parameter(s) ['x'] for quiet; accepted: none"
    ]
