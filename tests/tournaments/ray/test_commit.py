"""Group commit of the Ray driver's results: rows only after their records are durable, in
bounded groups, and a kill -9 at any point loses nothing that was reported finished."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from arena.results import MatchResult, MatchSpec
from arena.store import Store
from tournaments.ray.commit import GroupCommit, RecordFile

ROOT = Path(__file__).resolve().parents[3]
MATCHES = 14


def result(i: int) -> MatchResult:
    return MatchResult(match_id=f"m{i:03d}", game="toy", seed=i, index=i, status="finished",
                       outcome="done")  # fmt: skip


async def test_results_that_arrive_together_commit_in_bounded_groups_after_their_records(
    tmp_path: Path,
) -> None:
    store = Store(tmp_path / "arena.sqlite")
    store.plan([MatchSpec(match_id=f"m{i:03d}", game="toy", seed=i, seats=["a"], index=i)
                for i in range(10)])  # fmt: skip
    records: dict[str, RecordFile] = {}
    seen: list[tuple[str, bool]] = []
    commits = GroupCommit(
        store, lambda r: seen.append((r.match_id, records[r.match_id].durable)), most=4
    )
    for i in range(10):  # ten results in one go: three groups of at most four
        rec = records[f"m{i:03d}"] = RecordFile(tmp_path / f"m{i:03d}.jsonl")
        rec.write(['{"seq":0}'])
        rec.close(sync=False)
        commits.add(result(i), rec)
    assert seen == [] and commits.ids == set(records)  # queued, nothing counted yet
    await commits.drain()
    assert seen == [(f"m{i:03d}", True) for i in range(10)]  # in order, each record durable
    assert commits.groups == 3 and commits.ids == set() and len(store.done_ids()) == 10
    store.close()


async def test_a_row_the_store_already_has_does_not_take_its_group_mates_down(
    tmp_path: Path,
) -> None:
    store = Store(tmp_path / "arena.sqlite")
    store.plan([MatchSpec(match_id=f"m{i:03d}", game="toy", seed=i, seats=["a"], index=i)
                for i in range(3)])  # fmt: skip
    store.write_result(result(1))  # written behind the driver's back
    seen: list[str] = []
    commits = GroupCommit(store, lambda r: seen.append(r.match_id))
    for i in range(3):
        commits.add(result(i), None)
    with pytest.raises(RuntimeError, match="already has a result"):
        await commits.drain()
    assert seen == ["m000", "m002"] and store.done_ids() == {"m000", "m001", "m002"}
    store.close()


def run_child(run_dir: Path, point: str) -> tuple[int, list[str]]:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    proc = subprocess.run(
        [sys.executable, "-m", "tests.tournaments.ray.commit_child", str(run_dir), str(MATCHES),
         point],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=120, check=False,
    )  # fmt: skip
    return proc.returncode, [line.split()[1] for line in proc.stdout.splitlines()]


def complete_records(run_dir: Path, ids: set[str]) -> bool:
    for match_id in ids:
        lines = (run_dir / "matches" / f"{match_id}.jsonl").read_text().splitlines()
        if len(lines) != 4 or json.loads(lines[-1]) != {"type": "end"}:
            return False
    return True


@pytest.mark.parametrize("point", ["sync:1", "rows:1", "after:2"])
def test_a_kill_mid_batch_loses_nothing_reported_and_the_resume_completes(
    tmp_path: Path, point: str
) -> None:
    code, reported = run_child(tmp_path, point)
    assert code == -signal.SIGKILL
    db = Store(tmp_path / "arena.sqlite")
    done = db.done_ids()
    db.close()
    assert set(reported) <= done  # every match reported finished has its row ...
    assert complete_records(tmp_path, done)  # ... and every row its complete record
    assert 0 < len(done) < MATCHES  # killed mid-run, after a first group
    code, resumed = run_child(tmp_path, "none")
    assert code == 0 and set(resumed) == {f"m{i:03d}" for i in range(MATCHES)} - done
    con = sqlite3.connect(tmp_path / "arena.sqlite")
    statuses = [r[0] for r in con.execute("SELECT status FROM matches")]
    con.close()
    assert statuses == ["finished"] * MATCHES  # each match once, none lost
    assert complete_records(tmp_path, set(reported) | set(resumed))
