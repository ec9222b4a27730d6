"""One run directory: its paths, and the lock that keeps two processes from running it at once."""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path
from typing import IO


class RunDirectory:
    """Paths of one run directory."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.config = root / "config.yaml"
        self.db = root / "arena.sqlite"
        self.matches = root / "matches"
        self.lock = root / "run.lock"

    def jsonl(self, match_id: str) -> Path:
        return self.matches / f"{match_id}.jsonl"


class RunLocked(RuntimeError):
    """Another live process is running this run directory."""


@contextlib.contextmanager
def run_lock(path: Path) -> IO[str]:  # type: ignore[misc]
    """An exclusive lock held for the life of the process (released even on kill -9)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fh = open(path, "a+", encoding="utf-8")  # noqa: SIM115
    try:
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        fh.seek(0)
        holder = fh.read().strip() or "?"
        fh.close()
        raise RunLocked(f"{path.parent} is being run by another process (pid {holder})") from None
    fh.seek(0)
    fh.truncate()
    fh.write(str(os.getpid()))
    fh.flush()
    try:
        yield fh
    finally:
        fcntl.flock(fh, fcntl.LOCK_UN)
        fh.close()


def is_locked(path: Path) -> bool:
    """Whether a live process holds the run lock."""
    if not path.exists():
        return False
    with open(path, "a+", encoding="utf-8") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(fh, fcntl.LOCK_UN)
    return False
