"""Where a command's matches play: the ``--executor``/``--address`` flags and the executor they
name (this process, or a Ray cluster), installed for the length of the command."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
from collections.abc import Iterator


def add_executor_flags(p: argparse.ArgumentParser) -> None:
    group = p.add_argument_group("executor (docs/distributed.md)")
    group.add_argument(
        "--executor",
        choices=("asyncio", "ray"),
        default="asyncio",
        help="where matches play: this process (asyncio, default) or a Ray cluster",
    )
    group.add_argument(
        "--address",
        metavar="auto|HOST:PORT",
        help="with --executor ray: join this running cluster (default: start a local one)",
    )


def executor_problem(args: argparse.Namespace) -> str | None:
    """Why the executor flags cannot work (None when they can)."""
    if getattr(args, "executor", "asyncio") != "ray":
        return "--address needs --executor ray" if getattr(args, "address", None) else None
    try:
        import ray  # noqa: F401
    except ImportError as err:
        return f"--executor ray: {err} (pip install 'llm-arena[ray]')"
    return None


@contextlib.contextmanager
def executor_for(args: argparse.Namespace) -> Iterator[None]:
    """Run the command with the executor its flags name (tournaments built in it use it)."""
    if getattr(args, "executor", "asyncio") != "ray":
        yield
        return
    from tournaments.executor import use_executor
    from tournaments.ray.executor import RayExecutor

    executor = RayExecutor(address=args.address)
    try:
        with use_executor(executor):
            yield
    finally:
        asyncio.run(executor.close())
