"""The frozen reference pools: one per registered game, each a valid gauntlet config whose
opponents never change under its name; harness health counts what the records say."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena import registry
from arena.results import MatchResult, SeatResult
from tournaments import config as tconfig
from tournaments.gauntlet import POOLS, gauntlet_config, harness_health

# The pools as first published: a change must be a new version, never an edit of these.
FROZEN_V1 = {
    "werewolf": ("werewolf.rule", {"preset": "classic8"}, 2801),
    "dealornodeal": ("dealornodeal.rule", {}, 2803),
}


def test_every_shipped_game_has_a_pool() -> None:
    shipped = {g for g, info in registry.games().items() if not info.engine.startswith("tests.")}
    assert set(POOLS) == shipped


@pytest.mark.parametrize("game", sorted(POOLS))
def test_each_pool_is_a_valid_gauntlet_config(game: str) -> None:
    pool = POOLS[game]
    config = tconfig.parse(gauntlet_config(pool, "http://127.0.0.1:8700"))
    assert config.format == "gauntlet" and config.master_seed == pool.master_seed
    assert config.ratings.freeze == [name for name, _, _ in pool.entries]
    assert config.agents[0].kind == "remote"


@pytest.mark.parametrize("game", sorted(FROZEN_V1))
def test_version_1_pools_are_frozen(game: str) -> None:
    kind, rules, seed = FROZEN_V1[game]
    pool = POOLS[game]
    assert pool.name == f"{game}-ref@1"
    assert (pool.rules, pool.master_seed) == (rules, seed)
    assert [(k, p) for _, k, p in pool.entries][:2] == [
        (kind, {"slip": 0.0}),
        (kind, {"slip": 0.5}),
    ]


def test_harness_health_counts_invalid_fallbacks_timeouts_and_forfeits(tmp_path: Path) -> None:
    seats = [
        SeatResult(seat=0, name="A", agent="mine", team="p0", role="r", reward=-1.0,
                   result="loss", invalid=3, fallbacks=1),
        SeatResult(seat=1, name="B", agent="ref", team="p1", role="r", reward=0.0,
                   result="win", invalid=0, fallbacks=0),
    ]  # fmt: skip
    result = MatchResult(
        match_id="m", run_id="r", game="dealornodeal", seed=1, index=0, repeat=0,
        status="forfeited", outcome="aborted", seats=seats,
    )  # fmt: skip
    lines = [
        {"type": "ground_truth", "payload": {"seats": {"0": "mine", "1": "ref"}}},
        {"type": "invalid_action", "actor": 0, "payload": {"error": "no answer within 0.2s"}},
        {"type": "invalid_action", "actor": 0, "payload": {"error": "illegal option(s)"}},
        {"type": "invalid_action", "actor": 0, "payload": {"error": "no answer within 0.2s"}},
    ]
    (tmp_path / "m.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    health = harness_health([result], tmp_path)
    assert health["mine"] == {
        "seats": 1,
        "invalid": 3,
        "fallbacks": 1,
        "timeouts": 2,
        "forfeits": 1,
    }
    assert health["ref"] == {"seats": 1, "invalid": 0, "fallbacks": 0, "timeouts": 0, "forfeits": 0}
