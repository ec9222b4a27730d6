"""Crash safety: kill -9 at random moments and resume; Ctrl-C; a changed config is refused."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from app.cli import main
from arena.ratings.leaderboard import report
from arena.sinks import read_jsonl
from arena.store import Store
from tournaments import config as tconfig
from tournaments.executor import Tournament
from tournaments.rundir import RunLocked, run_lock

ROOT = Path(__file__).resolve().parents[2]

WEREWOLF = {
    "name": "kill",
    "game": "werewolf",
    "rules": {"preset": "classic8"},
    "agents": [{"name": "rule", "kind": "werewolf.rule"}, {"name": "random", "kind": "random"}],
    "lineups": [{"rule": 4, "random": 4}, {"vs": ["rule", "random"]}],
    "seating": "balanced",
    "matches": 18,
    "master_seed": 11,
    "concurrency": 4,
}


def write_config(tmp_path: Path, **over: object) -> Path:
    raw = {**WEREWOLF, "output_dir": str(tmp_path / "runs"), **over}
    path = tmp_path / "cfg.yaml"
    path.write_text(yaml.safe_dump(raw))
    return path


def cli(*args: str, ignore_sigint: bool = False) -> subprocess.Popen[str]:
    """``arena ARGS`` in a child; ``ignore_sigint``: started as a background job of a shell
    without job control (``arena run ... &`` in a script) is, with SIGINT ignored."""

    def background() -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)

    return subprocess.Popen(
        [sys.executable, "-m", "app.cli", *args, "--quiet", "--no-broker"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "500"},
        preexec_fn=background if ignore_sigint else None,
    )


def snapshot(run_dir: Path) -> tuple[list[tuple], dict]:
    store = Store(run_dir / "arena.sqlite")
    try:
        results = store.results()
    finally:
        store.close()
    rows = [(r.match_id, r.seed, r.status, r.outcome, [s.reward for s in r.seats]) for r in results]
    return rows, report(results, seed=5, bootstrap=500)


def db_counts(run_dir: Path) -> tuple[int, int, int]:
    db = sqlite3.connect(run_dir / "arena.sqlite")
    try:
        if not db.execute("SELECT name FROM sqlite_master WHERE name='seats'").fetchone():
            return (0, 0, 0)  # killed before the schema was written
        planned = db.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
        done = db.execute("SELECT COUNT(*) FROM matches WHERE status != 'planned'").fetchone()[0]
        seats = db.execute("SELECT COUNT(*) FROM seats").fetchone()[0]
    finally:
        db.close()
    return planned, done, seats


def wait_for_run_lock(run_dir: Path, proc: subprocess.Popen[str], timeout: float = 120.0) -> None:
    """Until ``proc`` holds the run lock (its pid is in ``run.lock``) or has exited."""
    deadline = time.monotonic() + timeout
    lock = run_dir / "run.lock"
    while proc.poll() is None:
        if lock.exists() and lock.read_text().strip() == str(proc.pid):
            return
        assert time.monotonic() < deadline, "the arena run never took its run lock"
        time.sleep(0.01)


@pytest.mark.slow
def test_kill_9_at_random_points_then_resume_gives_the_uninterrupted_result(
    tmp_path: Path,
) -> None:
    cfg_path = write_config(tmp_path)
    cfg = tconfig.load(cfg_path)
    started = time.perf_counter()
    reference = asyncio.run(Tournament(cfg, tmp_path / "ref", "ref").run())
    t_ref = time.perf_counter() - started
    assert len(reference) == 36
    run_dir = tmp_path / "runs" / "killed"
    rng = random.Random(20)
    kills = 0
    proc = cli("run", str(cfg_path), "--run-id", "killed")
    for _ in range(6):
        # once the child runs the tournament (it holds the run lock: the interpreter's start-up,
        # a second or more on a loaded machine and longer than these delays, is over), at a
        # random point within 5-25% of a full run
        wait_for_run_lock(run_dir, proc)
        time.sleep(rng.uniform(0.05, 0.25) * t_ref)
        if proc.poll() is not None:
            break
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        kills += 1
        if (run_dir / "arena.sqlite").exists():
            planned, done, seats = db_counts(run_dir)
            assert planned in (0, 36) and seats == 8 * done  # a result row always has its seats
        if (run_dir / "config.yaml").exists():
            proc = cli("run", "--resume", str(run_dir))
        else:  # killed before the run directory was written: start it again
            proc = cli("run", str(cfg_path), "--run-id", "killed")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert kills >= 3
    assert db_counts(run_dir) == (36, 36, 36 * 8)
    ref_rows, ref_board = snapshot(tmp_path / "ref")
    rows, board = snapshot(run_dir)
    assert rows == ref_rows  # exactly the planned matches, same seeds and outcomes
    assert board == ref_board
    for path in (run_dir / "matches").glob("*.jsonl"):
        events = list(read_jsonl(path))
        assert events[-1].type == "match_end" and events[-1].payload["status"] == "finished"
        assert [e.seq for e in events] == list(range(len(events)))  # rewritten, not appended


@pytest.mark.slow
@pytest.mark.parametrize(
    ("sig", "background"),
    [(signal.SIGINT, False), (signal.SIGTERM, False), (signal.SIGTERM, True)],
    ids=["ctrl_c", "sigterm", "sigterm_to_a_background_job"],
)
def test_ctrl_c_stops_cleanly_and_says_how_to_resume(
    tmp_path: Path, sig: signal.Signals, background: bool
) -> None:
    # SIGTERM (a supervisor, kill, a CI timeout) is handled as Ctrl-C: before issue 15 it
    # killed the run at once (exit 143, no message, status "running", shown as "crashed").
    # A background job of a script starts with SIGINT ignored: SIGTERM then left the run
    # "running" (and Ctrl-C in such a run's test was ignored: the run played to its end).
    # 300 planned matches: enough that a fast run cannot finish between the second result and
    # the signal, even when this process is starved of CPU for a while.
    cfg_path = write_config(tmp_path, matches=150)
    run_dir = tmp_path / "runs" / "int"
    proc = cli("run", str(cfg_path), "--run-id", "int", ignore_sigint=background)
    deadline = time.monotonic() + 120
    while not ((run_dir / "arena.sqlite").exists() and db_counts(run_dir)[1] >= 2):
        assert proc.poll() is None and time.monotonic() < deadline, "no two results in time"
        time.sleep(0.05)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert f"arena run --resume {run_dir}" in " ".join(err.split())
    planned, done, _ = db_counts(run_dir)
    assert 2 <= done < planned == 300
    status = sqlite3.connect(run_dir / "arena.sqlite").execute("SELECT status FROM runs")
    assert status.fetchone()[0] == "interrupted"
    if sig == signal.SIGINT:  # the stopped run is the same whichever signal stopped it
        # in-flight matches got no result; their records are redone on resume
        assert main(["run", "--resume", str(run_dir), "--quiet", "--no-broker"]) == 0
        assert db_counts(run_dir) == (300, 300, 2400)


def test_a_changed_config_is_refused_with_a_diff_unless_forced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg_path = write_config(tmp_path, matches=2, lineups=[{"rule": 4, "random": 4}])
    assert main(["run", str(cfg_path), "--run-id", "r", "--quiet", "--no-broker"]) == 0
    run_dir = tmp_path / "runs" / "r"
    # concurrency is a runtime knob: changing it needs no --force
    assert (
        main(["run", "--resume", str(run_dir), "--concurrency", "2", "--quiet", "--no-broker"]) == 0
    )
    capsys.readouterr()
    changed = write_config(tmp_path, matches=3, master_seed=12, lineups=[{"rule": 4, "random": 4}])
    assert main(["run", str(changed), "--resume", str(run_dir), "--quiet", "--no-broker"]) == 2
    err = capsys.readouterr().err
    assert "--force" in err and "-master_seed: 11" in err and "+master_seed: 12" in err
    assert "-matches: 2" in err and "+matches: 3" in err
    assert db_counts(run_dir) == (2, 2, 16)  # nothing ran
    # an edited config.yaml inside the run directory is a change too
    stored = yaml.safe_load((run_dir / "config.yaml").read_text())
    (run_dir / "config.yaml").write_text(yaml.safe_dump({**stored, "matches": 4}))
    assert main(["run", "--resume", str(run_dir), "--quiet", "--no-broker"]) == 2
    assert main(["run", "--resume", str(run_dir), "--force", "--quiet", "--no-broker"]) == 0
    assert db_counts(run_dir) == (4, 4, 32)  # finished matches kept, the new ones played
    info = Store(run_dir / "arena.sqlite").run_info()
    assert info is not None and info["config"]["matches"] == 4


def test_two_processes_cannot_run_one_directory(tmp_path: Path) -> None:
    lock = tmp_path / "run.lock"
    with run_lock(lock), pytest.raises(RunLocked, match=str(os.getpid())), run_lock(lock):
        pass


def test_resume_of_a_missing_directory_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "--resume", str(tmp_path / "nope"), "--quiet", "--no-broker"]) == 2
    assert "no such file" in capsys.readouterr().err


def test_concurrency_shapes_a_rating_driven_plan_without_an_explicit_batch() -> None:
    from tournaments.resume import config_diff

    base = {"game": "toy", "agents": [{"name": "a", "kind": "random"}], "concurrency": 4}
    rd = {**base, "format": "rating_driven", "concurrency": 4}
    assert config_diff(base, {**base, "concurrency": 8}) == []
    assert any("concurrency: 8" in line for line in config_diff(rd, {**rd, "concurrency": 8}))
    fixed = {**rd, "rating_driven": {"batch": 4}}
    assert config_diff(fixed, {**fixed, "concurrency": 8}) == []


def test_a_run_planned_otherwise_is_refused_on_resume_unless_forced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Unfinished matches stored with other seats than today's plan gives their ids (a run
    planned by an earlier version): resuming would mix two plans, so it is refused."""
    raw = {
        "name": "toy3",
        "game": "toy",
        "rules": {"n_players": 2},
        "agents": [{"name": n, "kind": "random"} for n in ("a", "b", "c")],
        "matches": 2,
        "output_dir": str(tmp_path / "runs"),
    }
    cfg = tconfig.parse(raw)
    run_dir = tmp_path / "runs" / "r"
    tournament = Tournament(cfg, run_dir, "r")
    tournament.prepare().close()  # planned, nothing run (as after a kill)
    older = [s.model_copy(update={"seats": ["a", "b"]}) for s in tournament.specs]
    store = Store(run_dir / "arena.sqlite")
    store.replan(older)
    store.close()
    assert main(["run", "--resume", str(run_dir), "--quiet", "--no-broker"]) == 2
    err = capsys.readouterr().err
    assert "5 unfinished match(es) (toy-r0-m00001, toy-r0-m00002, toy-r0-m00003, ...)" in err
    assert "--force" in err
    assert db_counts(run_dir)[1] == 0  # nothing ran
    assert main(["run", "--resume", str(run_dir), "--force", "--quiet", "--no-broker"]) == 0
    store = Store(run_dir / "arena.sqlite")
    played = {r.match_id: [s.agent for s in r.seats] for r in store.results()}
    store.close()
    assert played == {s.match_id: s.seats for s in tournament.specs}
