"""One child pytest process for the Ray tests, and the outcome of each of them.

The child runs every selected Ray test against one local cluster (one ``ray.init`` for all,
not per test) and writes one JSON line per test phase to a report file; the parent hands each
test the outcome the child recorded for it. A crash of Ray's native core (``_exit(1)``, no
pytest summary) costs the Ray tests that had not reported yet, never the suite.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
# Set in the child pytest process (this module imports nothing of the tests, so that it can be
# the child's plugin before any conftest.py runs).
CHILD = "ARENA_RAY_TEST_CHILD"
# Set in the child: where it appends one JSON line per test phase.
REPORT = "ARENA_RAY_TEST_REPORT"
TIMEOUT_S = 1800  # every Ray test, on a loaded machine
SUMMARY = re.compile(r"^=*\s*\d+ (passed|failed|skipped|error)", re.M)
# worst first: a test's outcome is the worst of its phases (setup, call, teardown)
RANK = {"failed": 0, "skipped": 1, "passed": 2}


@dataclass
class Outcome:
    outcome: str  # passed | failed | skipped
    text: str  # the failure's report, or the reason for a skip


@dataclass
class ChildRun:
    code: int
    output: str
    crashed: bool  # ended without a pytest summary (a native crash, a kill)
    outcomes: dict[str, Outcome] = field(default_factory=dict)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """In the child (this module is its plugin, ``-p``): append one phase's outcome to the
    report file."""
    path = os.environ.get(REPORT)
    if not path:
        return
    if report.skipped and isinstance(report.longrepr, tuple):
        text = str(report.longrepr[2])
    else:
        text = report.longreprtext
    line = {"nodeid": report.nodeid, "when": report.when, "outcome": report.outcome, "text": text}
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(line) + "\n")


def _outcomes(path: Path) -> dict[str, Outcome]:
    """The outcome of each test whose teardown was reported (a test the child died in is not
    done, even if its setup passed)."""
    out: dict[str, Outcome] = {}
    done: set[str] = set()
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    for raw in lines:
        row = json.loads(raw)
        now = out.get(row["nodeid"])
        if now is None or RANK[row["outcome"]] < RANK[now.outcome]:
            out[row["nodeid"]] = Outcome(row["outcome"], row["text"])
        if row["when"] == "teardown":
            done.add(row["nodeid"])
    return {nodeid: got for nodeid, got in out.items() if nodeid in done}


def _ray_logs(tmp: Path, lines: int = 40) -> str:
    """The tail of the child's Ray driver and raylet logs (where a native crash says why)."""
    out = []
    for pattern in ("python-core-driver-*.log", "raylet.out", "raylet.err", "gcs_server.err"):
        for path in sorted(tmp.glob(f"ray/session_2*/logs/{pattern}")):  # not session_latest
            tail = path.read_text(errors="replace").splitlines()[-lines:]
            if tail:
                out.append(f"--- {path.name} ---\n" + "\n".join(tail))
    return "\n".join(out)


def run_child(nodeids: list[str]) -> ChildRun:
    """Run ``nodeids`` in one child pytest process with its own Ray temp dir."""
    tmp = Path(tempfile.mkdtemp(prefix="rt"))  # short: Ray's socket paths must stay short
    report = tmp / "report.jsonl"
    env = dict(os.environ, **{CHILD: "1", "RAY_TMPDIR": str(tmp), REPORT: str(report)})
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist"]
    cmd += ["-p", __name__]  # the hook above, wherever the tests' conftest files are
    cmd += ["--no-header", *nodeids]
    try:
        proc = subprocess.run(
            cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=TIMEOUT_S
        )
        output, code = proc.stdout + proc.stderr, proc.returncode
    except subprocess.TimeoutExpired as err:
        parts = [
            p.decode(errors="replace") if isinstance(p, bytes) else p or ""
            for p in (err.stdout, err.stderr)
        ]
        output = "".join(parts) + f"\n(child timed out after {TIMEOUT_S} s)"
        code = -1
    crashed = code != 0 and not SUMMARY.search(output)
    if code != 0:
        output += "\n" + _ray_logs(tmp)
    outcomes = _outcomes(report)
    shutil.rmtree(tmp, ignore_errors=True)
    return ChildRun(code, output, crashed, outcomes)
