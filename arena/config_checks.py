"""What every run config (``arena run``, ``arena selfplay``) checks against the registry: the
game, its rules (strictly, and whether they make a game at all) and its agent entries. Each
returns the problems as field-path messages so a command can report all of them at once."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from arena import registry
from arena.agents import factory
from arena.errors import ConfigError, describe_validation


def one_line(err: BaseException) -> str:
    return (" ".join(str(err).split()) or type(err).__name__)[:200]


def game(name: str) -> tuple[registry.GameInfo, Any]:
    """The game's registration and engine class, or ConfigError."""
    try:
        info = registry.get(name)
    except registry.UnknownGame as err:
        raise ConfigError([f"game: {err}"]) from None
    return info, registry.engine_class(info.game)


def game_or_problems(name: str) -> tuple[registry.GameInfo | None, Any, list[str]]:
    """:func:`game` as (info, engine class, []) or (None, None, problems): an unknown game
    leaves the checks that need no game (entry names in lineups, ...) still to run."""
    try:
        info, engine_cls = game(name)
    except ConfigError as err:
        return None, None, err.problems
    return info, engine_cls, []


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


# -- every problem in one pass -------------------------------------------------------------
M = TypeVar("M", bound=BaseModel)
# A list field whose invalid items keep their place: item index, raw item -> a valid item.
Placeholder = Callable[[int, Any], dict[str, Any]]


def parse_all(
    model: type[M],
    raw: dict[str, Any],
    cross_check: Callable[[M], None],
    placeholders: Mapping[str, Placeholder] | None = None,
    stand_ins: Mapping[str, Any] | None = None,
) -> tuple[M | None, list[str]]:
    """Validate ``raw`` as ``model`` and run ``cross_check`` (ConfigError) over it, collecting
    the problems of *both* stages: when fields are invalid, the cross-field checks still run
    over the valid rest (the invalid fields at their defaults; the invalid items of a list
    named in ``placeholders`` replaced in place, so later checks cite the right index; a
    required field in ``stand_ins`` takes that value, which its own checks then skip). A
    cross-field problem that names an invalid field is left out: it would only restate that
    field's own error. Returns the config (None when no config could be built) and the
    problems (empty: the config is good)."""
    problems: list[str] = []
    skip: set[str] = set()
    config: M | None
    try:
        config = model.model_validate(raw)
    except ValidationError as err:
        problems = describe_validation(err)
        config, skip = _valid_rest(model, raw, err, placeholders or {}, stand_ins or {})
    if config is not None:
        try:
            cross_check(config)
        except ConfigError as err:
            problems += [m for m in err.problems if not _names_any(m, skip)]
    if config is None and not problems:
        problems = ["invalid config"]
    return config, problems


def _valid_rest(
    model: type[M],
    raw: dict[str, Any],
    err: ValidationError,
    placeholders: Mapping[str, Placeholder],
    stand_ins: Mapping[str, Any],
) -> tuple[M | None, set[str]]:
    """The config without its invalid fields (None if what is left is no config) and the
    names of the fields left out."""
    bad = {str(e["loc"][0]) for e in err.errors() if e["loc"]}
    if any(not e["loc"] for e in err.errors()):
        return None, bad  # an error of the whole mapping
    rest = {k: v for k, v in raw.items() if k not in bad}
    for name, fill in placeholders.items():
        items = raw.get(name)
        if name in bad and isinstance(items, list) and items:
            rest[name] = [fill(i, item) for i, item in enumerate(items)]
            bad.discard(name)
    rest.update({k: v for k, v in stand_ins.items() if k in bad})
    try:
        return model.model_validate(rest), bad
    except ValidationError:
        return None, bad


def entry_or_placeholder(model: type[BaseModel]) -> Placeholder:
    """A placeholder for an agent-entry list: a valid entry as it is; an invalid one as a
    ``random`` entry under its own name when that name is valid (so checks that look entries
    up by name still find it), else under ``invalid-entry-<i>``."""

    def fill(i: int, entry: Any) -> dict[str, Any]:
        try:
            return model.model_validate(entry).model_dump()
        except ValidationError:
            name = entry.get("name") if isinstance(entry, dict) else None
            try:
                return model.model_validate({"name": name, "kind": "random"}).model_dump()
            except ValidationError:
                return {"name": f"invalid-entry-{i}", "kind": "random"}

    return fill


def _names_any(problem: str, fields: set[str]) -> bool:
    return any(re.search(rf"\b{re.escape(f)}\b", problem) for f in fields)
