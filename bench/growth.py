"""Growth with run size: does a run's CPU per match or its memory grow with the matches played?

Rule-bot Werewolf runs through `arena run` (as ``bench/scale.py``: the default path with the
embedded live bus, seat streams, streaming metrics and the live leaderboard, and
``--no-broker`` beside it, the baseline), each size and path in its own process. While a run
plays, a thread samples the process's CPU time against the matches done (read from the store),
so the CPU per match of the run's first and last quarter can be compared: a cost that grows
with the matches already played shows as a last quarter dearer than the first.

Prints one JSON line per figure and size: cpu_ms_per_match (whole run, first quarter, last
quarter, and last/first), peak_rss_mb (and peak_rss_playing_mb: the peak before the last match
finished, without the end of the run's board and summaries), matches_per_s, and the
default/no-broker ratio. Usage:

    .venv/bin/python bench/growth.py [--sizes 200 2000] [--concurrency 16] [--paths default]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from scale import PATHS, cpu_s, rss_mb, write_config  # noqa: E402

SAMPLE_S = 0.5


def emit(figure: str, value: Any, **extra: Any) -> None:
    print(json.dumps({"bench": "growth", "figure": figure, "value": value, **extra}), flush=True)


def done_count(db: Path) -> int:
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)
        try:
            row = con.execute(
                "SELECT COUNT(*) FROM matches WHERE status IN ('finished','forfeited','errored')"
            ).fetchone()
        finally:
            con.close()
    except sqlite3.Error:
        return 0
    return int(row[0])


class Sampler:
    """(CPU seconds, matches done) every SAMPLE_S while the run plays, from another thread."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self.samples: list[tuple[float, int]] = []
        self.peaks: list[tuple[int, float]] = []  # (matches done, peak RSS so far)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Sampler:
        self.samples.append((cpu_s(), 0))
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.samples.append((cpu_s(), done_count(self.db)))  # the run's end

    def _run(self) -> None:
        while not self._stop.wait(SAMPLE_S):
            peak = rss_mb()  # read before the count: a peak of the run's end is not counted
            self.samples.append((cpu_s(), done_count(self.db)))
            self.peaks.append((self.samples[-1][1], peak))

    def peak_playing(self, matches: int) -> float | None:
        """Peak RSS (MB) sampled before the last match finished."""
        playing = [peak for done, peak in self.peaks if done < matches]
        return max(playing) if playing else None

    def cpu_ms_between(self, lo: int, hi: int) -> float | None:
        """CPU ms per match from the first sample at ``lo`` matches done to the first at ``hi``."""
        first = next((s for s in self.samples if s[1] >= lo), None)
        last = next((s for s in self.samples if s[1] >= hi), None)
        if first is None or last is None or last[1] <= first[1]:
            return None
        return 1000 * (last[0] - first[0]) / (last[1] - first[1])


def child(path_name: str, config: Path, output: Path, matches: int) -> dict[str, Any]:
    from app.cli import main as arena

    argv = ["run", str(config), "--output", str(output), "--run-id", path_name, "--quiet"]
    cpu0, started = cpu_s(), time.perf_counter()
    db = output / path_name / "arena.sqlite"
    with Sampler(db) as sampler, contextlib.redirect_stdout(io.StringIO()):
        code = arena(argv + PATHS[path_name])
    if code != 0:
        raise SystemExit(f"arena run {path_name} exited {code}")
    quarter = matches // 4
    return {
        "wall_s": time.perf_counter() - started,
        "cpu_ms": 1000 * (cpu_s() - cpu0) / matches,
        # the first quarter starts after the first results (start-up is not a match's cost)
        "first_q": sampler.cpu_ms_between(max(1, quarter // 4), quarter),
        "last_q": sampler.cpu_ms_between(matches - quarter, matches),
        "rss_mb": rss_mb(),
        "rss_playing_mb": sampler.peak_playing(matches),
    }


def run_child(path_name: str, size: int, root: Path, concurrency: int) -> dict[str, Any]:
    root.mkdir(parents=True, exist_ok=True)
    config = write_config(root, size, concurrency, "classic8")
    out = root / f"runs-{size}"
    proc = subprocess.run(
        [sys.executable, __file__, "--child", path_name, "--config", str(config),
         "--output", str(out), "--sizes", str(size)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if proc.returncode != 0:
        raise SystemExit(f"{path_name} at {size} failed:\n{proc.stderr[-3000:]}")
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[200, 2000])
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--paths", nargs="+", choices=sorted(PATHS), default=["no_broker", "default"])
    ap.add_argument("--child", choices=sorted(PATHS), help=argparse.SUPPRESS)
    ap.add_argument("--config", help=argparse.SUPPRESS)
    ap.add_argument("--output", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        fig = child(args.child, Path(args.config), Path(args.output), args.sizes[0])
        print(json.dumps(fig))
        return
    with tempfile.TemporaryDirectory(prefix="arena-growth-") as tmp:
        for size in args.sizes:
            rates: dict[str, float] = {}
            for name in args.paths:  # one after the other: they must not share the CPU
                fig = run_child(name, size, Path(tmp) / f"{name}-{size}", args.concurrency)
                rates[name] = size / fig["wall_s"]
                first, last = fig["first_q"], fig["last_q"]
                emit("cpu_ms_per_match", round(fig["cpu_ms"], 2), path=name, matches=size,
                     first_quarter=first and round(first, 2), last_quarter=last and round(last, 2),
                     last_vs_first=round(last / first, 3) if first and last else None)  # fmt: skip
                emit("peak_rss_mb", round(fig["rss_mb"], 1), path=name, matches=size)
                playing = fig.get("rss_playing_mb")
                emit("peak_rss_playing_mb", playing and round(playing, 1), path=name, matches=size)
                emit("matches_per_s", round(rates[name], 2), path=name, matches=size)
            if len(rates) == 2:
                emit("default_vs_no_broker", round(rates["default"] / rates["no_broker"], 3),
                     matches=size, target=">= 0.8")  # fmt: skip


if __name__ == "__main__":
    main()
