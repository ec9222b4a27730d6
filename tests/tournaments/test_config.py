"""Config validation: one message per problem, naming the field; nothing runs on bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.cli import main
from arena.errors import ConfigError
from tournaments import config as tconfig

GOOD = {
    "name": "t",
    "game": "toy",
    "rules": {"n_players": 3},
    "agents": [{"name": "a", "kind": "random"}, {"name": "b", "kind": "toy.lowest"}],
    "matches": 4,
}


def test_a_good_config_parses() -> None:
    cfg = tconfig.parse(dict(GOOD))
    assert cfg.game == "toy" and cfg.entry("b").kind == "toy.lowest"


@pytest.mark.parametrize(
    ("patch", "needle"),
    [
        ({"game": "chess"}, "registered games: "),
        ({"rules": {"n_players": 1}}, "rules.n_players"),
        ({"rules": {"wat": 1}}, "rules.wat: unknown field"),
        ({"agents": [{"name": "a", "kind": "nope"}]}, "agents.0.kind: unknown agent kind 'nope'"),
        (
            {"agents": [{"name": "a", "kind": "random"}, {"name": "a", "kind": "random"}]},
            "duplicate",
        ),
        ({"matches": -1}, "matches"),
        ({"seating": "by_team"}, "teams: seating 'by_team' needs"),
        ({"seating": "by_team", "teams": {"seat0": "zz"}}, "teams.seat0: unknown agent entry"),
        ({"surprise": True}, "surprise: unknown field"),
    ],
)
def test_bad_configs_name_the_field(patch: dict, needle: str) -> None:
    with pytest.raises(ConfigError) as info:
        tconfig.parse({**GOOD, **patch})
    assert any(needle in p for p in info.value.problems), info.value.problems


def test_cli_exits_2_and_writes_nothing_on_bad_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = tmp_path / "bad.yaml"
    cfg.write_text(
        f"game: chess\nagents: [{{name: a, kind: random}}]\noutput_dir: {tmp_path / 'runs'}\n"
    )
    assert main(["run", str(cfg)]) == 2
    assert "unknown game 'chess'" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()


def test_missing_or_broken_files_are_clear(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such file"):
        tconfig.load(tmp_path / "nope.yaml")
    bad = tmp_path / "x.yaml"
    bad.write_text("game: [unclosed\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        tconfig.load(bad)


def test_every_example_config_is_valid() -> None:
    examples = sorted((Path(__file__).parents[2] / "tournaments" / "examples").glob("*.yaml"))
    assert len(examples) >= 3
    for path in examples:
        tconfig.load(path)  # raises ConfigError naming the file and field


def problems_of(patch: dict) -> list[str]:
    with pytest.raises(ConfigError) as info:
        tconfig.parse({**GOOD, **patch})
    return info.value.problems


@pytest.mark.parametrize(
    "patch",
    [
        {"repeats": True},
        {"matches": 2.0},
        {"matches": "4"},
        {"concurrency": False},
        {"master_seed": 1.5},
        {"policy": {"retries": True}},
        {"ratings": {"bootstrap": 500.0}},
        {"format": "rating_driven", "rating_driven": {"budget": True}},
        {"rules": {"n_players": True}},
        {"lineups": [{"a": True, "b": 2}]},
    ],
)
def test_numbers_are_strict(patch: dict) -> None:
    """`repeats: true` is not 1, `matches: 2.0` is not 2: every such value is an error."""
    problems = problems_of(patch)
    assert len(problems) == 1, problems


def test_every_problem_is_reported_not_only_the_field_errors() -> None:
    problems = problems_of(
        {
            "matches": 0,  # a field error
            "agents": [{"name": "a", "kind": "nope"}, {"name": "b", "kind": "toy.lowest"}],
            "lineups": [["a", "b", "zz"]],  # cross-field: an unknown entry
            "seating": "by_team",  # cross-field: no teams, and lineups exclude it
        }
    )
    text = "\n".join(problems)
    assert "matches: Input should be greater than or equal to 1" in text
    assert "agents.0.kind: unknown agent kind 'nope'" in text
    assert "lineups.0: unknown agent entry(ies) ['zz']" in text
    assert "teams: seating 'by_team' needs a teams mapping" in text
    assert len(problems) == 5, problems


def test_an_invalid_entry_keeps_its_place_for_the_other_checks() -> None:
    problems = problems_of(
        {
            "agents": [{"name": "a", "kind": "random", "extra": 1}, {"name": "b", "kind": "zz"}],
            "lineups": [["a", "b", "a"]],
        }
    )
    assert len(problems) == 2, problems
    assert problems[0] == "config: agents.0.extra: unknown field"
    assert problems[1].startswith("config: agents.1.kind: unknown agent kind 'zz'; choices")


def test_a_cross_field_problem_about_an_invalid_field_is_not_repeated() -> None:
    problems = problems_of(
        {"format": "swiss", "gauntlet": {"candidates": ["a"], "baselines": ["b"]}}
    )
    assert len(problems) == 1 and problems[0].startswith("config: format: "), problems


@pytest.mark.parametrize(
    ("lineup", "needle"),
    [
        ({"a": 2, "b": "x"}, "mixes forms; {entry: seats} takes whole numbers"),
        (["a", 3, "b"], "a seat list names agent entries"),
        ({"vs": ["a", 1]}, "a head-to-head is {vs: [entry, entry]}"),
        ({"vs": "a"}, "a head-to-head is {vs: [entry, entry]}"),
        ("a", "a lineup is a seat list"),
        (7, "a lineup is a seat list"),
        ({}, "a lineup is a seat list"),
    ],
)
def test_a_malformed_lineup_is_one_line(lineup: object, needle: str) -> None:
    problems = problems_of({"lineups": [lineup]})
    assert len(problems) == 1 and needle in problems[0], problems
    assert problems[0].startswith("config: lineups.0: ")


def test_lineups_of_the_wrong_type_are_one_line() -> None:
    assert problems_of({"lineups": "everyone"}) == [
        "config: lineups: a list of lineups, or 'pairs'"
    ]


def test_union_errors_are_one_line_naming_the_forms() -> None:
    from pydantic import BaseModel, ValidationError

    from arena.errors import describe_validation

    class M(BaseModel):
        persona: str | dict[str, int] | None = None

    with pytest.raises(ValidationError) as info:
        M.model_validate({"persona": 3})
    assert describe_validation(info.value) == [
        "persona: does not have any accepted form (str, dict[str,int])"
    ]


def test_an_agent_param_typo_names_the_accepted_parameters() -> None:
    problems = problems_of(
        {
            "agents": [
                {"name": "a", "kind": "random", "params": {"p_spek": 0.5}},
                {"name": "b", "kind": "toy.lowest"},
            ]
        }
    )
    assert problems == [
        "config: agents.0.params: unknown parameter(s) ['p_spek'] for random; accepted: p_speak"
    ]


def test_a_plan_past_the_limit_is_an_error_and_the_limit_can_be_raised() -> None:
    big = {"matches": 1000, "repeats": 200}
    assert "200,000 matches" in problems_of(big)[0]
    assert tconfig.parse({**GOOD, **big}, max_planned=200_000).repeats == 200
    pairs = {"lineups": "pairs", "matches": 100_001}
    assert "100,001 matches" in problems_of(pairs)[0]


@pytest.mark.parametrize(
    ("patch", "stage_one"),
    [
        ({"game": "chess"}, "game: unknown game 'chess'"),
        ({"game": 5}, "game: Input should be a valid string"),
        ({"rules": {"n_players": "three"}}, "rules.n_players"),
        ({"rules": {"n_players": 1}}, "rules.n_players"),
        ({"matches": 0, "concurrency": True}, "matches"),
    ],
)
def test_every_stage_reports_in_one_pass(patch: dict, stage_one: str) -> None:
    """A bad field value, game or rules and an unknown entry in a lineup, a team mapping and
    the frozen list: all reported at once, whichever check found them."""
    raw = {
        **GOOD,
        "lineups": [{"a": 2, "nobody": 1}, ["a", "b", "ghost"]],
        "ratings": {"freeze": ["phantom"]},
        **patch,
    }
    with pytest.raises(ConfigError) as info:
        tconfig.parse(raw)
    found = info.value.problems
    for needle in (
        stage_one,
        "lineups.0.nobody: unknown agent entry",
        "lineups.1: unknown agent entry(ies) ['ghost']",
        "ratings.freeze.0: unknown agent entry 'phantom'",
    ):
        assert any(needle in p for p in found), (needle, found)
