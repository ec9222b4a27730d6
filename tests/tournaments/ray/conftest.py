"""Ray tests run in a child pytest process: one for all of them, with one local cluster.

Why a child: Ray's driver lives in the test process, and a fatal error inside Ray's native core
(a failed internal check ends the process with ``_exit(1)``) would take the whole suite down
with no summary — CI once ended that way at 94 %. In a child, such a crash costs the Ray tests
that had not reported yet, with the child's output and the tail of Ray's own logs, and the suite
goes on.

Why one for all: a child pays for a pytest start-up, Ray's import and a ``ray.init`` (about ten
seconds on two cores); every selected Ray test shares that. When the first Ray test is called,
the child runs all the selected Ray tests (every module) and each test then reports what the
child recorded for it.

A child that crashed (no pytest summary) runs the tests that had not reported once more, and
the first crash is kept as a warning; a test that failed its assertions is never rerun. A
crash thus costs the tests that had not run yet one more child, not their result.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from tests.scheduling import GROUPS, group_of
from tests.tournaments.ray.ray_child import ChildRun, Outcome, run_child
from tests.tournaments.ray.ray_setup import in_child

# node id -> outcome of each Ray test, filled by the one child run; None before it ran
_DONE: dict[str, Outcome] | None = None
_OUTPUT = ""
GROUP = "ray"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "ray_isolated: run this test in the one child pytest process of the Ray tests"
    )


@pytest.hookimpl(tryfirst=True)  # before pytest's -m selection reads the marks
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("ray_isolated") is None:
            continue
        # Under pytest-xdist (make test) every Ray test must go to one worker: they share one
        # child, and two clusters asking for two CPUs each never overlap.
        if group_of(item.nodeid) != GROUP:
            raise pytest.UsageError(
                f"{item.nodeid}: a Ray test outside the 'ray' group of {GROUPS}"
            )
        # a child process and a cluster start: make test-fast leaves them out
        item.add_marker(pytest.mark.slow)


def _run_all(item: pytest.Function) -> None:
    """Run the selected Ray tests of the session in a child, once more after a crash."""
    global _DONE, _OUTPUT
    nodeids = [i.nodeid for i in item.session.items if i.get_closest_marker("ray_isolated")]
    run: ChildRun = run_child(nodeids)
    outcomes = dict(run.outcomes)
    if run.crashed:
        warnings.warn(
            f"the Ray tests' child crashed (exit {run.code}); running the tests that had not "
            "reported once more.\n" + run.output[-4000:],
            stacklevel=1,
        )
        left = [n for n in nodeids if n not in outcomes]
        if left:
            run = run_child(left)
            outcomes.update(run.outcomes)
    _DONE = outcomes
    _OUTPUT = f"(child exit {run.code}, crashed: {run.crashed})\n" + run.output


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> Any:
    if in_child() or pyfuncitem.get_closest_marker("ray_isolated") is None:
        return None  # the ordinary in-process call
    if _DONE is None:
        _run_all(pyfuncitem)
    assert _DONE is not None
    got = _DONE.get(pyfuncitem.nodeid)
    if got is None:
        pytest.fail(
            "the test never reported from its child process (a crash or a timeout):\n"
            + _OUTPUT[-12000:]
        )
    if got.outcome == "skipped":
        pytest.skip(got.text)
    if got.outcome == "failed":
        pytest.fail(f"the test failed in its child process:\n{got.text[-12000:]}")
    return True
