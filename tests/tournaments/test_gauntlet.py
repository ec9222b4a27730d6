"""The frozen reference pools: one per registered game, each a valid gauntlet config whose
opponents never change under its name; harness health counts what the records say."""

from __future__ import annotations

import pytest

from arena import registry
from tournaments import config as tconfig
from tournaments.gauntlet import POOLS, gauntlet_config

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
    config = tconfig.parse(gauntlet_config(pool, "http://127.0.0.1:8700", "mine"))
    assert config.format in ("gauntlet", "round_robin") and config.master_seed == pool.master_seed
    # the bots are frozen, not their ratings: every entry is rated (and ranked) by the fit
    assert config.ratings.freeze == []
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


def test_in_a_faction_game_the_agent_takes_one_seat_and_its_roles_vary() -> None:
    """Werewolf: the agent sits once per match among an opponent's copies, its role balanced
    across matches (given a whole faction it held seer and doctor at once, every match, and
    its per-role ratings could not differ)."""
    from collections import Counter

    from tournaments.schedule import plan

    pool = POOLS["werewolf"]
    config = tconfig.parse(gauntlet_config(pool, "http://127.0.0.1:8700", "mine"))
    engine_cls = registry.engine_class("werewolf")
    roles: Counter[str] = Counter()
    for spec in plan(config, "r"):
        (seat,) = [s for s, entry in enumerate(spec.seats) if entry == "mine"]
        roles[engine_cls(config.rules, seed=spec.seed).roles()[seat]] += 1
    assert {"seer", "doctor", "werewolf", "villager"} <= set(roles)
    opponents = {name for name, _, _ in pool.entries}
    assert {e for spec in plan(config, "r") for e in spec.seats} == opponents | {"mine"}
