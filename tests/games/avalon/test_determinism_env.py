"""Determinism, snapshot/restore and a full game through the PettingZoo env. (api_test and
seed_test of every catalog variant: tests/games/test_conformance.py.)"""

from __future__ import annotations

import random

import pettingzoo
import pytest

import arena  # noqa: F401  (registers arena/Avalon-v0)
from games.avalon.rules import AvalonEngine
from tests.games.avalon.helpers import random_policy, run

FLAGS = {"n_players": 7, "role_preset": "percival_morgana", "lady_of_the_lake": True,
         "belief_reports": "after_each_quest"}  # fmt: skip


def dump(eng: AvalonEngine) -> list[dict]:
    return [e.model_dump(mode="json") for e in eng.log]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_same_seed_and_actions_give_the_same_log(seed: int) -> None:
    a = AvalonEngine(FLAGS, seed=seed)
    trace = run(a, random_policy(random.Random(seed)))
    b = AvalonEngine(FLAGS, seed=seed)
    for seat, ans in trace:
        b.apply(seat, ans)
    assert dump(a) == dump(b) and a.outcome() == b.outcome()


def test_reset_replays_the_deal_and_different_seeds_differ() -> None:
    eng = AvalonEngine(FLAGS, seed=11)
    first = (eng.role_of, eng.leader)
    eng.reset(12)
    eng.reset(11)
    assert (eng.role_of, eng.leader) == first
    deals = {tuple(AvalonEngine(FLAGS, seed=s).role_of) for s in range(10)}
    assert len(deals) > 5


def test_snapshot_restore_continues_exactly() -> None:
    eng = AvalonEngine(FLAGS, seed=4)
    rng = random.Random(4)
    run(eng, random_policy(rng), until=lambda e: len(e.quests) == 2)
    blob, rng_state = eng.snapshot(), rng.getstate()
    run(eng, random_policy(rng))
    end_log = dump(eng)
    eng.restore(blob)
    rng.setstate(rng_state)
    run(eng, random_policy(rng))
    assert dump(eng) == end_log
    fresh = AvalonEngine({}, seed=0)
    fresh.restore(blob)
    assert len(fresh.quests) == 2 and fresh.rules == eng.rules


def test_fallback_for_a_good_quest_card_is_success() -> None:
    eng = AvalonEngine({"discussion_pre_rounds": 0, "first_leader": 0}, seed=3)
    good = [s for s in range(5) if eng.side[s] == "good"][:2]
    eng.apply(0, ",".join(map(str, good)))
    for s in range(5):
        eng.apply(s, "approve")
    for s in good:
        fb = eng.fallback(s)
        assert fb.choices == ("success",)
        eng.apply(s, fb)


def test_env_plays_a_full_game_with_legal_option_indices() -> None:
    env = pettingzoo.make("aec", "arena/Avalon-v0", n_players=6, belief_reports="none")
    env.reset(seed=3)
    rng = random.Random(3)
    for _agent in env.agent_iter(max_iter=5000):
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        legal = [i for i, m in enumerate(obs["legal"]) if m]
        if info.get("decision") == "propose":
            ids = info["legal"]
            k = {6: [2, 3, 4, 3, 4]}[6][env.unwrapped.engine.quest - 1]
            env.step(",".join(rng.sample(ids, k)))
        else:
            env.step(rng.choice(legal))
    assert env.unwrapped.engine.is_over()
    assert not env.unwrapped.fallbacks
    assert set(env.rewards.values()) <= {-1.0, 1.0}
