"""Scale: N rule-bot Werewolf matches (default 10,000) through `arena run`, two ways.

The same config runs twice, each in its own process, through the command's own code:
``default`` is `arena run` as a user gets it (embedded MQTT broker and live publishing with
seat streams, streaming metrics, the live leaderboard); ``no_broker`` adds ``--no-broker``.
Prints one JSON line per figure: matches/s of each path and their ratio (target ≥ 0.8), peak
RSS of each (target < 500 MB for the default path), CPU time of each (steadier than wall time
on a shared machine; the embedded broker runs in its own process, counted apart), store and
log sizes, the time of the full leaderboard report. Usage:

    .venv/bin/python bench/scale.py [--matches 10000] [--concurrency 16] [--keep DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PATHS = {"no_broker": ["--no-broker"], "default": []}


def emit(figure: str, value: float | int | str | None, unit: str = "", **extra: object) -> None:
    print(json.dumps({"bench": "scale", "figure": figure, "value": value, "unit": unit, **extra}))


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def cpu_s(who: int = resource.RUSAGE_SELF) -> float:
    """CPU time of this process (all its threads), or of its finished children (the broker)."""
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def dir_size(path: Path, pattern: str = "*") -> tuple[int, int]:
    files = [p for p in path.glob(pattern) if p.is_file()]
    return len(files), sum(p.stat().st_size for p in files)


def write_config(root: Path, matches: int, concurrency: int, preset: str) -> Path:
    config = {
        "name": "scale",
        "game": "werewolf",
        "rules": {"preset": preset},
        "agents": [
            {"name": "rule", "kind": "werewolf.rule"},
            {"name": "rule-b", "kind": "werewolf.rule"},
        ],
        "matches": matches,
        "concurrency": concurrency,
        "master_seed": 1,
    }
    path = root / "scale.json"  # JSON is YAML
    path.write_text(json.dumps(config), encoding="utf-8")
    return path


def child(path_name: str, config: Path, output: Path) -> dict[str, Any]:
    """One `arena run` in this process; its figures as a dict (printed by the parent)."""
    from app.cli import main as arena
    from arena.ratings.leaderboard import report
    from arena.store import Store

    argv = ["run", str(config), "--output", str(output), "--run-id", path_name, "--quiet"]
    cpu0, started = cpu_s(), time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):  # the command's own leaderboard table
        code = arena(argv + PATHS[path_name])
    elapsed = time.perf_counter() - started
    if code != 0:
        raise SystemExit(f"arena run {path_name} exited {code}")
    out: dict[str, Any] = {
        "wall_s": elapsed,
        "cpu_s": cpu_s() - cpu0,
        "broker_cpu_s": cpu_s(resource.RUSAGE_CHILDREN),  # the embedded broker's process
        "rss_after_run_mb": rss_mb(),
    }
    run_dir = output / path_name
    store = Store(run_dir / "arena.sqlite")
    try:
        results = store.results()
    finally:
        store.close()
    out["matches"] = len(results)
    out["finished"] = sum(r.status == "finished" for r in results)
    out["events"] = sum(r.n_events for r in results)
    t = time.perf_counter()
    doc = report(results, bootstrap=2000)
    out["report_s"] = time.perf_counter() - t
    out["report_rows"] = len(doc["rows"])
    out["rss_mb"] = rss_mb()
    out["store_bytes"] = dir_size(run_dir, "arena.sqlite*")[1]
    out["logs"], out["log_bytes"] = dir_size(run_dir / "matches", "*.jsonl")
    out["metrics_files"] = dir_size(run_dir / "metrics", "*.jsonl")[0]
    return out


def run_path(path_name: str, config: Path, output: Path) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, __file__, "--child", path_name, "--config", str(config),
         "--output", str(output)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if proc.returncode != 0:
        raise SystemExit(f"{path_name} failed:\n{proc.stderr[-3000:]}")
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--matches", type=int, default=10_000)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--preset", default="classic8")
    ap.add_argument("--keep", help="directory to keep the two runs in (default: a temporary one)")
    ap.add_argument("--child", choices=sorted(PATHS), help=argparse.SUPPRESS)
    ap.add_argument("--config", help=argparse.SUPPRESS)
    ap.add_argument("--output", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.child, Path(args.config), Path(args.output))))
        return
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="arena-scale-"))
    root.mkdir(parents=True, exist_ok=True)
    config = write_config(root, args.matches, args.concurrency, args.preset)
    figures = {}
    for name in PATHS:  # one after the other: they must not share the CPU
        figures[name] = fig = run_path(name, config, root / "runs")
        flags = " ".join(PATHS[name]) or "(defaults: live bus, seat streams, metrics)"
        emit("matches", fig["matches"], "", path=name, finished=fig["finished"],
             failed=fig["matches"] - fig["finished"])  # fmt: skip
        emit("wall_time", round(fig["wall_s"], 1), "s", path=name, flags=flags,
             concurrency=args.concurrency)  # fmt: skip
        emit("matches_per_s", round(fig["matches"] / fig["wall_s"], 2), "matches/s", path=name)
        emit("events_per_s", round(fig["events"] / fig["wall_s"], 1), "events/s", path=name)
        # CPU time is the steadier figure on a shared machine: wall time includes other work
        emit("cpu_time", round(fig["cpu_s"], 1), "s", path=name,
             broker_process=round(fig["broker_cpu_s"], 1))  # fmt: skip
        target = "< 500" if name == "default" else ""
        emit("peak_rss", round(fig["rss_mb"], 1), "MB", path=name, target=target,
             after_run=round(fig["rss_after_run_mb"], 1))  # fmt: skip
    default, bare = figures["default"], figures["no_broker"]
    ratio = (default["matches"] / default["wall_s"]) / (bare["matches"] / bare["wall_s"])
    emit("default_vs_no_broker", round(ratio, 3), "x", target=">= 0.8")
    emit("default_vs_no_broker_cpu", round(bare["cpu_s"] / default["cpu_s"], 3), "x",
         with_broker_process=round(bare["cpu_s"] / (default["cpu_s"] + default["broker_cpu_s"]), 3))  # fmt: skip
    emit("leaderboard_report_time", round(default["report_s"], 2), "s",
         rows=default["report_rows"])  # fmt: skip
    emit("store_size", round(default["store_bytes"] / 1e6, 2), "MB")
    emit("log_size", round(default["log_bytes"] / 1e6, 1), "MB", files=default["logs"])
    emit("log_bytes_per_match", round(default["log_bytes"] / max(default["logs"], 1)), "B")
    emit("metrics_streams", default["metrics_files"], "files", path="default")
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
