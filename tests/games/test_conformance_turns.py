"""The env's turn order reveals nothing hidden (issue 15, item 3), for every game and variant.

Code that watches ``agent_selection`` (a logger, a wrapper, another seat's harness) must not
learn who holds a hidden role. Stepping only through the seats that act at night would show
the wolves, the seer and the doctor; the env instead cycles through every seat in seat order,
giving a ``wait`` turn to a seat that owes nothing, so the order is the same for every deal.
"""

from __future__ import annotations

import random
from typing import Any

import pettingzoo
import pytest

from arena import registry
from tests.games.fingerprints import _answer, variants

VARIANTS = variants()
IDS = [f"{g}-{v or 'rules'}" for g, v, _, _ in VARIANTS]
SEEDS = 6


def selections(env: Any, seed: int) -> tuple[list[str], list[int]]:
    """The agents selected while the game is live and, per step, how many events it added;
    answers are the fingerprint driver's (mostly legal, some free text, some refused)."""
    rng = random.Random(seed)
    env.reset(seed=seed)
    engine = env.unwrapped.engine
    order: list[str] = []
    added: list[int] = []
    for agent in env.agent_iter(max_iter=20_000):
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        order.append(agent)
        for other, other_info in env.infos.items():  # the others' infos tell nothing either
            if other != agent:
                assert set(other_info) == {"seat", "phase"}, other_info
        before = len(engine.log)
        if info["decision"] == "wait":
            assert not engine.owes(env.unwrapped._seat[agent])
            assert info["legal"] == ["wait"] and obs["legal"].tolist()[0] == 1
            assert obs["legal"].sum() == 1
            env.step(rng.choice(["wait", 0, "anything at all", '{"choice": "x"}']))
            assert len(engine.log) == before  # a wait turn changes nothing
        else:
            env.step(_answer(rng, info))
        added.append(len(engine.log) - before)
    assert engine.is_over()
    return order, added


@pytest.mark.parametrize(("game", "variant", "env_id", "rules"), VARIANTS, ids=IDS)
def test_agent_selection_is_one_fixed_cycle_whatever_the_deal(
    game: str, variant: str, env_id: str, rules: dict[str, Any]
) -> None:
    env = pettingzoo.make("aec", env_id, **rules)
    agents = env.possible_agents
    deals = set()
    for seed in range(SEEDS):
        order, _ = selections(env, seed)
        # the same sequence for every deal: seat order, round and round, until the game ends
        assert order == [agents[i % len(agents)] for i in range(len(order))], (game, seed)
        deals.add(tuple(sorted(env.unwrapped.engine.roles().items())))
    if registry.knowledge(game).hidden_roles:
        assert len(deals) > 1, "the seeds must deal the hidden roles differently"


def test_werewolf_nights_are_stepped_through_every_seat() -> None:
    """The example of the issue: at night, seats without a night role get wait turns too."""
    env = pettingzoo.make("aec", "arena/Werewolf-v0")
    env.reset(seed=3)
    engine = env.unwrapped.engine
    night_turns: dict[str, list[str]] = {}
    for agent in env.agent_iter(max_iter=5000):
        _, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        if engine.phase.startswith("night"):
            night_turns.setdefault(agent, []).append(info["decision"])
        if engine.phase.startswith("day"):
            break
        env.step(_answer(random.Random(len(engine.log)), info))
    roles = engine.roles()
    assert set(night_turns) == set(env.possible_agents)
    villagers = [a for a in env.possible_agents if roles[env.unwrapped._seat[a]] == "villager"]
    assert villagers and all(set(night_turns[a]) == {"wait"} for a in villagers)
    counts = {len(turns) for turns in night_turns.values()}
    assert max(counts) - min(counts) <= 1  # every seat had as many turns, give or take one
