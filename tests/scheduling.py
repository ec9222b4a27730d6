"""How ``make test`` spreads the suite over pytest-xdist workers (``--dist loadgroup``).

Each test is a work unit of its own, handed to whichever worker is free, except the groups
below: a group's tests all run on one worker, one after another. A group is named by path
prefix, because the scheduler sees only test ids (pytest 9 ignores xdist's ``xdist_group``
mark: xdist rewrites a node id attribute pytest no longer reads).

* ``ray``: every Ray test. The Ray tests share one child process and one cluster
  (tests/tournaments/ray/conftest.py), and two clusters asking for two CPUs each must not overlap.
* a module whose module-scoped fixture is costly (a model load, a finished run) is a group of
  its own, so the fixture is built once, not once per worker.

Groups go out first, largest first (xdist's loadscope ordering), so the long ones do not end
the run on one worker while the other idles.
"""

from __future__ import annotations

from typing import Any

from xdist.scheduler import LoadScopeScheduling

# path prefix -> group (the first prefix that matches wins)
GROUPS: dict[str, str] = {
    "tests/tournaments/ray/": "ray",
}
# modules whose tests share a costly module-scoped fixture: one group per module
SHARED_SETUP: tuple[str, ...] = ("tests/tournaments/test_rankings_settle.py",)  # 300 matches


def group_of(nodeid: str) -> str | None:
    """The group a test belongs to, or None for a test scheduled on its own."""
    path = nodeid.split("::", 1)[0]
    for prefix, group in GROUPS.items():
        if path.startswith(prefix):
            return group
    return path if path in SHARED_SETUP else None


class GroupScheduling(LoadScopeScheduling):
    """xdist's loadscope scheduling with the scopes above (one test per unit otherwise)."""

    def __init__(self, config: Any, log: Any = None) -> None:
        super().__init__(config, log)

    def _split_scope(self, nodeid: str) -> str:
        return group_of(nodeid) or nodeid
