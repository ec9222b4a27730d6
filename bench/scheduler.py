"""Scheduler throughput against `arena serve --engine scripted` (fixed latency) in a subprocess.

For each concurrency C it prints one JSON line per figure:
  ideal          C / latency requests/s
  bare_client    a bare AsyncOpenAI loop with C workers against the same server (the practical
                 limit of this machine)
  tournament     Werewolf matches with LLM agents, C concurrent matches, backend concurrency C
                 (LLM calls/s counted from the llm_call events), on ``arena run``'s default path
                 (embedded live bus with an MQTT publisher, streaming metrics, JSONL records and
                 SQLite; ``--bare-path``: records and SQLite only)
  cpu_per_request  this process's CPU (user + system) per LLM request, for the bare client and
                 the tournament (the server runs in its own process)
  sequential     one match at a time through the same pipeline
and the ratios against the targets (>= 0.9 x bare client, >= 25 x sequential). Usage:

    .venv/bin/python bench/scheduler.py [--concurrency 32 64] [--latency 0.2] [--waves 4]
                                        [--bare-path]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def emit(figure: str, value: Any, unit: str = "", **extra: Any) -> None:
    # the load average beside every figure: on a shared machine timings are noisy
    load = round(os.getloadavg()[0], 2)
    line = {"bench": "scheduler", "figure": figure, "value": value, "unit": unit, **extra}
    print(json.dumps({**line, "load_avg_1m": load}), flush=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(port: int, latency: float) -> subprocess.Popen[bytes] | None:
    cmd = [sys.executable, "-m", "app.cli", "serve", "--engine", "scripted", "--port", str(port),
           "--latency", f"const:{latency}"]  # fmt: skip
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    import httpx

    deadline = time.time() + 30
    while time.time() < deadline:
        if proc.poll() is not None:
            return None
        try:
            if httpx.get(f"http://127.0.0.1:{port}/v1/models", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.2)
    proc.kill()
    return None


def cpu_s() -> float:
    """CPU seconds (user + system) this process has used so far."""
    use = resource.getrusage(resource.RUSAGE_SELF)
    return use.ru_utime + use.ru_stime


async def bare_client(base_url: str, concurrency: int, seconds: float) -> tuple[float, float]:
    """(requests/s, CPU seconds per request) of a bare AsyncOpenAI loop."""
    from openai import AsyncOpenAI

    client = AsyncOpenAI(base_url=base_url, api_key="bench", max_retries=0)
    done = 0
    stop = time.perf_counter() + seconds

    async def worker() -> None:
        nonlocal done
        while time.perf_counter() < stop:
            await client.chat.completions.create(
                model="scripted",
                messages=[{"role": "user", "content": "Say something for the day discussion."}],
                max_tokens=64,
            )
            done += 1

    started, cpu = time.perf_counter(), cpu_s()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    elapsed, cpu = time.perf_counter() - started, cpu_s() - cpu
    await client.close()
    return done / elapsed, cpu / max(done, 1)


def tournament_rate(
    base_url: str,
    concurrency: int,
    matches: int,
    match_concurrency: int | None = None,
    default_path: bool = False,
) -> tuple[float, int, float, float]:
    """(LLM calls/s, failed matches, wall seconds, CPU seconds per LLM call) of a tournament."""
    from tournaments import config as tconfig

    backend = {"base_url": base_url, "model": "scripted", "concurrency": concurrency}
    cfg = tconfig.parse(
        {
            "name": "sched",
            "game": "werewolf",
            "rules": {"preset": "classic8"},
            "agents": [
                {"name": "llm-a", "kind": "llm", "params": {"backend": backend}},
                {"name": "llm-b", "kind": "llm", "params": {"backend": backend}},
            ],
            "matches": matches,
            "concurrency": match_concurrency or concurrency,
            "master_seed": 3,
        }
    )
    with tempfile.TemporaryDirectory() as tmp:
        rate, results, elapsed, cpu = asyncio.run(_play(cfg, Path(tmp) / "run", default_path))
    failed = sum(r.status != "finished" for r in results)
    return rate, failed, elapsed, cpu


async def _play(cfg: Any, root: Path, default_path: bool) -> tuple[float, list[Any], float, float]:
    """Play ``cfg`` as ``arena run`` would (``default_path``: live bus and metrics too)."""
    from app.commands.run import run_sinks
    from tournaments.executor import Tournament
    from tournaments.progress import Progress

    live = metrics = None
    if default_path:
        from app.live import LiveSession
        from arena.metrics.stream import metrics_sink_factory

        live, metrics = LiveSession("run", root), metrics_sink_factory(root)
        await live.open()
    tour = Tournament(cfg, root, "run", extra_sinks=run_sinks(live, metrics))
    progress = Progress(total=len(tour.specs))
    try:
        started, cpu = time.perf_counter(), cpu_s()
        results = await tour.run(progress)
        elapsed, cpu = time.perf_counter() - started, cpu_s() - cpu
    finally:
        if live is not None:
            await live.close()
    calls = max(progress.llm_calls, 1)
    return progress.llm_calls / elapsed, results, elapsed, cpu / calls


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--concurrency", type=int, nargs="+", default=[32, 64])
    ap.add_argument("--latency", type=float, default=0.2)
    ap.add_argument(
        "--waves", type=int, default=4, help="matches = waves x C (the ramp-down tail weighs less)"
    )
    ap.add_argument("--bare-seconds", type=float, default=10.0)
    ap.add_argument(
        "--bare-path", action="store_true", help="no live bus and no metrics (records only)"
    )
    args = ap.parse_args()
    default_path = not args.bare_path
    try:
        import openai  # noqa: F401

        from arena.agents import factory

        factory.resolve("llm", "werewolf")
    except (ImportError, KeyError) as err:
        emit("skipped", True, reason=f"LLM agents or openai unavailable: {err}")
        return
    port = free_port()
    server = start_server(port, args.latency)
    if server is None:
        emit("skipped", True, reason="`arena serve --engine scripted` did not start")
        return
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        seq_rate, seq_failed, seq_s, _ = tournament_rate(base_url, 1, 1, default_path=default_path)
        emit("sequential", round(seq_rate, 2), "req/s", failed=seq_failed, wall_s=round(seq_s, 1))
        path = "default" if default_path else "records only"
        for c in args.concurrency:
            ideal = c / args.latency
            bare, bare_cpu = asyncio.run(bare_client(base_url, c, args.bare_seconds))
            rate, failed, wall, cpu = tournament_rate(
                base_url, c, args.waves * c, default_path=default_path
            )
            emit("ideal", round(ideal, 1), "req/s", concurrency=c)
            emit(
                "bare_client",
                round(bare, 1),
                "req/s",
                concurrency=c,
                of_ideal=round(bare / ideal, 3),
            )
            emit("tournament", round(rate, 1), "req/s", concurrency=c, matches=args.waves * c,
                 failed=failed, wall_s=round(wall, 1), of_ideal=round(rate / ideal, 3),
                 path=path)  # fmt: skip
            emit("cpu_per_request", round(bare_cpu * 1e6), "us", concurrency=c, arm="bare_client")
            emit("cpu_per_request", round(cpu * 1e6), "us", concurrency=c, arm="tournament",
                 path=path)  # fmt: skip
            emit("vs_bare_client", round(rate / bare, 3), "x", concurrency=c, target=">= 0.9")
            emit("vs_sequential", round(rate / seq_rate, 1), "x", concurrency=c, target=">= 25")
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()


if __name__ == "__main__":
    main()
