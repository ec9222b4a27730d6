"""Determinism and snapshot/restore over bot games of the runner; the env played with text
actions. (api_test and seed_test of every env id and variant: tests/games/test_conformance.py.)"""

from __future__ import annotations

import pettingzoo
import pytest

import arena  # noqa: F401  (registers the games)
from games.negotiation.bots import BOTS_BARGAINING
from tests.games.negotiation.helpers import auction_engine, pie_engine, price_engine, split_engine
from tests.games.played import play_engine


def _ascending(seed: int):  # type: ignore[no-untyped-def]
    return auction_engine(seed, format="ascending", talk_each_tick=True, n_bidders=4)


MAKERS = [split_engine, price_engine, pie_engine, auction_engine, _ascending]


def _bots(n: int) -> list:  # type: ignore[type-arg]
    names = ["random", "boulware", "conceder", "greedy", "random", "truthful", "shader"]
    return [BOTS_BARGAINING[names[s % len(names)]]() for s in range(n)]


@pytest.mark.parametrize("make", MAKERS)
def test_same_seed_and_actions_give_the_same_log(make) -> None:  # type: ignore[no-untyped-def]
    for seed in range(20):
        a, b = make(seed), make(seed)
        actions = play_engine(a, _bots(a.n_seats), seed, strict=False).actions()
        for seat, action in actions:
            b.apply(seat, action)
        assert [e.model_dump() for e in a.log] == [e.model_dump() for e in b.log]
        assert a.outcome() == b.outcome()


@pytest.mark.parametrize("make", MAKERS)
def test_snapshot_restore_replays_identically(make) -> None:  # type: ignore[no-untyped-def]
    for seed in range(10):
        ref = make(seed)
        actions = play_engine(ref, _bots(ref.n_seats), seed, strict=False).actions()
        e = make(seed)
        half = len(actions) // 2
        for seat, action in actions[:half]:
            e.apply(seat, action)
        blob = e.snapshot()
        for seat, action in actions[half:]:
            e.apply(seat, action)
        first = [ev.model_dump() for ev in e.log]
        e.restore(blob)
        for seat, action in actions[half:]:
            e.apply(seat, action)
        assert [ev.model_dump() for ev in e.log] == first == [ev.model_dump() for ev in ref.log]


@pytest.mark.parametrize("env_id", ["arena/PriceBargaining-v0", "arena/Bargaining-v0"])
def test_env_plays_a_game_to_the_end_with_text_actions(env_id: str) -> None:
    env = pettingzoo.make("aec", env_id)
    env.reset(seed=3)
    seller = env.agent_selection
    env.step('{"choice": "offer:199", "text": "Best quality."}')
    env.step("accept")
    assert all(env.terminations.values())
    engine = env.unwrapped.engine if hasattr(env, "unwrapped") else env.engine
    assert env.rewards[seller] == 199 - engine.sc.r_s


@pytest.mark.parametrize(
    ("env_id", "mode"), [("arena/Auction-v0", {}), ("arena/Bargaining-v0", {"mode": "auction"})]
)
def test_auction_env_plays_to_the_end_with_text_actions(env_id: str, mode: dict) -> None:  # type: ignore[type-arg]
    env = pettingzoo.make("aec", env_id, pre_bid_talk_rounds=0, **mode)
    env.reset(seed=4)
    for answer in ("bid:80", '{"choice": "bid:60"}', "no_bid"):
        env.step(answer)
    assert all(env.terminations.values())
    engine = env.unwrapped.engine if hasattr(env, "unwrapped") else env.engine
    assert env.rewards["player_0"] == engine.sc.values[0] - 60
    assert env.rewards["player_1"] == env.rewards["player_2"] == 0
