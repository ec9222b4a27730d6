"""``arena envs [GAME]``: the registered games, their rule flags and defaults, their variants
and the agent kinds a config may seat in each (text or ``--json``; a filter that names no
game is an error listing the games).

Loaded by ``app.cli`` (``add_commands``).
"""

from __future__ import annotations

import argparse
import json
import types
import typing
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from app.console import stdout_console

console = stdout_console()
err_console = Console(stderr=True)


def type_name(ann: Any) -> str:
    """A readable type: Literal values as a|b|c, optionals as X | None."""
    origin = typing.get_origin(ann)
    args = typing.get_args(ann)
    if origin is typing.Literal:
        return "|".join(str(a) for a in args)
    if origin in (typing.Union, types.UnionType):
        return " | ".join(type_name(a) for a in args)
    if origin is not None:
        inner = ", ".join(type_name(a) for a in args)
        return f"{getattr(origin, '__name__', str(origin))}[{inner}]"
    if ann is type(None):
        return "None"
    return getattr(ann, "__name__", str(ann).replace("typing.", ""))


def describe(info: Any) -> dict[str, Any] | None:
    """One game as ``arena envs`` shows it (None: registered but its rules cannot load)."""
    from arena import registry
    from arena.agents.factory import kinds_for

    try:
        rules_cls = registry.rules_class(info.game)
    except ImportError as err:
        err_console.print(
            f"[yellow]warning:[/] {escape(info.env_id)} is registered but cannot load: "
            f"{escape(str(err))}",
            highlight=False,
        )
        return None
    flags = [
        {
            "flag": name,
            "default": field.get_default(call_default_factory=True),
            "type": type_name(field.annotation),
            "doc": field.description or "",
        }
        for name, field in rules_cls.model_fields.items()
    ]
    return {
        "game": info.game,
        "env_id": info.env_id,
        "description": info.description,
        "variants": sorted(info.variants),
        "agent_kinds": kinds_for(info.game),
        "flags": flags,
    }


def cmd_envs(args: argparse.Namespace) -> int:
    from app.startup import report
    from arena import registry

    games = list(registry.games().values())
    if args.game:
        chosen = [i for i in games if args.game in (i.game, i.env_id)]
        if not chosen:
            names = ", ".join(f"{i.game} ({i.env_id})" for i in games)
            return report([f"no game {args.game!r}; registered games: {names}"])
        games = chosen
    out = [doc for info in games if (doc := describe(info)) is not None]
    if args.json:
        print(json.dumps(out, indent=2, default=str))
        return 0
    for g in out:
        table = Table(title=f"{g['env_id']}  (game: {g['game']})", title_justify="left")
        table.add_column("flag", style="cyan")
        table.add_column("default")
        table.add_column("type", style="dim")
        for f in g["flags"]:
            table.add_row(f["flag"], repr(f["default"]), f["type"])
        console.print(table)
        console.print(f"  {g['description']}", highlight=False, markup=False)
        console.print(f"  variants: {', '.join(g['variants']) or '-'}", highlight=False)
        console.print(f"  agent kinds: {', '.join(g['agent_kinds'])}\n", highlight=False)
    return 0


def add_commands(sub: Any) -> None:
    p = sub.add_parser(
        "envs",
        help="list registered games with their rule flags, defaults and agent kinds",
        description="The registered games: rule flags with defaults and types, variants, and "
        "the agent kinds a config may seat in each (agents[].kind).",
    )
    p.add_argument("game", nargs="?", help="show only this game (name or env id)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_envs)
