"""`arena envs`: a filter names one game or is an error; --json obeys it; agent kinds listed."""

from __future__ import annotations

import json

import pytest

from app.cli import main
from arena.agents.factory import resolve


def test_a_filter_that_names_no_game_is_an_error_listing_the_games(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["envs", "werwolf"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("error: no game 'werwolf'")
    assert "werewolf (arena/Werewolf-v0)" in captured.err
    assert main(["envs", "werwolf", "--json"]) == 2
    assert capsys.readouterr().out == ""


def test_json_obeys_the_filter_by_name_or_env_id(capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("avalon", "arena/Avalon-v0"):
        assert main(["envs", name, "--json"]) == 0
        doc = json.loads(capsys.readouterr().out)
        assert [g["game"] for g in doc] == ["avalon"]


def test_agent_kinds_are_listed_per_game_and_each_resolves(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["envs", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    by_game = {g["game"]: g["agent_kinds"] for g in doc}
    assert {"llm", "random", "human", "werewolf.rule", "werewolf.seer"} <= set(by_game["werewolf"])
    assert "werewolf.rule" not in by_game["avalon"]
    for game, kinds in by_game.items():
        for kind in kinds:
            resolve(kind, game)  # every listed kind is one a config may use
    assert main(["envs", "werewolf"]) == 0
    out = capsys.readouterr().out
    assert "agent kinds:" in out and "werewolf.seer" in out
