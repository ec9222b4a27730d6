"""PettingZoo: registration, the doc table, a full game through the env. (api_test and
seed_test of every variant: tests/games/test_conformance.py.)"""

from __future__ import annotations

import pettingzoo
from pettingzoo import AECEnv

import arena  # noqa: F401  (registers the games with PettingZoo)
from games.werewolf.env import env


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
