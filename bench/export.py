"""Export: rows/s and peak RSS of `arena export` over a large rule-bot run.

One run of N rule-bot Werewolf matches (default 10,000) is played through `arena run`
(no broker, no metrics); then each export runs in a fresh process of its own, so its peak RSS
is its own: parquet of the first ``--small`` matches (default 1,000) and of all N, then JSON
lines and the Hugging Face dataset of all N. Prints one JSON line per figure: rows, rows/s,
matches/s, peak RSS and RSS above the imports of each export, output size, and the ratio of
peak RSS at N to peak RSS at ``--small`` matches (bounded memory: target < 1.25). Usage:

    .venv/bin/python bench/export.py [--matches 10000] [--small 1000] [--keep DIR]
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


def emit(figure: str, value: float | int | str | None, unit: str = "", **extra: object) -> None:
    print(json.dumps({"bench": "export", "figure": figure, "value": value, "unit": unit, **extra}))


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def make_run(root: Path, matches: int, concurrency: int) -> Path:
    config = {
        "name": "export-bench",
        "game": "werewolf",
        "rules": {"preset": "classic8"},
        "agents": [
            {"name": "rule", "kind": "werewolf.rule"},
            {"name": "random", "kind": "random"},
        ],
        "matches": matches,
        "concurrency": concurrency,
        "master_seed": 1,
    }
    path = root / "config.json"  # JSON is YAML
    path.write_text(json.dumps(config), encoding="utf-8")
    argv = [sys.executable, "-m", "app.cli", "run", str(path), "--output", str(root),
            "--run-id", "run", "--quiet", "--no-broker", "--no-metrics"]  # fmt: skip
    started = time.perf_counter()
    proc = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"arena run failed:\n{proc.stderr[-3000:]}")
    emit("run_generated", matches, "matches", wall_s=round(time.perf_counter() - started, 1))
    return root / "run"


def child(run_dir: Path, fmt: str, out: Path, max_matches: int | None) -> dict[str, Any]:
    """One export in this process; its figures as a dict (printed by the parent)."""
    import datasets  # noqa: F401  (imported before the baseline: its import is not the export's)
    import pyarrow.parquet  # noqa: F401

    from tournaments.export import ExportOptions, export_run

    baseline = rss_mb()
    started = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        summary = export_run(
            run_dir,
            ExportOptions(fmt=fmt, out=out, max_matches=max_matches),  # type: ignore[arg-type]
        )
    wall = time.perf_counter() - started
    return {
        "rows": summary.rows,
        "matches": summary.matches,
        "wall_s": wall,
        "rss_mb": rss_mb(),
        "baseline_mb": baseline,
        "bytes": dir_bytes(out),
    }


def run_child(run_dir: Path, fmt: str, out: Path, max_matches: int | None) -> dict[str, Any]:
    argv = [sys.executable, __file__, "--child", fmt, "--run", str(run_dir), "--out", str(out)]
    if max_matches is not None:
        argv += ["--max-matches", str(max_matches)]
    proc = subprocess.run(argv, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"export {fmt} failed:\n{proc.stderr[-3000:]}")
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--matches", type=int, default=10_000)
    ap.add_argument("--small", type=int, default=1_000, help="matches of the small export")
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--formats", default="parquet,jsonl,hf", help="formats exported at full size")
    ap.add_argument("--keep", help="directory to keep the run and exports in")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--run", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    ap.add_argument("--max-matches", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(Path(args.run), args.child, Path(args.out), args.max_matches)))
        return
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="arena-export-"))
    root.mkdir(parents=True, exist_ok=True)
    run_dir = make_run(root, args.matches, args.concurrency)
    log = sum(p.stat().st_size for p in (run_dir / "matches").glob("*.jsonl"))
    emit("run_log_size", round(log / 1e6, 1), "MB", matches=args.matches)
    cases = [("parquet", args.small)] + [(f, None) for f in args.formats.split(",") if f]
    peaks: dict[int, float] = {}
    for fmt, limit in cases:  # one after the other: they must not share the CPU
        size = limit or args.matches
        fig = run_child(run_dir, fmt, root / f"out-{fmt}-{size}", limit)
        where = {"format": fmt, "matches": fig["matches"]}
        emit("rows", fig["rows"], "rows", **where)
        emit("rows_per_s", round(fig["rows"] / fig["wall_s"], 1), "rows/s", **where,
             wall_s=round(fig["wall_s"], 1))  # fmt: skip
        emit("matches_per_s", round(fig["matches"] / fig["wall_s"], 1), "matches/s", **where)
        emit("peak_rss", round(fig["rss_mb"], 1), "MB", **where,
             above_imports=round(fig["rss_mb"] - fig["baseline_mb"], 1))  # fmt: skip
        emit("output_size", round(fig["bytes"] / 1e6, 2), "MB", **where)
        if fmt == "parquet":
            peaks[size] = fig["rss_mb"]
    if len(peaks) == 2:
        small, large = peaks[args.small], peaks[args.matches]
        emit("peak_rss_ratio_large_vs_small", round(large / small, 3), "x",
             small=args.small, large=args.matches, target="< 1.25")  # fmt: skip
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
