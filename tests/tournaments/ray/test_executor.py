"""The Ray executor on a local two-CPU cluster: the same results as asyncio, resume across
executors, a worker killed mid-run, a match that keeps failing, the CLI flag."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import yaml

pytest.importorskip("ray")

from app.cli import main
from arena.ratings.leaderboard import leaderboard
from arena.results import MatchResult, MatchSpec
from arena.sinks import EventSink, MemorySink
from tests.builders import make_config, played_rows
from tests.tournaments.ray.ray_setup import ray_cluster  # noqa: F401
from tournaments.executor import Tournament
from tournaments.progress import Progress
from tournaments.ray.executor import RayExecutor

pytestmark = [pytest.mark.usefixtures("ray_cluster"), pytest.mark.ray_isolated]


def record(run_dir: Path, result: MatchResult) -> list[dict[str, Any]]:
    """A match's JSONL record without what differs between two runs (run id, wall clock)."""
    assert result.jsonl is not None
    rows = [json.loads(line) for line in (run_dir / result.jsonl).read_text().splitlines()]
    for row in rows:
        row.pop("ts"), row.pop("run_id"), row["payload"].pop("elapsed_s", None)
    return rows


def rows(run_dir: Path) -> tuple[int, int, int]:
    """(match rows, distinct match ids among seat rows, seat rows) of a run's database."""
    db = sqlite3.connect(run_dir / "arena.sqlite")
    try:
        return (
            db.execute("SELECT COUNT(*) FROM matches").fetchone()[0],
            db.execute("SELECT COUNT(DISTINCT match_id) FROM seats").fetchone()[0],
            db.execute("SELECT COUNT(*) FROM seats").fetchone()[0],
        )
    finally:
        db.close()


def test_same_seeds_give_the_same_results_records_and_leaderboard(tmp_path: Path) -> None:
    cfg = make_config(tmp_path)
    local = asyncio.run(Tournament(cfg, tmp_path / "a", "a").run())
    executor = RayExecutor()
    progress = Progress(total=0)
    seen: list[dict[str, int]] = []
    progress.on_change = lambda p: seen.append(dict(p.nodes))
    live: dict[str, MemorySink] = {}

    def sinks(spec: MatchSpec) -> list[EventSink]:
        sink = live[spec.match_id] = MemorySink()
        return [sink]

    t = Tournament(cfg, tmp_path / "r", "r", extra_sinks=sinks, executor=executor)
    remote = asyncio.run(t.run(progress))
    assert played_rows(remote) == played_rows(local) and len(remote) == 12
    assert leaderboard(remote) == leaderboard(local)
    for a, r in zip(local, remote, strict=True):
        assert record(tmp_path / "r", r) == record(tmp_path / "a", a)
        # the driver fed the optional sinks (the live bus, metrics) every event of the record
        lines = (tmp_path / "r" / str(r.jsonl)).read_text().splitlines()
        assert [e.model_dump_json() for e in live[r.match_id].events] == lines
    assert executor.tasks >= 2 and executor.reruns == 0 and executor.duplicates == 0
    # per-node activity: matches were seen running on the (one) node, and none is left
    assert max(sum(n.values()) for n in seen) >= 1 and set(progress.nodes.values()) == {0}
    assert progress.done == 12 and progress.running == 0


def test_resume_works_whichever_executor_played_the_first_part(tmp_path: Path) -> None:
    cfg = make_config(tmp_path)
    full = asyncio.run(Tournament(cfg, tmp_path / "full", "full").run())
    for first, then in (("ray", "asyncio"), ("asyncio", "ray")):
        run_dir = tmp_path / f"{first}-then-{then}"
        executor = RayExecutor() if first == "ray" else None
        t = Tournament(cfg, run_dir, "p", executor=executor)
        store = t.prepare()
        sem = asyncio.Semaphore(cfg.concurrency)
        asyncio.run(t.executor.run_specs(t, t.specs[:5], store, Progress(total=5), sem))
        store.close()
        assert rows(run_dir)[1] == 5
        resumed = asyncio.run(
            Tournament(cfg, run_dir, "p", executor=RayExecutor() if then == "ray" else None).run()
        )
        assert played_rows(resumed) == played_rows(full)
        assert rows(run_dir) == (12, 12, 12 * 4)


def test_an_interrupted_ray_run_is_marked_and_resumes_to_the_uninterrupted_result(
    tmp_path: Path,
) -> None:
    cfg = make_config(tmp_path)
    full = asyncio.run(Tournament(cfg, tmp_path / "full", "full").run())

    async def interrupted() -> None:
        main_task = asyncio.current_task()
        assert main_task is not None
        progress = Progress(total=0)

        def stop(p: Progress) -> None:  # Ctrl-C once three matches are recorded
            if p.done >= 3 and not main_task.cancelling():
                main_task.cancel()

        progress.on_change = stop
        with pytest.raises(asyncio.CancelledError):
            await Tournament(cfg, tmp_path / "i", "i", executor=RayExecutor()).run(progress)

    asyncio.run(interrupted())
    from arena.store import Store

    store = Store(tmp_path / "i" / "arena.sqlite")
    info, done = store.run_info(), len(store.done_ids())
    store.close()
    assert info is not None and info["status"] == "interrupted" and 3 <= done < 12
    resumed = asyncio.run(Tournament(cfg, tmp_path / "i", "i", executor=RayExecutor()).run())
    assert played_rows(resumed) == played_rows(full)
    assert rows(tmp_path / "i") == (12, 12, 12 * 4)


def killer_config(tmp_path: Path, kind: str, **params: Any) -> Any:
    return make_config(
        tmp_path,
        game="raytoy",
        agents=[
            {"name": "low", "kind": "lowest"},
            {"name": "k", "kind": kind, "params": {"match": "raytoy-r0-m00003", **params}},
        ],
        matches=8,
    )


def test_a_worker_killed_mid_match_is_rerun_from_its_seed_and_recorded_once(
    tmp_path: Path,
) -> None:
    marker = tmp_path / "killed"
    cfg = killer_config(tmp_path, "dies_once", marker=str(marker))
    executor = RayExecutor()
    results = asyncio.run(Tournament(cfg, tmp_path / "r", "r", executor=executor).run())
    assert marker.exists()  # a worker process did die in the middle of match 3
    assert executor.reruns >= 1 and executor.duplicates == 0
    assert [r.status for r in results] == ["finished"] * 8  # planned = finished
    assert rows(tmp_path / "r") == (8, 8, 8 * 4)  # no duplicate rows
    # the rerun played match 3 from its seed: as a run where nobody died
    calm = asyncio.run(Tournament(cfg, tmp_path / "a", "a").run())  # marker exists: no kill
    assert played_rows(results) == played_rows(calm)
    killed = next(r for r in results if r.match_id == "raytoy-r0-m00003")
    assert record(tmp_path / "r", killed)[-1]["type"] == "match_end"


def test_a_match_that_keeps_killing_its_worker_ends_errored_and_the_others_finish(
    tmp_path: Path,
) -> None:
    cfg = killer_config(tmp_path, "dies_always")
    executor = RayExecutor(attempts=2)
    results = asyncio.run(Tournament(cfg, tmp_path / "r", "r", executor=executor).run())
    by_id = {r.match_id: r for r in results}
    bad = by_id.pop("raytoy-r0-m00003")
    assert bad.status == "errored" and bad.reason is not None
    assert bad.reason.startswith("failed 2 times; last: ") and "Worker" in bad.reason
    assert [r.status for r in by_id.values()] == ["finished"] * 7
    assert rows(tmp_path / "r") == (8, 7, 7 * 4)


def test_a_result_for_a_match_that_has_its_row_is_not_written_twice(tmp_path: Path) -> None:
    cfg = make_config(tmp_path, matches=4)
    t = Tournament(cfg, tmp_path / "r", "r", executor=RayExecutor())
    results = asyncio.run(t.run())
    again = RayExecutor()
    t2 = Tournament(cfg, tmp_path / "r", "r", executor=again)
    store = t2.prepare()
    # hand the finished specs over again (a late reply of a rerun looks the same)
    asyncio.run(t2.executor.run_specs(t2, t2.specs, store, Progress(total=4), asyncio.Semaphore(4)))
    from tournaments.ray.executor import _RayRun

    run = _RayRun(again, t2, store, Progress(total=4))
    run._record(results[0])
    store.close()
    assert again.tasks == 0 and again.duplicates == 1  # nothing replayed, the copy dropped
    assert rows(tmp_path / "r") == (4, 4, 16)


def test_cli_runs_on_ray_and_prints_the_same_leaderboard(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(make_config(tmp_path).model_dump(mode="json")))
    common = ["--quiet", "--no-broker", "--no-metrics"]
    assert main(["run", str(path), "--run-id", "ray", "--executor", "ray", *common]) == 0
    on_ray = capsys.readouterr().out
    assert main(["run", str(path), "--run-id", "aio", *common]) == 0
    local = capsys.readouterr().out
    board = [line for line in on_ray.splitlines() if "rnd" in line or "low" in line]
    assert board and board == [line for line in local.splitlines() if line in board]
    assert main(["run", str(path), "--run-id", "x", "--address", "auto", *common]) == 2
