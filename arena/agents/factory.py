"""Build agents from config entries: built-in kinds, a game's rule bots, or plug-ins."""

from __future__ import annotations

import functools
from importlib import metadata
from typing import Any

from arena import registry
from arena.agents.base import Agent

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


def param_problems(kind: str, game: str, params: dict[str, Any]) -> list[str]:
    """Why ``params`` would not build a ``kind`` agent (``"params[.field]: message"`` lines):
    unknown parameter names (the agent's declared ones are listed) and refused values."""
    return resolve(kind, game).param_problems(params)


def build(name: str, kind: str, game: str, params: dict[str, Any] | None = None) -> Agent:
    """An agent of ``kind``; unknown ``params`` raise ValueError (a config's are checked
    before anything runs: ``param_problems``)."""
    cls = resolve(kind, game)
    unknown = cls.unknown_params(params or {})
    if unknown is not None:
        raise ValueError(f"{name} ({kind}): {unknown}")
    return cls(name=name, **(params or {}))
