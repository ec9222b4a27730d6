"""The child process Ray tests run in: a crash is told apart from a failed assertion, neither
reaches the parent process, and each test of a module run gets its own outcome."""

from __future__ import annotations

import pytest

from tests.tournaments.ray.ray_child import run_child

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
    run = run_child([PROBE + test])
    assert (run.code, run.crashed) == (code, crashed), run.output
    if test == "test_fails_an_assertion":
        assert "1 failed" in run.output and "test_fails_an_assertion" in run.output


def test_one_child_reports_each_of_its_tests() -> None:
    names = ["test_fails_an_assertion", "test_passes", "test_skips"]
    run = run_child([PROBE + n for n in names])
    got = {n: run.outcomes[PROBE + n].outcome for n in names}
    assert got == {"test_fails_an_assertion": "failed", "test_passes": "passed",
                   "test_skips": "skipped"}, run.output  # fmt: skip
    assert "assert (1 + 1) == 3" in run.outcomes[PROBE + "test_fails_an_assertion"].text
    assert run.outcomes[PROBE + "test_skips"].text == "Skipped: not here"
    assert not run.crashed


def test_a_crash_keeps_the_outcomes_reported_before_it() -> None:
    run = run_child([PROBE + "test_passes", PROBE + "test_exits_the_process"])
    assert run.crashed and run.code == 1, run.output
    assert {n: o.outcome for n, o in run.outcomes.items()} == {PROBE + "test_passes": "passed"}
