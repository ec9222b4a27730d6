"""PettingZoo: registration, api_test and seed_test for the default and every variant."""

from __future__ import annotations

import pettingzoo
import pytest
from pettingzoo import AECEnv
from pettingzoo.test import api_test, seed_test

import arena  # noqa: F401  (registers the games with PettingZoo)
from games.catalog import GAMES
from games.werewolf.env import env

VARIANTS = GAMES[0].variants


def test_make_returns_an_aec_env_with_the_rules() -> None:
    e = pettingzoo.make("aec", "arena/Werewolf-v0", preset="agentscope9")
    assert isinstance(e, AECEnv)
    e.reset(seed=1)
    assert e.unwrapped.engine.rules.n_players == 9
    assert len(e.possible_agents) == 9


def test_env_docstring_is_the_doc_table() -> None:
    import games.werewolf.env as mod

    assert "| Agents |" in (mod.__doc__ or "") and "Variants" in (mod.__doc__ or "")


def test_full_game_through_the_env_ends_with_team_rewards() -> None:
    e = env(belief_reports="none")
    e.reset(seed=4)
    final: dict[str, float] = {}
    for agent in e.agent_iter(max_iter=5000):
        obs, reward, term, trunc, info = e.last()
        if term or trunc:
            final[agent] = reward
            e.step(None)
            continue
        legal = info["legal"]
        e.step(legal[obs["legal"].argmax()] if legal else "pass")
    outcome = e.unwrapped.engine.outcome()
    assert outcome is not None
    teams = e.unwrapped.engine.teams()
    assert final == {f"player_{s}": outcome.rewards[s] for s in teams}


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_api_and_seed_tests_pass(name: str) -> None:
    rules = VARIANTS[name]
    api_test(pettingzoo.make("aec", "arena/Werewolf-v0", **rules), num_cycles=8)
    seed_test(lambda: pettingzoo.make("aec", "arena/Werewolf-v0", **rules), num_cycles=8)
