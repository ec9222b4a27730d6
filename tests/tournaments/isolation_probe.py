"""Tests that misbehave on purpose, for tests/tournaments/test_isolation.py (this file's name
does not start with ``test_``, so the suite never collects it by itself)."""

from __future__ import annotations

import os


def test_exits_the_process() -> None:
    os._exit(1)  # as Ray's native core does on a failed internal check


def test_fails_an_assertion() -> None:
    assert 1 + 1 == 3


def test_passes() -> None:
    """The control: it passes when run the way the harness runs a Ray test, as a child."""
    assert os.environ.get("ARENA_RAY_TEST_CHILD") == "1"


def test_skips() -> None:
    import pytest

    pytest.skip("not here")
