"""The cost of a remote seat: rule bots over loopback HTTP against the same bots in process.

Starts ``arena serve-agent rule`` twice as subprocesses on free loopback ports (one sending the
rendered text, one with ``--no-text``), then plays the same seeded Werewolf matches three ways,
one match at a time: every seat in process, every seat remote (with text), every seat remote
without text. Wall time per decision (the start and end calls included), the added
milliseconds and the ratio; then matches/s with ``--concurrency`` matches in flight, in process
and remote.

Prints one JSON line per figure. Target: ≤ 2 ms added per decision.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arena.agents import factory
from arena.agents.base import Agent
from arena.remote.server import free_port
from arena.results import InvalidActionPolicy, MatchSpec
from arena.runner import MatchRunner

ROOT = Path(__file__).resolve().parents[1]
GAME, RULES = "werewolf", {"preset": "classic8"}
POLICY = InvalidActionPolicy(timeout_s=60)


def serve(*extra: str) -> tuple[subprocess.Popen[str], str]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "serve-agent", "rule", "--port", str(port), *extra],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert proc.stdout is not None
    if not proc.stdout.readline():  # printed once it listens
        raise RuntimeError(
            f"serve-agent did not start: {proc.stderr.read() if proc.stderr else ''}"
        )
    return proc, f"http://127.0.0.1:{port}"


def seats(url: str | None) -> Callable[[str, int], Agent]:
    def build(entry: str, seat: int) -> Agent:
        if url is None:
            return factory.build(entry, "rule", GAME)
        return factory.build(entry, "remote", GAME, {"url": url})

    return build


def spec(i: int) -> MatchSpec:
    return MatchSpec(
        run_id="bench", match_id=f"m{i}", game=GAME, rules=RULES, seed=1000 + i,
        seats=[f"p{s}" for s in range(8)],
    )  # fmt: skip


def server_cpu_s(proc: subprocess.Popen[str]) -> float:
    """CPU seconds the agent server process has used (Linux /proc)."""
    fields = Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed(matches: int, url: str | None, server: subprocess.Popen[str] | None) -> dict[str, float]:
    """One match at a time: wall, this process's CPU and the server's CPU, per decision (ms)."""
    cpu0, srv0 = time.process_time(), server_cpu_s(server) if server else 0.0
    wall, decisions, ok = asyncio.run(play(matches, 1, url))
    assert ok == matches, "matches did not finish"
    srv = (server_cpu_s(server) - srv0) if server else 0.0
    ms = 1000 / decisions
    return {"wall": wall * ms, "cpu": (time.process_time() - cpu0) * ms, "server": srv * ms,
            "decisions": decisions}  # fmt: skip


async def play(matches: int, concurrency: int, url: str | None) -> tuple[float, int, int]:
    """(wall seconds, decisions, finished matches) of ``matches`` matches."""
    gate = asyncio.Semaphore(concurrency)

    async def one(i: int) -> tuple[int, bool]:
        async with gate:
            result = await MatchRunner(spec(i), seats(url), policy=POLICY).run()
            return result.n_decisions, result.status == "finished"

    started = time.perf_counter()
    done = await asyncio.gather(*(one(i) for i in range(matches)))
    wall = time.perf_counter() - started
    return wall, sum(d for d, _ in done), sum(ok for _, ok in done)


def r(value: float) -> float:
    return round(value, 3)


def figures(args: argparse.Namespace, servers: dict[str, tuple[Any, str]]) -> list[dict[str, Any]]:
    (text, text_url), (bare, bare_url) = servers["text"], servers["bare"]
    asyncio.run(play(2, 1, text_url))  # warm both paths (imports, first connections)
    asyncio.run(play(2, 1, bare_url))
    asyncio.run(play(2, 1, None))
    local = timed(args.matches, None, None)
    remote = timed(args.matches, text_url, text)
    bare_r = timed(args.matches, bare_url, bare)
    assert local["decisions"] == remote["decisions"] == bare_r["decisions"], "other matches"
    added = remote["wall"] - local["wall"]
    work = remote["cpu"] + remote["server"] - local["cpu"]  # CPU the remote path adds
    n, c = args.concurrent_matches, args.concurrency
    local_c, _, _ = asyncio.run(play(n, c, None))
    remote_c, _, ok = asyncio.run(play(n, c, text_url))
    assert ok == n
    load = os.getloadavg()[0]
    return [
        {"figure": "decisions", "value": local["decisions"], "unit": "decisions",
         "matches": args.matches},
        {"figure": "in_process_ms_per_decision", "value": r(local["wall"]), "unit": "ms"},
        {"figure": "remote_ms_per_decision", "value": r(remote["wall"]), "unit": "ms"},
        {"figure": "remote_no_text_ms_per_decision", "value": r(bare_r["wall"]), "unit": "ms"},
        {"figure": "remote_added_ms_per_decision", "value": r(added), "unit": "ms",
         "target": 2.0, "ok": added <= 2.0},
        {"figure": "remote_vs_in_process_ratio", "value": round(remote["wall"] / local["wall"], 2),
         "unit": "x"},
        {"figure": "in_process_cpu_ms_per_decision", "value": r(local["cpu"]), "unit": "ms"},
        {"figure": "remote_runner_cpu_ms_per_decision", "value": r(remote["cpu"]), "unit": "ms"},
        {"figure": "remote_server_cpu_ms_per_decision", "value": r(remote["server"]), "unit": "ms"},
        {"figure": "remote_added_cpu_ms_per_decision", "value": r(work), "unit": "ms",
         "note": "runner + agent server CPU minus the in-process CPU: the wall figure on an idle machine"},
        {"figure": "remote_no_text_added_cpu_ms_per_decision",
         "value": r(bare_r["cpu"] + bare_r["server"] - local["cpu"]), "unit": "ms"},
        {"figure": f"in_process_matches_per_s_at_{c}", "value": round(n / local_c, 2),
         "unit": "matches/s", "matches": n},
        {"figure": f"remote_matches_per_s_at_{c}", "value": round(n / remote_c, 2),
         "unit": "matches/s", "matches": n},
        {"figure": "load_average_1min", "value": round(load, 2), "unit": "load",
         "cores": os.cpu_count()},
    ]  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=30, help="matches, one at a time")
    parser.add_argument("--concurrent-matches", type=int, default=128)
    parser.add_argument("--concurrency", type=int, default=32)
    args = parser.parse_args()
    servers = {"text": serve(), "bare": serve("--no-text")}
    try:
        for f in figures(args, servers):
            print(json.dumps(f))
    finally:
        for proc, _ in servers.values():
            proc.terminate()
            proc.wait(timeout=10)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
