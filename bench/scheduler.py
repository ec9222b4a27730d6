"""Scheduler throughput against `arena serve --engine scripted` (fixed latency) in a subprocess.

For each concurrency C it prints one JSON line per figure:
  ideal          C / latency requests/s
  bare_client    a bare AsyncOpenAI loop with C workers against the same server (the practical
                 limit of this machine)
  tournament     Werewolf matches with LLM agents, C concurrent matches, backend concurrency C
                 (LLM calls/s counted from the llm_call events)
  sequential     one match at a time through the same pipeline
and the ratios against the targets (>= 0.9 x bare client, >= 25 x sequential). Usage:

    .venv/bin/python bench/scheduler.py [--concurrency 32 64] [--latency 0.2] [--waves 4]
"""

from __future__ import annotations

import argparse
import asyncio
import json
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
    print(
        json.dumps({"bench": "scheduler", "figure": figure, "value": value, "unit": unit, **extra}),
        flush=True,
    )


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


async def bare_client(base_url: str, concurrency: int, seconds: float) -> float:
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

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    elapsed = time.perf_counter() - started
    await client.close()
    return done / elapsed


def tournament_rate(
    base_url: str, concurrency: int, matches: int, match_concurrency: int | None = None
) -> tuple[float, int, float]:
    from tournaments import config as tconfig
    from tournaments.executor import Tournament
    from tournaments.progress import Progress

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
        progress = Progress(total=matches)
        started = time.perf_counter()
        results = asyncio.run(Tournament(cfg, Path(tmp) / "run", "run").run(progress))
        elapsed = time.perf_counter() - started
    failed = sum(r.status != "finished" for r in results)
    return progress.llm_calls / elapsed, failed, elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--concurrency", type=int, nargs="+", default=[32, 64])
    ap.add_argument("--latency", type=float, default=0.2)
    ap.add_argument(
        "--waves", type=int, default=4, help="matches = waves x C (the ramp-down tail weighs less)"
    )
    ap.add_argument("--bare-seconds", type=float, default=10.0)
    args = ap.parse_args()
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
        seq_rate, seq_failed, seq_s = tournament_rate(base_url, 1, 1)
        emit("sequential", round(seq_rate, 2), "req/s", failed=seq_failed, wall_s=round(seq_s, 1))
        for c in args.concurrency:
            ideal = c / args.latency
            bare = asyncio.run(bare_client(base_url, c, args.bare_seconds))
            rate, failed, wall = tournament_rate(base_url, c, args.waves * c)
            emit("ideal", round(ideal, 1), "req/s", concurrency=c)
            emit(
                "bare_client",
                round(bare, 1),
                "req/s",
                concurrency=c,
                of_ideal=round(bare / ideal, 3),
            )
            emit("tournament", round(rate, 1), "req/s", concurrency=c, matches=args.waves * c,
                 failed=failed, wall_s=round(wall, 1), of_ideal=round(rate / ideal, 3))  # fmt: skip
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
