"""The conditions of a match: what must agree for two results to be compared on one board.

A rating moves when an agent changes, but also when the rules, a prompt template, a model's
decoding settings or the fallback policy change. Every match therefore records a fingerprint of
those conditions beside its result:

- ``game``, its ``rules`` as the engine resolved them, and the game's ``rules_version``;
- ``policy``: the invalid-answer policy (retries, fallback, time limit);
- ``metrics``: the metric threshold set (its version and a hash of its values);
- per agent entry of the match: its ``kind`` and a hash of its ``params``; for an LLM entry
  also its ``model`` id, ``decoding`` parameters and ``prompt`` (template version, and a hash
  of the game's briefing templates, the prompt renderer and the entry's prompt overrides).
  Transport settings (URL, timeouts, concurrency, prices, caches) are not conditions.

``shared`` hashes the match-wide part, ``entries`` maps each entry to its own hash; the board
pools two matches only when their ``shared`` hashes agree and no entry has two hashes
(:mod:`arena.ratings.seasons`). Pure functions of the config and the game's source.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import sys
from functools import lru_cache
from typing import Any

from arena import registry
from arena.agents.llm_params import LLMAgentParams
from arena.errors import ConfigError
from arena.llm import prompt as llm_prompt
from arena.llm.config import BackendConfig
from arena.metrics.settings import Thresholds
from tournaments.config import AgentEntry, RunConfig

VERSION = 1
# Backend fields that change what the model answers (the rest is transport).
DECODING = ("temperature", "top_p", "max_tokens", "seed", "structured", "rank_choices", "dtype")
MODEL = ("type", "model", "model_path", "gguf_file")


def digest(data: Any) -> str:
    text = json.dumps(data, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@lru_cache(maxsize=64)
def template_hash(game: str) -> str:
    """A hash of the game's briefing module and the prompt renderer: editing a template (or
    how a prompt is put together) changes it."""
    parts = [inspect.getsource(llm_prompt)]
    briefing = registry.briefing(game)
    if briefing is not None:
        module = sys.modules.get(briefing.__module__)
        if module is not None:
            parts.append(inspect.getsource(module))
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:16]


def entry_conditions(entry: AgentEntry, game: str) -> dict[str, Any]:
    """One entry's conditions: kind and params hash; model, decoding and prompt for LLMs."""
    out: dict[str, Any] = {"kind": entry.kind}
    if entry.kind != "llm":
        out["params"] = digest(entry.written())  # as written: what the fingerprint always held
        return out
    params = entry.params
    if not isinstance(params, LLMAgentParams):  # a config that was never checked
        raise ConfigError([f"agent {entry.name}: its params are not checked: {params!r}"[:300]])
    backend: BackendConfig = params.backend
    dumped = backend.model_dump(mode="json")
    out["model"] = {k: dumped[k] for k in MODEL}
    out["decoding"] = {k: dumped[k] for k in DECODING}
    overrides = params.model_dump(mode="json", exclude={"backend"})
    out["prompt"] = {
        "version": llm_prompt.TEMPLATE_VERSION,
        "hash": digest([template_hash(game), overrides]),
    }
    return out


@lru_cache(maxsize=256)
def _resolved(game: str, rules_json: str) -> dict[str, Any]:
    engine = registry.engine_class(game)(json.loads(rules_json), seed=0)
    return engine.rules.model_dump(mode="json")  # type: ignore[no-any-return]


def resolved_rules(game: str, rules: dict[str, Any]) -> dict[str, Any]:
    """``rules`` as the game's engine resolves them (presets expanded, defaults filled)."""
    return _resolved(game, json.dumps(rules, sort_keys=True, default=str))


def match_conditions(
    config: RunConfig, rules: dict[str, Any], entries: list[str]
) -> dict[str, Any]:
    """The fingerprint of one match of ``config`` with ``rules`` (as planned) and its entries."""
    info = registry.get(config.game)
    shared = {
        "game": config.game,
        "rules": resolved_rules(config.game, rules),
        "rules_version": info.rules_version,
        "policy": config.policy.model_dump(mode="json"),
        "metrics": {"version": Thresholds().version, "hash": digest(Thresholds().model_dump())},
    }
    per_entry = {
        name: entry_conditions(config.entry(name), config.game) for name in sorted(set(entries))
    }
    return {
        "version": VERSION,
        **shared,
        "entry": per_entry,
        "shared": digest(shared),
        "entries": {name: digest(c) for name, c in per_entry.items()},
    }
