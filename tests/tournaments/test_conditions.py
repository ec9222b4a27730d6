"""Condition fingerprints: what changes a result's meaning changes them; transport does not."""

from __future__ import annotations

from typing import Any

from tournaments import config as tconfig
from tournaments.conditions import match_conditions


def fingerprint(model: dict[str, Any], bot: dict[str, Any] | None = None,
                policy: dict[str, Any] | None = None) -> dict[str, Any]:  # fmt: skip
    raw: dict[str, Any] = {
        "game": "price_bargaining",
        "agents": [{"name": "model", "kind": "llm", "params": model},
                   {"name": "bot", "kind": "price_bargaining.boulware", "params": bot or {}}],
    }  # fmt: skip
    if policy:
        raw["policy"] = policy
    config = tconfig.parse(raw)
    return match_conditions(config, config.rules, ["model", "bot"])


def test_prompt_model_decoding_bot_params_and_policy_change_the_fingerprint() -> None:
    base = fingerprint({})
    styled = fingerprint({"style": "Be terse."})
    assert styled["entries"]["model"] != base["entries"]["model"]
    assert styled["entry"]["model"]["prompt"]["hash"] != base["entry"]["model"]["prompt"]["hash"]
    assert styled["entries"]["bot"] == base["entries"]["bot"] and styled["shared"] == base["shared"]
    hot = fingerprint({"backend": {"temperature": 0.7}})
    assert hot["entry"]["model"]["decoding"]["temperature"] == 0.7
    assert hot["entries"]["model"] != base["entries"]["model"]
    other = fingerprint({"backend": {"model": "other"}})
    assert other["entries"]["model"] != base["entries"]["model"]
    assert fingerprint({}, bot={"slip": 0.5})["entries"]["bot"] != base["entries"]["bot"]
    assert fingerprint({}, policy={"retries": 0})["shared"] != base["shared"]


def test_transport_settings_and_rule_spelling_do_not() -> None:
    base = fingerprint({})
    moved = fingerprint({"backend": {"base_url": "http://10.0.0.1:9000/v1", "timeout_s": 5.0,
                                     "concurrency": 2}})  # fmt: skip
    assert moved["entries"] == base["entries"] and moved["shared"] == base["shared"]
    assert base["rules"]["discount"] is not None  # the rules as the engine resolved them
