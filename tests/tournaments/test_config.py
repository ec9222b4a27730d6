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
