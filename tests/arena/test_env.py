"""The generic PettingZoo adapter, exercised on the toy game."""

from __future__ import annotations

import pettingzoo
import pytest
from pettingzoo.test import api_test, seed_test

import arena  # noqa: F401  (registers games)
from tests.arena.toygame import env


def test_api_test_passes() -> None:
    api_test(env(), num_cycles=200)


def test_seed_test_passes() -> None:
    seed_test(lambda: env(n_players=4), num_cycles=200)


def test_make_through_pettingzoo_registry() -> None:
    e = pettingzoo.make("aec", "arena/Toy-v0", n_players=5)
    e.reset(seed=1)
    assert e.possible_agents == [f"player_{i}" for i in range(5)]
    obs = e.observe(e.agent_selection)
    assert set(obs) == {"text", "legal"} and "Your secret is" in obs["text"]


def test_bad_rules_raise_naming_the_flag() -> None:
    with pytest.raises(ValueError, match="n_players"):
        env(n_players=99)
    with pytest.raises(ValueError, match="bogus"):
        env(bogus=1)


def test_invalid_actions_are_retried_then_replaced_by_a_recorded_fallback() -> None:
    e = env(invalid_retries=2)
    e.reset(seed=3)
    assert e.agent_selection == "player_0"
    e.step("{not json")  # free text is legal speech
    # drive to the vote phase, where free text is not legal
    while e.infos[e.agent_selection].get("decision") != "vote":
        e.step("pass")
    voter = e.agent_selection
    seat = int(voter.split("_")[1])

    def refuse_then_wait_for_the_next_turn() -> None:
        e.step("nobody")
        # the fixed cycle moves on (a seat that stayed selected would show it had a decision)
        assert e.agent_selection != voter
        while e.agent_selection != voter:
            e.step(0 if e.engine.owes(e._seat[e.agent_selection]) else "wait")

    refuse_then_wait_for_the_next_turn()
    assert "not a legal answer" in e.infos[voter]["error"]
    assert "not a legal answer" in e.observe(voter)["text"] and not e.fallbacks
    refuse_then_wait_for_the_next_turn()
    assert e.engine.owes(seat) and not e.fallbacks
    e.step("nobody")  # third refusal: fallback
    assert e.fallbacks and e.fallbacks[-1]["seat"] == seat
    assert e.agent_selection != voter


def test_game_runs_to_termination_with_rewards() -> None:
    e = env()
    e.reset(seed=9)
    total = {a: 0.0 for a in e.possible_agents}
    for agent in e.agent_iter(max_iter=10_000):
        _, reward, term, trunc, info = e.last()
        total[agent] += reward
        if term or trunc:
            e.step(None)
            continue
        e.step(0)  # option index 0: always legal
    assert not e.agents
    assert sorted(set(total.values())) in ([-1.0], [-1.0, 1.0])


def test_sanitize_maps_exactly_the_characters_outside_the_charset() -> None:
    import random

    from arena.env import sanitize, unicode_charset

    charset = set(unicode_charset())
    rng = random.Random(0)
    for _ in range(500):
        codes = [
            rng.choice(
                [rng.randint(0, 0x7F), rng.randint(0x80, 0xFFFF), rng.randint(0x10000, 0x10FFFF)]
            )
            for _ in range(30)
        ]
        text = "".join(chr(c) for c in codes if not 0xD800 <= c <= 0xDFFF)
        assert sanitize(text, 10**6) == "".join(c if c in charset else "\ufffd" for c in text)
    assert sanitize("abcdef", 4) == "…def"
