"""The child process each Ray test runs in: a crash is told apart from a failed assertion, and
neither reaches the parent process."""

from __future__ import annotations

import pytest

from tests.tournaments.ray.conftest import _run_child

PROBE = "tests/tournaments/isolation_probe.py::"


@pytest.mark.parametrize(
    ("test", "code", "crashed"),
    [
        ("test_exits_the_process", 1, True),
        ("test_fails_an_assertion", 1, False),
        ("test_passes", 0, False),
    ],
)
def test_a_child_reports_its_exit_and_whether_it_crashed(
    test: str, code: int, crashed: bool
) -> None:
    got_code, output, got_crashed = _run_child(PROBE + test)
    assert (got_code, got_crashed) == (code, crashed), output
    if test == "test_fails_an_assertion":
        assert "1 failed" in output and "test_fails_an_assertion" in output
