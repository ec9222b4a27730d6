"""Rule-bot tournaments through the asyncio executor and the Ray executor (1 and 2 workers).

Each figure is one JSON line:
  asyncio_matches_per_s      the default executor (one process)
  ray_1_matches_per_s        Ray, a local cluster of 1 CPU (one worker process plays)
  ray_2_matches_per_s        Ray, 2 CPUs (two worker processes play)
  ray_per_match_overhead_ms  CPU per match of a Ray run (driver + workers, Ray's own threads
                             included) minus asyncio's CPU per match; beside it the wall-time
                             difference with 1 worker (the driver records on another core)
  driver_ms_per_match        what the driver alone does per match on its loop (records, result
                             rows, sinks), and within it store_ms_per_match and
                             record_ms_per_match; sync_ms_per_match: the records' fsyncs, in a
                             thread beside the loop; driver_cpu_ms_per_match: the driver
                             process's CPU per match (Ray's client threads included). Twice,
                             in the same 2-CPU cluster: commit=per_match (one commit and fsync
                             per match, the baseline) and commit=group (the default)
  projection_100_workers     matches/s 100 workers would play vs what one driver can record
                             (from the driver's cost per match at this run's arrival rate)
  driver_records_matches_per_s  the driver's ceiling when results arrive faster than it can
                             commit (the asyncio run's results and records handed to it at
                             once): one commit per match (baseline) and group commit; target
                             >= 1,000 matches/s
Cluster start and worker start-up are outside the timings (a warm-up run comes first). The
CPU of Ray's own processes (GCS, raylet) is not in the CPU figures. On a shared machine the wall-clock rates favour the run with more
processes (the kernel shares CPU per process); the CPU figures are the steadier ones. Usage:

    .venv/bin/python bench/ray_executor.py [--matches 200] [--concurrency 8] [--preset P]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def emit(figure: str, value: Any, unit: str = "", **extra: Any) -> None:
    line = {"bench": "ray_executor", "figure": figure, "value": value, "unit": unit, **extra}
    print(json.dumps(line), flush=True)


def config(matches: int, concurrency: int, preset: str, out: Path) -> Any:
    from tournaments import config as tconfig

    return tconfig.parse(
        {
            "name": "bench",
            "game": "werewolf",
            "rules": {"preset": preset},
            "agents": [
                {"name": "rule", "kind": "werewolf.rule"},
                {"name": "rule-b", "kind": "werewolf.rule"},
            ],
            "matches": matches,
            "concurrency": concurrency,
            "master_seed": 1,
            "output_dir": str(out),
        }
    )


def play(cfg: Any, run_dir: Path, executor: Any = None) -> tuple[float, float, int]:
    """(wall seconds, this process's CPU seconds, finished matches) of one run."""
    from tournaments.executor import Tournament

    started, cpu = time.perf_counter(), time.process_time()
    results = asyncio.run(Tournament(cfg, run_dir, run_dir.name, executor=executor).run())
    finished = sum(r.status == "finished" for r in results)
    return time.perf_counter() - started, time.process_time() - cpu, finished


def on_ray(cfg: Any, warm: Any, root: Path, cpus: int) -> list[dict[str, float]]:
    """The run on a local cluster of ``cpus``: with group commit (the default), and with 2 CPUs
    also with one commit per match (``group_most=1``, the baseline) in the same cluster."""
    import ray

    from tournaments.ray.executor import RayExecutor

    ray.init(address="local", num_cpus=cpus, include_dashboard=False, logging_level=logging.ERROR)
    out = []
    try:
        play(warm, root / f"warm{cpus}", RayExecutor())  # workers start outside the timing
        for most in (None, 1) if cpus == 2 else (None,):
            executor = RayExecutor() if most is None else RayExecutor(group_most=most)
            name = f"ray{cpus}" if most is None else f"ray{cpus}-per-match"
            out.append(figures(executor, *play(cfg, root / name, executor)))
    finally:
        ray.shutdown()
    return out


def figures(executor: Any, wall: float, cpu: float, finished: int) -> dict[str, float]:
    n = max(finished, 1)
    return {
        "wall_s": wall,
        "cpu_ms": 1000 * (cpu + executor.worker_cpu_s) / n,
        "driver_cpu_ms": 1000 * cpu / n,
        "worker_cpu_ms": 1000 * executor.worker_cpu_s / n,
        "finished": finished,
        "driver_ms": 1000 * executor.driver_s / n,
        "store_ms": 1000 * executor.store_s / n,
        "record_ms": 1000 * executor.record_s / n,
        # beside the loop, in a thread: the records' fsyncs (a group's before its rows)
        "sync_ms": 1000 * executor.sync_s / n,
        "per_commit": finished / max(executor.groups, 1),
        "tasks": executor.tasks,
    }


def driver_saturated(played: Path, root: Path, most: int) -> dict[str, float]:
    """The driver's recording ceiling: ``played``'s results and records handed to a fresh
    store as fast as the driver's loop takes them (what a large cluster does to it), each
    record written, its result queued for a group commit of at most ``most``."""
    from arena.store import Store
    from tournaments.ray.commit import GroupCommit, RecordFile

    source = Store(played / "arena.sqlite")
    results, specs = source.results(), source.specs()
    source.close()
    lines = {r.match_id: (played / str(r.jsonl)).read_text().splitlines() for r in results}
    store = Store(root / "arena.sqlite")
    store.plan(specs)

    async def record_all() -> None:
        commits = GroupCommit(store, lambda r: None, most)
        for result in results:
            record = RecordFile(root / str(result.jsonl))
            record.write(lines[result.match_id])
            record.close(sync=False)
            commits.add(result, record)
            await asyncio.sleep(0)  # the loop takes the next message; commits run meanwhile
        await commits.drain()
        out["groups"] = commits.groups

    out: dict[str, float] = {}
    started = time.perf_counter()
    asyncio.run(record_all())
    out["matches_per_s"] = len(results) / (time.perf_counter() - started)
    store.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--preset", default="classic8")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        cfg = config(args.matches, args.concurrency, args.preset, root)
        warm = config(max(2, args.concurrency), args.concurrency, args.preset, root)
        play(warm, root / "warm")
        wall, cpu, finished = play(cfg, root / "asyncio")
        aio = finished / wall
        aio_cpu_ms = 1000 * cpu / max(finished, 1)
        emit("asyncio_matches_per_s", round(aio, 2), "matches/s", matches=finished,
             cpu_ms_per_match=round(aio_cpu_ms, 2))  # fmt: skip
        saturated: dict[str, float] = {}
        for most, commit in ((1, "per_match"), (256, "group")):
            sat = driver_saturated(root / "asyncio", root / f"driver-{most}", most)
            saturated[commit] = sat["matches_per_s"]
            emit("driver_records_matches_per_s", round(sat["matches_per_s"], 1), "matches/s",
                 commit=commit, results_per_commit=round(finished / max(sat["groups"], 1), 1),
                 target=">= 1000")  # fmt: skip
        runs = {cpus: on_ray(cfg, warm, root, cpus) for cpus in (1, 2)}
    for cpus, (r, *_) in runs.items():
        emit(f"ray_{cpus}_matches_per_s", round(r["finished"] / r["wall_s"], 2), "matches/s",
             matches=r["finished"], tasks=r["tasks"],
             cpu_ms_per_match=round(r["cpu_ms"], 2))  # fmt: skip
    one = runs[1][0]
    per_ray = one["wall_s"] / max(one["finished"], 1)
    emit("ray_per_match_overhead_ms", round(one["cpu_ms"] - aio_cpu_ms, 2), "CPU ms/match",
         wall_ms_1_worker_minus_asyncio=round(1000 * (per_ray - 1 / aio), 2))  # fmt: skip
    group, per_match = runs[2]
    for commit, two in (("per_match", per_match), ("group", group)):
        driver(commit, two, saturated[commit])


def driver(commit: str, two: dict[str, float], records_per_s: float) -> None:
    """The driver's figures of one 2-CPU run and the ceiling they project."""
    emit("driver_ms_per_match", round(two["driver_ms"], 3), "ms/match", commit=commit,
         driver_cpu_ms_per_match=round(two["driver_cpu_ms"], 3),
         store_ms_per_match=round(two["store_ms"], 3),
         record_ms_per_match=round(two["record_ms"], 3),
         sync_ms_per_match=round(two["sync_ms"], 3),
         results_per_commit=round(two["per_commit"], 1))  # fmt: skip
    # 100 workers on a core each play 100 x 1000 / (worker CPU per match) matches/s (the games
    # are independent; CPU, not this shared machine's wall clock); one driver records at most
    # 1000 / (its busier resource per match: its loop or its CPU), and no more than it commits
    # when results arrive faster than that (driver_records_matches_per_s: a group's fsyncs
    # are shared by its results only when many arrive together, as they would from 100
    # workers, not at this run's pace). The smaller of the two rates is the ceiling.
    per_worker = 1000 / max(two["worker_cpu_ms"], 1e-6)
    busiest = max(two["driver_ms"], two["driver_cpu_ms"], 1e-6)
    driver_cap = min(1000 / busiest, records_per_s)
    emit("projection_100_workers", round(min(100 * per_worker, driver_cap), 1), "matches/s",
         commit=commit, workers_could_play=round(100 * per_worker, 1),
         driver_can_record=round(driver_cap, 1), target_driver=">= 1000",
         worker_cpu_ms_per_match=round(two["worker_cpu_ms"], 2),
         bottleneck="driver" if driver_cap < 100 * per_worker else "workers")  # fmt: skip


if __name__ == "__main__":
    main()
