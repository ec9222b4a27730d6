"""Run directories written before harness health and conditions were kept still read: their
board says health and conditions are unknown, and reading leaves the file as it was."""

from __future__ import annotations

import asyncio
import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from app.cli import main
from tests.arena.live.helpers import toy_tournament


def old_run(tmp: Path) -> Path:
    t = toy_tournament(tmp, matches=3, concurrency=1)
    asyncio.run(t.run())
    db = sqlite3.connect(t.dir.db)
    db.execute("DROP TABLE seat_health")  # the tables a run written before them lacks
    db.execute("DROP TABLE conditions")
    db.commit()
    db.close()
    return t.dir.root


def test_an_old_run_reads_with_unknown_health_and_conditions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir = old_run(tmp_path)
    before = hashlib.sha256((run_dir / "arena.sqlite").read_bytes()).hexdigest()
    capsys.readouterr()
    assert main(["leaderboard", str(run_dir), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["season"]["known"] is False and doc["season"]["of"] == 1
    assert all(r["health"]["unknown_matches"] == r["health"]["matches"] for r in doc["rows"])
    assert all(r["flags"] == [] for r in doc["rows"])
    assert doc["health"]["unknown"] == sorted(r["agent"] for r in doc["rows"])
    assert main(["leaderboard", str(run_dir), "--strict"]) == 0  # unknown is not refused
    out = " ".join(capsys.readouterr().out.split())
    assert "conditions unknown (recorded before runs kept them)" in out
    assert "Harness health" in out and "unknown" in out
    after = hashlib.sha256((run_dir / "arena.sqlite").read_bytes()).hexdigest()
    assert after == before  # a reader never writes
