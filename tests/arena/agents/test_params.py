"""Agent params: each kind's model, one validation, and the capabilities agents declare."""

from __future__ import annotations

import pytest

from arena.agents import factory
from arena.agents.base import KeepsCallRecords, Preflights, TracksTimeouts
from arena.agents.llm_agent import LLMAgent
from arena.agents.llm_params import LLMAgentParams
from arena.agents.params import KeywordParams, ParamsError, as_written
from arena.agents.random_agent import RandomAgent


def test_each_kind_types_its_params_or_lists_every_problem() -> None:
    typed = factory.typed_params("llm", "werewolf", {"style": "Be brief.", "decide": "rank"})
    assert isinstance(typed, LLMAgentParams) and as_written(typed) == {
        "style": "Be brief.",
        "decide": "rank",
    }
    bot = factory.typed_params("werewolf.rule", "werewolf", {"slip": 0.5})
    assert isinstance(bot, KeywordParams) and as_written(bot) == {"slip": 0.5}
    with pytest.raises(ParamsError) as err:
        factory.typed_params("llm", "werewolf", {"decide": "maybe", "stlye": "x"})
    assert len(err.value.problems) == 2 and err.value.problems[1] == "params.stlye: unknown field"
    with pytest.raises(ParamsError, match="slip must be a probability"):
        factory.typed_params("werewolf.rule", "werewolf", {"slip": 2})


def test_typed_params_are_handed_on_as_they_are() -> None:
    typed = LLMAgentParams.model_validate({"style": "Be brief."})
    assert factory.typed_params("llm", "werewolf", typed) is typed
    agent = factory.build("m", "llm", "werewolf", typed)
    assert (
        isinstance(agent, LLMAgent)
        and agent.config is typed
        and agent.params == {"style": "Be brief."}
    )


def test_a_mapping_outside_a_config_is_typed_once_and_refused_naming_the_agent() -> None:
    assert isinstance(factory.build("r", "random", "toy", {"p_speak": 0.5}), RandomAgent)
    with pytest.raises(ValueError, match=r"^m \(llm\): params.decide: Input should be"):
        factory.build("m", "llm", "werewolf", {"decide": "maybe"})


def test_optional_capabilities_are_protocols_to_isinstance() -> None:
    llm = LLMAgent("m")
    assert isinstance(llm, Preflights) and isinstance(llm, KeepsCallRecords)
    assert isinstance(llm, TracksTimeouts)
    bot = RandomAgent("r")
    assert not isinstance(bot, Preflights) and not isinstance(bot, KeepsCallRecords)
