"""``arena personas list | show NAME | validate [PATHS]`` (loaded by ``app.cli``)."""

from __future__ import annotations

import argparse
import json
from typing import Any

import yaml


def add_commands(subparsers: Any) -> None:
    p = subparsers.add_parser("personas", help="persona cards and scenarios: list, show, validate")
    sub = p.add_subparsers(dest="personas_command", metavar="ACTION")
    q = sub.add_parser("list", help="list persona cards and scenarios")
    q.add_argument("--library", help="library directory (default: the shipped one)")
    q.add_argument("--json", action="store_true", help="as JSON")
    q.set_defaults(func=cmd_list)
    q = sub.add_parser("show", help="print one persona card or scenario as YAML")
    q.add_argument("name", help="persona id or name, or scenario id")
    q.add_argument("--library", help="library directory (default: the shipped one)")
    q.set_defaults(func=cmd_show)
    q = sub.add_parser("validate", help="validate library files; errors name file, line, field")
    q.add_argument("paths", nargs="*", help="files or directories (default: the shipped library)")
    q.set_defaults(func=cmd_validate)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def _library(args: argparse.Namespace) -> Any:
    from personas.loader import load_library

    return load_library(getattr(args, "library", None))


def cmd_list(args: argparse.Namespace) -> int:
    from personas.loader import LibraryError

    try:
        lib = _library(args)
    except LibraryError as err:
        return _problems(err.problems)
    if args.json:
        out = {
            "personas": [
                {"id": p.id, "name": p.name, "occupation": p.occupation}
                for p in lib.personas.values()
            ],
            "scenarios": [
                {"id": s.id, "kind": s.kind, "title": s.title, "characters": s.characters}
                for s in lib.scenarios.values()
            ],
        }
        print(json.dumps(out, indent=2, ensure_ascii=False))
        return 0
    print(f"Personas ({len(lib.personas)}):")
    for p in sorted(lib.personas.values(), key=lambda x: x.id):
        secrets = f"{len(p.secrets)} secret(s)" if p.secrets else "no secrets"
        print(f"  {p.id:<10} {p.name:<22} {p.age or '':>3}  {p.occupation or '':<32} {secrets}")
    print(f"\nScenarios ({len(lib.scenarios)}):")
    for s in sorted(lib.scenarios.values(), key=lambda x: (x.kind, x.id)):
        print(f"  {s.id:<22} {s.kind:<14} {len(s.characters)}p  {s.title}")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    from personas.loader import LibraryError
    from personas.schema import dump

    try:
        lib = _library(args)
    except LibraryError as err:
        return _problems(err.problems)
    if args.name in lib.scenarios:
        obj: Any = lib.scenarios[args.name]
    else:
        try:
            obj = lib.persona(args.name)
        except KeyError:
            print(f"error: no persona or scenario named {args.name!r}")
            return 2
    print(yaml.safe_dump(dump(obj), sort_keys=False, allow_unicode=True).rstrip())
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    from personas.loader import LIBRARY_ROOT, LibraryError, load_library, load_paths, yaml_files

    paths = args.paths or [str(LIBRARY_ROOT)]
    context = None
    if args.paths:
        try:
            context = load_library()
        except LibraryError:
            context = None
    lib, problems = load_paths(paths, context=context)
    if problems:
        return _problems(problems)
    n_files = len(yaml_files(paths))
    own = len(
        [
            k
            for k in lib.sources
            if k[0] == "persona" and str(lib.sources[k].file) in {str(f) for f in yaml_files(paths)}
        ]
    )
    print(f"ok: {n_files} file(s), {own} persona card(s), {len(lib.scenarios)} scenario(s)")
    return 0


def _problems(problems: list[Any]) -> int:
    for p in problems:
        print(f"error: {p}")
    print(f"{len(problems)} problem(s)")
    return 2
