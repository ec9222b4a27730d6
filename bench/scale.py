"""Scale: N rule-bot Werewolf matches (default 10,000) in one run through the real pipeline.

Plans, runs (asyncio, JSONL per match, SQLite WAL store) and rates one tournament, then prints
one JSON line per figure: matches/s, peak RSS (target < 500 MB), store and log sizes, time to
compute the full leaderboard report. Usage:

    .venv/bin/python bench/scale.py [--matches 10000] [--concurrency 16] [--keep DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.ratings import report
from tournaments import config as tconfig
from tournaments.executor import Progress, Tournament


def emit(figure: str, value: float | int | str, unit: str = "", **extra: object) -> None:
    print(json.dumps({"bench": "scale", "figure": figure, "value": value, "unit": unit, **extra}))


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def dir_size(path: Path, pattern: str = "*") -> tuple[int, int]:
    files = [p for p in path.glob(pattern) if p.is_file()]
    return len(files), sum(p.stat().st_size for p in files)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=10_000)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--preset", default="classic8")
    ap.add_argument("--keep", help="run directory to keep (default: a temporary one)")
    args = ap.parse_args()
    config = tconfig.parse(
        {
            "name": "scale",
            "game": "werewolf",
            "rules": {"preset": args.preset},
            "agents": [
                {"name": "rule", "kind": "werewolf.rule"},
                {"name": "rule-b", "kind": "werewolf.rule"},
            ],
            "matches": args.matches,
            "concurrency": args.concurrency,
            "master_seed": 1,
        }
    )
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="arena-scale-"))
    run_dir = root / "scale"
    emit("rss_before", round(rss_mb(), 1), "MB")
    started = time.perf_counter()
    tournament = Tournament(config, run_dir, "scale")
    plan_s = time.perf_counter() - started
    progress = Progress(total=args.matches)
    results = asyncio.run(tournament.run(progress))
    elapsed = time.perf_counter() - started
    finished = sum(r.status == "finished" for r in results)
    emit("matches", len(results), "", finished=finished, failed=len(results) - finished)
    emit("plan_time", round(plan_s, 2), "s")
    emit("wall_time", round(elapsed, 1), "s", concurrency=args.concurrency)
    emit("matches_per_s", round(len(results) / elapsed, 2), "matches/s")
    emit("events_per_s", round(sum(r.n_events for r in results) / elapsed, 1), "events/s")
    emit("peak_rss_after_run", round(rss_mb(), 1), "MB", target="< 500")
    t = time.perf_counter()
    doc = report(results, bootstrap=2000)
    emit("leaderboard_report_time", round(time.perf_counter() - t, 2), "s", rows=len(doc["rows"]))
    emit("peak_rss", round(rss_mb(), 1), "MB", target="< 500")
    n_db, db_bytes = dir_size(run_dir, "arena.sqlite*")
    emit("store_size", round(db_bytes / 1e6, 2), "MB", files=n_db)
    n_logs, log_bytes = dir_size(run_dir / "matches", "*.jsonl")
    emit("log_size", round(log_bytes / 1e6, 1), "MB", files=n_logs)
    emit("log_bytes_per_match", round(log_bytes / max(n_logs, 1)), "B")
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
