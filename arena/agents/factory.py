"""Build agents from config entries: built-in kinds, a game's rule bots, or plug-ins."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from importlib import metadata
from typing import Any

from pydantic import BaseModel

from arena import registry
from arena.agents.base import Agent
from arena.agents.params import ParamsError, as_written

# kind -> "module:Class"; plug-ins add kinds through the ``arena.agents`` entry-point group.
BUILTIN_KINDS: dict[str, str] = {
    "random": "arena.agents.random_agent:RandomAgent",
    "llm": "arena.agents.llm_agent:LLMAgent",
    "human": "arena.agents.human:HumanAgent",  # played from the terminal UI (docs/human.md)
    "remote": "arena.agents.remote:RemoteAgent",  # an agent process over HTTP (docs/remote.md)
}


@functools.cache
def _plugin_kinds() -> tuple[tuple[str, str], ...]:
    # Scanning entry points reads every installed distribution's metadata (~10 ms): once.
    return tuple((ep.name, ep.value) for ep in metadata.entry_points(group="arena.agents"))


def agent_kinds() -> dict[str, str]:
    kinds = dict(BUILTIN_KINDS)
    for name, value in _plugin_kinds():
        kinds.setdefault(name, value)
    return kinds


def resolve(kind: str, game: str) -> type[Agent]:
    """The agent class for ``kind`` in ``game``; raises KeyError with the choices.

    ``<game>.<bot>`` names a game's bot; a bare name is the game's own bot when it has one
    (e.g. Werewolf's spec-conformant ``random``), else a built-in or plug-in kind.
    """
    kinds = agent_kinds()
    bots = registry.bots(game)
    bot = kind
    if "." in kind:
        prefix, _, bot = kind.partition(".")
        if prefix != game:
            raise KeyError(f"agent kind {kind!r} is a {prefix} bot, but the game is {game}")
    if bot in bots:
        return bots[bot]  # type: ignore[no-any-return]
    if kind in kinds:
        return registry.load_object(kinds[kind])  # type: ignore[no-any-return]
    raise KeyError(f"unknown agent kind {kind!r}; choices for {game}: {', '.join(kinds_for(game))}")


def kinds_for(game: str) -> list[str]:
    """Every agent kind a config may seat in ``game``: the built-in and plug-in kinds, then the
    game's own bots as ``<game>.<bot>`` (what ``arena envs`` lists and errors suggest)."""
    return sorted(agent_kinds()) + [f"{game}.{b}" for b in sorted(registry.bots(game))]


def typed_params(kind: str, game: str, params: Mapping[str, Any] | BaseModel) -> BaseModel:
    """``params`` as the model of ``kind`` in ``game``; already typed params are returned as
    they are. Raises KeyError (unknown kind) or :class:`ParamsError` (the problems)."""
    cls = resolve(kind, game)
    if isinstance(params, cls.Params):
        return params
    return cls.typed_params(as_written(params) if isinstance(params, BaseModel) else params)


def param_problems(kind: str, game: str, params: Mapping[str, Any]) -> list[str]:
    """Why ``params`` would not build a ``kind`` agent (``"params[.field]: message"`` lines):
    unknown parameter names (the agent's declared ones are listed) and refused values."""
    return resolve(kind, game).param_problems(params)


def build(
    name: str, kind: str, game: str, params: Mapping[str, Any] | BaseModel | None = None
) -> Agent:
    """An agent of ``kind``. A checked config's entries hand their typed params, built from
    as they are; a mapping (a caller outside a config) is typed first, and bad params raise
    ValueError naming the agent."""
    try:
        typed = typed_params(kind, game, {} if params is None else params)
    except ParamsError as err:
        raise ValueError(f"{name} ({kind}): {err}") from None
    return resolve(kind, game).from_params(name, typed)
