"""Agent entries: params typed once when the config loads, travelling typed to the factory,
written back as the config wrote them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from arena.agents.llm_agent import LLMAgent
from arena.agents.llm_params import LLMAgentParams
from arena.agents.params import KeywordParams, Unchecked
from arena.errors import ConfigError
from arena.remote.client import RemoteParams
from tournaments import config as tconfig
from tournaments.conditions import digest, entry_conditions
from tournaments.entries import AgentEntry, llm_backend, memory_bank, type_params
from tournaments.executor import Tournament

LLM = {"backend": {"type": "openai", "base_url": "http://127.0.0.1:9/v1", "temperature": 1}}
REMOTE = {"url": "http://127.0.0.1:9/", "timeout_s": 5}


def _config(tmp_path: Path, **params: dict[str, Any]) -> tconfig.RunConfig:
    return tconfig.parse(
        {
            "game": "werewolf",
            "rules": {"preset": "classic8"},
            "agents": [
                {"name": "bot", "kind": "llm", "params": params.get("bot", LLM)},
                {"name": "rule", "kind": "werewolf.rule", "params": {"slip": 0.25}},
                {"name": "far", "kind": "remote", "params": REMOTE},
            ],
            "output_dir": str(tmp_path),
        }
    )


def test_params_are_the_kinds_model_once_the_config_loads(tmp_path: Path) -> None:
    config = _config(tmp_path)
    bot, rule, far = (config.entry(n).params for n in ("bot", "rule", "far"))
    assert isinstance(bot, LLMAgentParams) and bot.backend.temperature == 1.0
    assert isinstance(rule, KeywordParams) and rule.model_extra == {"slip": 0.25}
    assert isinstance(far, RemoteParams) and far.url == "http://127.0.0.1:9"
    assert llm_backend(config.entry("bot")) is bot.backend
    assert llm_backend(config.entry("rule")) is None and memory_bank(config.entry("bot")) is None


def test_the_agent_is_built_from_the_typed_params_not_a_second_validation(
    tmp_path: Path,
) -> None:
    config = _config(tmp_path)
    agent = Tournament(config, tmp_path / "typed", "typed").make_agent("bot", 0)
    assert isinstance(agent, LLMAgent)
    assert agent.config is config.entry("bot").params  # the very object the load made


def test_files_and_fingerprints_keep_the_params_as_written(tmp_path: Path) -> None:
    config = _config(tmp_path)
    dumped = {a["name"]: a["params"] for a in config.model_dump(mode="json")["agents"]}
    # a typed model normalises (1 -> 1.0, the URL's slash) and fills defaults; files do not
    assert dumped == {"bot": LLM, "rule": {"slip": 0.25}, "far": REMOTE}
    assert json.dumps(dumped["bot"]) == json.dumps(LLM)
    assert entry_conditions(config.entry("far"), config.game)["params"] == digest(REMOTE)
    again = tconfig.RunConfig.model_validate(config.model_dump(mode="json"))
    assert again.model_dump(mode="json") == config.model_dump(mode="json")


def test_a_bad_llm_field_is_one_error_at_load_naming_the_entry(tmp_path: Path) -> None:
    bad = {"backend": {"type": "openai", "temprature": 0.5}}
    with pytest.raises(ConfigError) as err:
        _config(tmp_path, bot=bad)
    assert err.value.problems == ["config: agents.0.params.backend.temprature: unknown field"]


def test_an_unknown_game_leaves_params_unchecked_and_reports_the_game() -> None:
    entries = [AgentEntry.model_validate({"name": "a", "kind": "llm", "params": {"x": 1}})]
    assert type_params(entries, "no-such-game") == []
    assert isinstance(entries[0].params, Unchecked) and not entries[0].typed()
    assert type_params(entries, "werewolf") == ["agents.0.params.x: unknown field"]


def test_params_must_be_a_mapping() -> None:
    with pytest.raises(ConfigError, match=r"agents\.0\.params: .*valid dictionary"):
        tconfig.parse({"game": "werewolf", "agents": [{"name": "a", "kind": "random",
                                                        "params": [1]}]})  # fmt: skip
