"""Start-up checks of the commands that run matches (``arena run``; reusable by others).

The convention: every bad input — a config problem, an unsafe run name, a plan past the limit,
an LLM backend that fails its preflight — is one line per problem on stderr, prefixed
``error:``, exit code 2, and nothing is written: the checks run before any run directory,
broker or database exists.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from arena.errors import ConfigError

EXIT_BAD_INPUT = 2

err_console = Console(stderr=True)


def _printable(line: str) -> str:
    """Control characters from a config value shown escaped, never sent to the terminal."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in line)


def report(problems: Iterable[str], code: int = EXIT_BAD_INPUT) -> int:
    """Print each problem as ``error:`` lines on stderr (markup and control characters
    escaped); return ``code``."""
    for problem in problems:
        for line in str(problem).splitlines() or [""]:
            err_console.print(
                f"[bold red]error:[/] {escape(_printable(line))}", highlight=False, soft_wrap=True
            )
    return code


def check_run_id(run_id: str) -> None:
    """Refuse a run id that would not be one directory inside the output directory."""
    from tournaments.config import path_part_problem

    problem = path_part_problem(run_id)
    if problem is not None:
        raise ConfigError(f"--run-id: {problem}")


def needs_preflight(agents: Iterable[Any]) -> bool:
    from arena.llm.preflight import PREFLIGHT_KINDS

    return any(a.kind in PREFLIGHT_KINDS for a in agents)


async def preflight(agents: Iterable[Any]) -> list[str]:
    """Preflight the LLM backends of ``agents`` in the running loop (ConfigError on failure)."""
    agents = list(agents)
    if not needs_preflight(agents):
        return []
    from arena.llm.preflight import preflight_entries

    return await preflight_entries(agents)


def preflight_now(agents: Iterable[Any]) -> list[str]:
    """:func:`preflight` on an event loop of its own (for code that starts its loop later)."""
    agents = list(agents)
    if not needs_preflight(agents):
        return []
    return asyncio.run(preflight(agents))


def remove_if_new(run_dir: Path, existed: bool) -> None:
    """Remove a run directory this invocation created, when the run could not start."""
    if not existed and run_dir.is_dir() and not (run_dir / "arena.sqlite").exists():
        shutil.rmtree(run_dir, ignore_errors=True)
