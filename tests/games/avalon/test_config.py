"""Setup table rows, role presets and config validation (spec avalon.md §2, §3.3, §6)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from games.avalon.config import AvalonRules, fails_needed, team_size
from games.avalon.rules import AvalonEngine

TABLE = {
    5: (3, 2, [2, 3, 2, 3, 3], [1, 1, 1, 1, 1]),
    6: (4, 2, [2, 3, 4, 3, 4], [1, 1, 1, 1, 1]),
    7: (4, 3, [2, 3, 3, 4, 4], [1, 1, 1, 2, 1]),
    8: (5, 3, [3, 4, 4, 5, 5], [1, 1, 1, 2, 1]),
    9: (6, 3, [3, 4, 4, 5, 5], [1, 1, 1, 2, 1]),
    10: (6, 4, [3, 4, 4, 5, 5], [1, 1, 1, 2, 1]),
}


@pytest.mark.parametrize("n", sorted(TABLE))
def test_setup_table_row_sets_sides_team_sizes_and_fails(n: int) -> None:
    good, evil, sizes, fails = TABLE[n]
    assert [team_size(n, q) for q in range(1, 6)] == sizes
    assert [fails_needed(n, q) for q in range(1, 6)] == fails
    for preset in ("basic", "percival_morgana"):
        eng = AvalonEngine({"n_players": n, "role_preset": preset}, seed=n)
        sides = list(eng.teams().values())
        assert sides.count("good") == good and sides.count("evil") == evil
        st = eng.state(None)
        assert st["team_sizes"] == sizes and st["fails_needed"] == fails
        setup = eng.log[0].payload
        assert setup["team_sizes"] == sizes and setup["fails_needed"] == fails


@pytest.mark.parametrize("n", sorted(TABLE))
def test_basic_preset_is_merlin_servants_assassin_minions(n: int) -> None:
    good, evil, _, _ = TABLE[n]
    roles = sorted(AvalonEngine({"n_players": n}, seed=1).roles().values())
    expected = ["merlin"] + ["servant"] * (good - 1) + ["assassin"] + ["minion"] * (evil - 1)
    assert roles == sorted(expected)


def test_percival_morgana_preset_adds_both_roles() -> None:
    roles = list(AvalonEngine({"n_players": 7, "role_preset": "percival_morgana"}).roles().values())
    assert roles.count("percival") == 1 and roles.count("morgana") == 1
    assert roles.count("servant") == 2 and roles.count("minion") == 1


def test_explicit_roles_imply_custom_preset_and_accept_aliases() -> None:
    r = AvalonRules(
        n_players=5, roles=["Merlin", "loyal_servant", "servant", "assassin", "mordred"]
    )
    assert r.role_preset == "custom" and r.role_list().count("mordred") == 1


@pytest.mark.parametrize(
    ("flags", "field"),
    [
        ({"roles": ["percival", "servant", "servant", "assassin", "minion"]}, "roles"),
        ({"roles": ["merlin", "servant", "servant", "minion", "minion"]}, "roles"),
        ({"roles": ["merlin", "servant", "assassin", "morgana", "mordred"]}, "roles"),
        ({"roles": ["merlin", "merlin", "servant", "assassin", "minion"]}, "roles"),
        ({"roles": ["merlin", "servant", "servant", "assassin"]}, "roles"),
        ({"roles": ["merlin", "servant", "servant", "assassin", "dragon"]}, "roles"),
        ({"role_preset": "custom"}, "roles"),
        ({"role_preset": "basic", "roles": ["merlin", "servant", "servant", "assassin", "minion"]}, "roles"),
        ({"first_leader": 5}, "first_leader"),
        ({"preset": "avalonbench", "n_players": 7}, "n_players"),
        ({"n_players": 11}, "n_players"),
        ({"discussion_pre_rounds": 4}, "discussion_pre_rounds"),
        ({"conference_rounds": 0}, "conference_rounds"),
        ({"belief_reports": "sometimes"}, "belief_reports"),
        ({"unknown_flag": True}, "unknown_flag"),
    ],
)  # fmt: skip
def test_impossible_configs_raise_naming_the_field(flags: dict, field: str) -> None:
    with pytest.raises((ValidationError, ValueError)) as err:
        AvalonRules(**flags)
    assert field in str(err.value)


def test_more_special_evil_roles_than_evil_seats_is_rejected() -> None:
    roles = ["merlin", "percival", "servant", "assassin", "morgana", "mordred", "oberon"]
    with pytest.raises(ValidationError, match="roles: 4 evil roles but 7 players have only 3"):
        AvalonRules(n_players=7, roles=roles)


def test_morgana_without_percival_warns() -> None:
    with pytest.warns(UserWarning, match="Morgana without Percival"):
        AvalonRules(roles=["merlin", "servant", "servant", "assassin", "morgana"])


def test_avalonbench_preset_sets_its_flags_and_explicit_flags_win() -> None:
    r = AvalonRules(preset="avalonbench")
    assert (r.n_players, r.fifth_proposal_rule, r.good_must_succeed) == (5, "auto_approve", False)
    assert (r.knowledge_model, r.assassination_conference) == ("full_reveal", "none")
    assert AvalonRules(preset="avalonbench", discussion_pre_rounds=0).discussion_pre_rounds == 0


def test_defaults_match_the_spec() -> None:
    r = AvalonRules()
    assert r.n_players == 5 and r.role_preset == "basic" and r.fifth_proposal_rule == "hammer"
    assert r.good_must_succeed and r.knowledge_model == "standard" and not r.evil_see_roles
    assert r.vote_reveal == "named" and r.first_leader == "random"
    assert (r.discussion_pre_rounds, r.discussion_post_rounds, r.max_message_chars) == (1, 0, 800)
    assert r.assassination_conference == "evil_team" and r.conference_rounds == 1
    assert not r.lady_of_the_lake and r.belief_reports == "end" and r.reveal_roles_at_end
    assert r.reward_scheme == "pm1"
