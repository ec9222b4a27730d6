"""`arena play` and human entries in `arena run`: clear refusals without a terminal, and the
config a `--seat` builds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from app.cli import main
from app.commands import play
from arena.errors import ConfigError
from tournaments.config import parse
from tournaments.schedule import plan


def write(tmp_path: Path, **fields: Any) -> Path:
    doc: dict[str, Any] = {
        "name": "p",
        "game": "werewolf",
        "rules": {"preset": "classic8"},
        "agents": [{"name": "rule", "kind": "werewolf.rule"}, {"name": "rnd", "kind": "random"}],
        "matches": 3,
        "seating": "balanced",
        "output_dir": str(tmp_path / "runs"),
    }
    doc.update(fields)
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    return path


def errors(capsys: pytest.CaptureFixture[str]) -> str:
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err + captured.out
    return captured.err


def test_arena_play_without_a_terminal_exits_2_before_writing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(play, "has_terminal", lambda: False)
    assert main(["play", str(write(tmp_path)), "--seat", "2"]) == 2
    err = errors(capsys)
    assert "error:" in err and "no terminal is attached" in err
    assert not (tmp_path / "runs").exists()


HUMAN = [{"name": "rule", "kind": "werewolf.rule"}, {"name": "me", "kind": "human"}]


@pytest.mark.parametrize("extra", [[], ["--check"]])
def test_a_human_entry_in_a_headless_run_is_a_config_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str]
) -> None:
    path = write(tmp_path, agents=HUMAN)
    assert main(["run", str(path), "--no-metrics", "--quiet", *extra]) == 2
    err = errors(capsys)
    assert "me is played by a person (kind: human)" in err and "--tui" in err
    assert not (tmp_path / "runs").exists()


def test_run_tui_with_a_human_entry_and_no_terminal_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(play, "has_terminal", lambda: False)
    path = write(tmp_path, agents=HUMAN)
    assert main(["run", str(path), "--tui", "--no-broker", "--no-metrics"]) == 2
    assert "no terminal is attached" in errors(capsys)
    assert not list((tmp_path / "runs").glob("*/arena.sqlite"))


def test_arena_play_needs_a_seat_to_play(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["play", str(write(tmp_path))]) == 2
    assert "no seat to play: give --seat N" in errors(capsys)


def _config(tmp_path: Path, **fields: Any) -> Any:
    return parse(yaml.safe_load(write(tmp_path, **fields).read_text()))


def test_seat_puts_the_human_at_that_seat_of_every_match_and_keeps_the_rest(
    tmp_path: Path,
) -> None:
    config = _config(tmp_path)
    original = plan(config)
    played = play.seat_humans(config, [2, 5], 3, "me")
    specs = plan(played)
    assert len(specs) == 3 and played.concurrency == 1
    for mine, theirs in zip(specs, original, strict=True):
        assert mine.seats[2] == mine.seats[5] == "me"
        assert [e for s, e in enumerate(mine.seats) if s not in (2, 5)] == [
            e for s, e in enumerate(theirs.seats) if s not in (2, 5)
        ]
    assert played.entry("me").kind == "human"
    assert play.headless_problems(played)


@pytest.mark.parametrize(
    ("seats", "needle"),
    [([8], "--seat 8: the game has seats 0-7"), ([1, 1], "--seat: each seat once")],
)
def test_a_bad_seat_is_named(tmp_path: Path, seats: list[int], needle: str) -> None:
    with pytest.raises(ConfigError, match=needle):
        play.seat_humans(_config(tmp_path), seats, 1, "me")


def test_a_by_team_config_asks_for_a_human_team_entry_instead(tmp_path: Path) -> None:
    config = _config(tmp_path, seating="by_team", teams={"village": "rule", "wolves": "rnd"})
    with pytest.raises(ConfigError, match="seats its agents by team"):
        play.seat_humans(config, [0], 1, "me")


def test_the_name_of_another_entry_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="--name rule"):
        play.seat_humans(_config(tmp_path), [0], 1, "rule")


def test_human_timeout_sets_the_persons_limit_and_leaves_the_bots_policy(
    tmp_path: Path,
) -> None:
    config = play.seat_humans(_config(tmp_path), [2], 1, "me")
    timed = play.human_timeout(config, 45.0)
    assert timed.entry("me").written() == {"timeout_s": 45.0}
    assert timed.entry("rule").written() == {} and timed.policy == config.policy
    with pytest.raises(ConfigError, match="--human-timeout: seconds > 0"):
        play.human_timeout(config, 0)


def test_a_bad_human_timeout_is_refused_before_anything_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path)
    assert main(["play", str(path), "--seat", "1", "--human-timeout", "-3"]) == 2
    assert "--human-timeout: seconds > 0, not -3" in errors(capsys)
    assert not (tmp_path / "runs").exists()


def test_a_human_entry_with_a_bad_time_limit_is_a_config_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    agents = [{"name": "rule", "kind": "werewolf.rule"}, {"name": "me", "kind": "human"}]
    agents[1]["params"] = {"timeout_s": "soon"}  # type: ignore[assignment]
    assert main(["play", str(write(tmp_path, agents=agents))]) == 2
    assert "timeout_s" in errors(capsys)
