"""Lint and types are part of the suite, so CI enforces them (make lint runs the same tools)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ["app", "arena", "games", "personas", "tournaments", "tui"]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True)


def test_ruff_finds_nothing() -> None:
    out = run("ruff", "check", *PACKAGES, "tests", "bench")
    assert out.returncode == 0, out.stdout + out.stderr


@pytest.mark.slow
def test_mypy_finds_nothing() -> None:
    out = run("mypy", *PACKAGES)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
