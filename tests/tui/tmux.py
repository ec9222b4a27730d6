"""A private tmux server for the terminal smoke tests, and reading its screen back."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


# The toy game is registered by tests/conftest.py; the child process imports it first.
ARENA = (
    f"{sys.executable} -c 'import tests.conftest, sys; from app.cli import main; sys.exit(main())'"
)


# a private tmux server (no clash with another test run) that ignores the user's ~/.tmux.conf
SOCKET = f"arena-smoke-{os.getpid()}"


def tmux(*args: str) -> str:
    return subprocess.run(
        ["tmux", "-L", SOCKET, "-f", os.devnull, *args], capture_output=True, text=True, timeout=60
    ).stdout


def screen(name: str) -> str:
    return tmux("capture-pane", "-p", "-t", name)


def wait_screen(name: str, *needles: str, timeout: float = 120.0) -> str:
    deadline = time.monotonic() + timeout
    text = ""
    while time.monotonic() < deadline:
        text = screen(name)
        if all(n in text for n in needles):
            return text
        time.sleep(0.3)
    raise AssertionError(f"{needles} not on screen {name}:\n{text}")
