"""The `arena` entry point: a closed output pipe ends every command quietly."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli import EXIT_CLOSED_PIPE

ROOT = Path(__file__).resolve().parents[2]


def run_with_closed_stdout(*argv: str) -> tuple[int, str]:
    """Run ``arena ARGV`` with its stdout a pipe nobody reads (closed before it writes)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "app.cli", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        env=env,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone before the first write: every write fails
    err = proc.stderr.read().decode()
    proc.stderr.close()
    return proc.wait(timeout=120), err


@pytest.mark.parametrize("argv", [("envs", "--json"), ("envs",)])
def test_a_closed_pipe_ends_quietly(argv: tuple[str, ...]) -> None:
    """print() and rich consoles alike: no traceback, the shell's code for a closed pipe."""
    code, err = run_with_closed_stdout(*argv)
    assert err == ""
    assert code == EXIT_CLOSED_PIPE
