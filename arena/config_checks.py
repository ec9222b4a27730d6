"""What every run config (``arena run``, ``arena selfplay``) checks against the registry: the
game, its rules (strictly, and whether they make a game at all) and its agent entries. Each
returns the problems as field-path messages so a command can report all of them at once."""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

from arena import registry
from arena.agents import factory
from arena.errors import ConfigError, describe_validation


def one_line(err: BaseException) -> str:
    return (" ".join(str(err).split()) or type(err).__name__)[:200]


def game(name: str) -> tuple[registry.GameInfo, Any]:
    """The game's registration and engine class, or ConfigError (nothing else can be checked)."""
    try:
        info = registry.get(name)
    except registry.UnknownGame as err:
        raise ConfigError([f"game: {err}"]) from None
    return info, registry.engine_class(info.game)


def rules(engine_cls: Any, raw: dict[str, Any]) -> tuple[Any, list[str]]:
    """The game's rules validated strictly (``max_days: true`` is not 1), or the problems."""
    try:
        text = json.dumps(raw)
    except (TypeError, ValueError):
        return None, ["rules: values must be numbers, strings, booleans, lists or mappings"]
    try:
        return engine_cls.Rules.model_validate_json(text, strict=True), []
    except ValidationError as err:
        return None, describe_validation(err, "rules")
    except Exception as err:  # a game's own rule hook refused the input in its own way
        return None, [f"rules: not valid for {engine_cls.game}: {one_line(err)}"]


def dealt(engine_cls: Any, ruleset: Any) -> Any:
    """An engine dealt from ``ruleset`` (seed 0), or ConfigError: rules each valid alone may
    not make a game together."""
    try:
        return engine_cls(ruleset, seed=0)
    except Exception as err:
        raise ConfigError(f"rules: the game cannot be set up with them: {one_line(err)}") from None


def entry(where: str, kind: str, params: dict[str, Any], game_name: str) -> list[str]:
    """An agent entry's kind resolved for the game and its params checked (``where``: its path,
    e.g. ``agents.0``)."""
    try:
        factory.resolve(kind, game_name)
    except KeyError as err:
        return [f"{where}.kind: {err.args[0]}"]
    return [f"{where}.{m}" for m in factory.param_problems(kind, game_name, params)]
