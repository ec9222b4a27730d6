"""The conformance suite: every registered game, every catalog variant, with no per-game code.

The checks are the importable :mod:`arena.testing` (what a game outside this repository runs
on itself); here they are parametrised over ``arena.registry.games()`` and each game's
``variants`` (a game without variants runs its default rules), so registering a game is enough
to be checked. Per-seat view equality and declared event types are checked by the sibling
suites ``test_conformance_views.py`` and ``test_conformance_events.py``. How to add a game:
``docs/adding-a-game.md``.
"""

from __future__ import annotations

from typing import Any

import pytest

from arena import registry, testing
from arena.env import EnvOrderError


def variants() -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (game, name, rules)
        for game in registry.games()
        for name, rules in testing.variants(game).items()
    ]


def bots() -> list[tuple[str, str, dict[str, Any], str]]:
    """Each bot alone on its game's first variant (every variant: the mixed test below)."""
    out = []
    for game in registry.games():
        name, rules = next(iter(testing.variants(game).items()))
        out += [(game, name, rules, bot) for bot in testing.lineup(game)]
    return out


VARIANTS = variants()
IDS = [f"{g}-{v}" for g, v, _ in VARIANTS]
BOTS = bots()
BOT_IDS = [f"{g}-{v}-{b}" for g, v, _, b in BOTS]


# -- the env ------------------------------------------------------------------------------
@pytest.mark.parametrize("game", sorted(registry.games()))
def test_env_ids_carry_versions_and_find_the_game(game: str) -> None:
    testing.check_registration(game)


@pytest.mark.parametrize(("game", "variant", "rules"), VARIANTS, ids=IDS)
def test_pettingzoo_api_test(game: str, variant: str, rules: dict[str, Any]) -> None:
    testing.check_api(game, rules)


@pytest.mark.parametrize(("game", "variant", "rules"), VARIANTS, ids=IDS)
def test_pettingzoo_seed_test(game: str, variant: str, rules: dict[str, Any]) -> None:
    testing.check_seeding(game, rules)


@pytest.mark.parametrize("game", sorted(registry.games()))
def test_step_before_reset_is_a_clear_error(game: str) -> None:
    testing.check_call_order(game, {})
    env = testing.make_env(game, {})
    with pytest.raises(EnvOrderError, match=r"call reset\(\) before step\(\)"):
        env.step(None)


@pytest.mark.parametrize(("game", "variant", "rules"), VARIANTS, ids=IDS)
def test_env_truncates_within_max_cycles_and_terminates_without(
    game: str, variant: str, rules: dict[str, Any]
) -> None:
    testing.check_max_cycles(game, rules)


# -- determinism and snapshots ------------------------------------------------------------
@pytest.mark.parametrize(("game", "variant", "rules"), VARIANTS, ids=IDS)
def test_same_rules_seed_and_decisions_give_the_same_events(
    game: str, variant: str, rules: dict[str, Any]
) -> None:
    testing.check_determinism(game, rules, seed=3)


@pytest.mark.parametrize(("game", "variant", "rules"), VARIANTS, ids=IDS)
def test_snapshot_restore_mid_game_continues_exactly(
    game: str, variant: str, rules: dict[str, Any]
) -> None:
    testing.check_snapshot_restore(game, rules, seed=5)


# -- bots ---------------------------------------------------------------------------------
@pytest.mark.parametrize(("game", "variant", "rules", "kind"), BOTS, ids=BOT_IDS)
def test_every_registered_bot_plays_legally_under_the_runner(
    game: str, variant: str, rules: dict[str, Any], kind: str
) -> None:
    testing.check_bot(game, rules, kind)


@pytest.mark.parametrize(("game", "variant", "rules"), VARIANTS, ids=IDS)
def test_the_games_bots_play_legally_together(
    game: str, variant: str, rules: dict[str, Any]
) -> None:
    testing.check_bots_together(game, rules)


# -- leak fuzz ----------------------------------------------------------------------------
@pytest.mark.parametrize(("game", "variant", "rules"), VARIANTS, ids=IDS)
def test_no_seat_is_shown_a_private_fact_outside_its_audience(
    game: str, variant: str, rules: dict[str, Any]
) -> None:
    testing.check_no_leaks(game, rules)
