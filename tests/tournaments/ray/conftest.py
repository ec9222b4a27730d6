"""Ray tests run one by one in a child pytest process of their own.

Why: Ray's driver lives in the test process, and a fatal error inside Ray's native core (a
failed internal check ends the process with ``_exit(1)``) would take the whole suite down with
no summary — CI once ended that way at 94 %. In a child, such a crash is one failed test whose
report carries the child's output and the tail of Ray's own logs, and the suite goes on.

A child that crashed (no pytest summary) is run once more and the first crash is kept as a
warning; a child whose test failed its assertions is never rerun.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any

import pytest

from tests.tournaments.ray.ray_setup import CHILD, in_child

ROOT = Path(__file__).resolve().parents[3]
TIMEOUT_S = 900
SUMMARY = re.compile(r"^=*\s*\d+ (passed|failed|skipped|error)", re.M)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "ray_isolated: run this test in a child pytest process of its own"
    )


def _ray_logs(tmp: Path, lines: int = 40) -> str:
    """The tail of the child's Ray driver and raylet logs (where a native crash says why)."""
    out = []
    for pattern in ("python-core-driver-*.log", "raylet.out", "raylet.err", "gcs_server.err"):
        for path in sorted(tmp.glob(f"ray/session_2*/logs/{pattern}")):  # not session_latest
            tail = path.read_text(errors="replace").splitlines()[-lines:]
            if tail:
                out.append(f"--- {path.name} ---\n" + "\n".join(tail))
    return "\n".join(out)


def _run_child(nodeid: str) -> tuple[int, str, bool]:
    """(exit code, output, crashed) of one child run of ``nodeid``."""
    tmp = Path(tempfile.mkdtemp(prefix="rt"))  # short: Ray's socket paths must stay short
    env = dict(os.environ, **{CHILD: "1", "RAY_TMPDIR": str(tmp)})
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--no-header", nodeid]
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
    shutil.rmtree(tmp, ignore_errors=True)
    return code, output, crashed


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> Any:
    if in_child() or pyfuncitem.get_closest_marker("ray_isolated") is None:
        return None  # the ordinary in-process call
    code, output, crashed = _run_child(pyfuncitem.nodeid)
    if crashed:
        warnings.warn(
            f"{pyfuncitem.nodeid}: the child crashed (exit {code}); running it once more.\n"
            + output[-4000:],
            stacklevel=1,
        )
        code, output, crashed = _run_child(pyfuncitem.nodeid)
    if code != 0:
        what = "crashed" if crashed else "failed"
        pytest.fail(f"the test {what} in its child process (exit {code}):\n{output[-12000:]}")
    return True
