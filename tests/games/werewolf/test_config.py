"""WerewolfRules: defaults, composition rule, presets and validation errors."""

from __future__ import annotations

from collections import Counter

import pytest
from pydantic import ValidationError

from games.catalog import GAMES
from games.werewolf.config import PRESETS, WerewolfRules

SPEC_TABLE = {  # §2: N -> (wolves, villagers)
    5: (1, 2), 6: (2, 2), 7: (2, 3), 8: (2, 4), 9: (2, 5), 10: (3, 5),
    11: (3, 6), 12: (3, 7), 13: (3, 8), 14: (4, 8), 15: (4, 9),
}  # fmt: skip


def test_default_is_classic8_composition() -> None:
    r = WerewolfRules()
    assert r.n_players == 8
    assert Counter(r.roles) == Counter(werewolf=2, seer=1, doctor=1, villager=4)
    assert r.belief_reports == "end" and r.max_days == 10 and r.tie_rule == "no_exile"


@pytest.mark.parametrize("n", sorted(SPEC_TABLE))
def test_composition_rule_matches_spec_table(n: int) -> None:
    counts = Counter(WerewolfRules(n_players=n).roles)
    assert (counts["werewolf"], counts["villager"]) == SPEC_TABLE[n]
    assert counts["seer"] == counts["doctor"] == 1


def test_secret_mafia_rounds_half_to_even() -> None:
    assert Counter(WerewolfRules(preset="secret_mafia", n_players=10).roles)["werewolf"] == 2
    assert Counter(WerewolfRules(n_players=10).roles)["werewolf"] == 3
    assert Counter(WerewolfRules(preset="secret_mafia", n_players=6).roles)["werewolf"] == 2


def test_explicit_flag_overrides_preset() -> None:
    r = WerewolfRules(preset="werewolf_arena", discussion_mode="round_robin")
    assert r.discussion_mode == "round_robin"
    assert r.wolf_decision == "single_random" and r.elimination_rule == "strict_majority"


def test_preset_with_player_count_uses_composition_rule() -> None:
    r = WerewolfRules(preset="werewolf_arena", n_players=10)
    assert len(r.roles) == 10 and Counter(r.roles)["werewolf"] == 3


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_preset_validates(preset: str) -> None:
    r = WerewolfRules(preset=preset)
    assert len(r.roles) == r.n_players


@pytest.mark.parametrize("name", sorted(GAMES[0].variants))
def test_every_catalog_variant_validates(name: str) -> None:
    WerewolfRules(**GAMES[0].variants[name])


def test_roles_list_sets_player_count() -> None:
    r = WerewolfRules(roles=["werewolf", "seer", "villager", "villager", "hunter", "witch"])
    assert r.n_players == 6


def _error(**kwargs: object) -> str:
    with pytest.raises(ValidationError) as err:
        WerewolfRules(**kwargs)
    return str(err.value)


def test_more_special_roles_than_players_is_rejected_naming_roles() -> None:
    msg = _error(n_players=5, roles=["werewolf", "seer", "doctor", "witch", "guard", "hunter"])
    assert "roles" in msg and "n_players" in msg


def test_wolves_at_parity_at_start_is_rejected() -> None:
    msg = _error(roles=["werewolf"] * 3 + ["villager"] * 3)
    assert "roles" in msg and "fewer than non-wolves" in msg


def test_no_wolf_is_rejected() -> None:
    assert "at least one werewolf" in _error(roles=["seer", "villager"] * 3)


def test_duplicate_specials_need_the_flag() -> None:
    roles = ["werewolf", "werewolf", "seer", "seer", "villager", "villager", "villager"]
    assert "allow_duplicate_specials" in _error(roles=roles)
    assert WerewolfRules(roles=roles, allow_duplicate_specials=True).roles == roles


def test_unknown_flag_is_rejected_naming_it() -> None:
    msg = _error(night_lenght=3)
    assert "night_lenght" in msg and "Extra inputs" in msg


def test_bad_value_names_the_field() -> None:
    assert "vote_mode" in _error(vote_mode="shouting")
    assert "n_players" in _error(n_players=4)
    assert "discussion_rounds" in _error(discussion_rounds=9)


def test_unknown_role_and_preset_are_rejected() -> None:
    assert "roles" in _error(roles=["werewolf", "vampire", "villager", "villager", "villager"])
    assert "preset" in _error(preset="nope")


def test_rules_are_frozen() -> None:
    r = WerewolfRules()
    with pytest.raises(ValidationError):
        r.max_days = 3  # type: ignore[misc]
