"""Every option and argument of every command says what it is in ``--help``."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

from app.cli import build_parser


def commands(
    parser: argparse.ArgumentParser, path: str = "arena"
) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from commands(sub, f"{path} {name}")


def test_every_option_of_every_command_has_help() -> None:
    missing = [
        f"{path}: {'/'.join(action.option_strings) or action.dest}"
        for path, parser in commands(build_parser())
        for action in parser._actions
        if not isinstance(action, (argparse._HelpAction, argparse._SubParsersAction))
        and not action.help
    ]
    assert missing == []
