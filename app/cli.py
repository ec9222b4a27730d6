"""The ``arena`` command line.

Exit codes: 0 success, 1 runtime failure, 2 bad input (config, arguments), 130 interrupted
(Ctrl-C or SIGTERM: a run stops cleanly, is marked ``interrupted`` and can be resumed), 141
when the reader of the output went away (``arena envs --json | head``; nothing on stderr).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

# ``arena selfplay`` reads its live flags through this name; the function is ``arena run``'s.
from app.commands.run import live_options as live_options
from app.console import fail
from app.executors import add_executor_flags, executor_for, executor_problem

# The command groups, in the order `arena --help` lists them; each module exposes
# add_commands(subparsers) and imports its heavy dependencies lazily, so `arena --help` stays
# fast and works without the extras installed.
EXTENSIONS = (
    "app.commands.run",
    "app.commands.envs",
    "app.commands.leaderboard",
    "app.commands.runs",
    "app.commands.serve",
    "app.commands.watch",
    "app.commands.score",
    "app.commands.personas",
    "app.commands.memory",
    "app.commands.selfplay",
    "app.commands.export",
    "app.commands.play",
    "app.commands.plan",
    "app.commands.reparse",
    "app.commands.remote",
)


# -- entry point --------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="arena",
        description="A multi-agent simulation arena for LLM games and social dialogue.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    for module in EXTENSIONS:
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError as err:
            if err.name and module.startswith(err.name):
                continue  # that part of the arena is not in this tree
            raise
        mod.add_commands(sub)
    if "selfplay" in sub.choices:  # its games are tournament matches: the same executors
        add_executor_flags(sub.choices["selfplay"])
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    from app.commands.runs import sigterm_as_interrupt

    problem = executor_problem(args)
    if problem is not None:
        return fail([problem])
    try:
        with sigterm_as_interrupt(), executor_for(args):  # SIGTERM stops as Ctrl-C does
            code = int(args.func(args))
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's exit
    except BrokenPipeError:
        return closed_pipe()
    except SystemExit as stop:  # rich stops a console that met a closed pipe with exit 1
        if isinstance(stop.__context__, BrokenPipeError):
            return closed_pipe()
        raise
    return code


# 128 + SIGPIPE: what a shell reports for a tool stopped by a closed pipe (`arena ... | head`)
EXIT_CLOSED_PIPE = 141


def closed_pipe() -> int:
    """The reader of stdout went away (``| head``): stop quietly, no traceback. Later writes
    (the interpreter flushes stdout at exit) go to /dev/null, so they cannot fail again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return EXIT_CLOSED_PIPE


if __name__ == "__main__":
    sys.exit(main())
