"""Benchmark of the live event bus: events/s from many concurrent matches to a subscriber.

A tournament of ``--matches`` matches (``--concurrency`` at once, rule bots) publishes through
a live session (the same path as ``arena run``) to a broker; a subscriber in a separate process
folds every spectator stream into the TUI's model and measures end-to-end latency (event
stamped by the runner → TUI model updated). Brokers: the embedded amqtt broker and mosquitto.

Prints one JSON line per figure:
    python bench/live.py                       # werewolf, 50 concurrent, both brokers
    python bench/live.py --game toy --broker embedded
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _subscriber(url: str, run_id: str, expected: int, ready: Any, out: Any) -> None:
    """Subscriber process: fold every god stream into a RunModel, report latency."""

    async def main() -> None:
        import aiomqtt

        from arena.live import topics
        from arena.live.url import BrokerURL
        from tui.model import RunModel
        from tui.sources import MqttSource

        model = RunModel(track_latency=True)
        first = last = None
        async with aiomqtt.Client(**BrokerURL.parse(url).client_kwargs()) as client:
            await client.subscribe(f"{topics.run_root(run_id)}/matches/+/god", qos=0)
            ready.set()
            idle = 20.0
            while model.events_seen < expected:
                try:
                    async with asyncio.timeout(idle):
                        message = await anext(aiter(client.messages))
                except TimeoutError:
                    break
                now = time.time()
                first = first or now
                last = now
                MqttSource.handle(model, str(message.topic), message.payload)
                idle = 3.0
        out.put(
            {
                "received": model.events_seen,
                "malformed": model.malformed,
                "first": first,
                "last": last,
                "latencies": model.latencies,
            }
        )

    asyncio.run(main())


def _tournament(tmp: Path, game: str, matches: int, concurrency: int, sinks: Any = None) -> Any:
    """A rule-bot run; ``sinks(run_id, root)`` gives its extra sink factory."""
    from tournaments.config import parse
    from tournaments.executor import Tournament

    if game == "toy":
        import tests.conftest  # noqa: F401  (registers the toy game)

        raw: dict[str, Any] = {"game": "toy", "rules": {"n_players": 6, "rounds": 10},
                               "agents": [{"name": "a", "kind": "random"},
                                          {"name": "b", "kind": "random"}]}  # fmt: skip
    else:
        raw = {"game": "werewolf", "rules": {"preset": "classic8"},
               "agents": [{"name": "rule", "kind": "werewolf.rule"},
                          {"name": "random", "kind": "random"}]}  # fmt: skip
    raw.update(name="bench", matches=matches, concurrency=concurrency, master_seed=1)
    raw["output_dir"] = str(tmp)
    config = parse(raw)
    run_id = f"bench-{time.time_ns()}"
    extra = sinks(run_id, tmp / run_id) if sinks is not None else None
    return Tournament(config, tmp / run_id, run_id, extra_sinks=extra)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    v = sorted(values)
    return v[min(len(v) - 1, int(q * len(v)))]


def measure(kind: str, args: argparse.Namespace, tmp: Path) -> list[dict[str, Any]]:
    from app.live import LiveOptions, LiveSession
    from arena.live.broker import EmbeddedBroker

    proc = None
    broker = None
    if kind == "mosquitto":
        binary = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
        if not Path(binary).exists():
            return [{"bench": "live", "broker": kind, "skipped": "mosquitto not installed"}]
        port = _free_port()
        conf = tmp / "mosquitto.conf"
        conf.write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\nlog_dest none\n")
        proc = subprocess.Popen([binary, "-c", str(conf)], stderr=subprocess.DEVNULL)
        time.sleep(0.3)
        url = f"mqtt://127.0.0.1:{port}"
    else:
        broker = EmbeddedBroker()
        url = broker.start().public()
    try:
        # a dry run without any broker: how many events the matches produce, and how fast
        dry = _tournament(tmp, args.game, args.matches, args.concurrency)
        t0 = time.perf_counter()
        asyncio.run(dry.run())
        base_s = time.perf_counter() - t0
        n_events = sum(
            p.read_text(encoding="utf-8").count("\n") for p in dry.dir.matches.glob("*.jsonl")
        )
        sessions: list[LiveSession] = []

        def publish(run_id: str, root: Path) -> Any:
            sessions.append(LiveSession(run_id, root, LiveOptions(broker=url, require=True)))
            return sessions[-1].sinks

        t = _tournament(tmp, args.game, args.matches, args.concurrency, publish)
        live = sessions[0]
        ctx = mp.get_context("spawn")
        ready, out = ctx.Event(), ctx.Queue()
        sub = ctx.Process(target=_subscriber, args=(url, t.run_id, n_events, ready, out))
        sub.start()
        ready.wait(30)
        counters: dict[str, Any] = {}

        async def live_run() -> float:
            async with live:
                t1 = time.perf_counter()
                await t.run()
                elapsed = time.perf_counter() - t1
                counters.update(live.publisher.counters())
            return elapsed

        run_s = asyncio.run(live_run())
        report = out.get(timeout=120)
        sub.join(10)
    finally:
        if broker is not None:
            broker.stop()
        if proc is not None:
            proc.kill()
    lat = report["latencies"]
    span = (report["last"] or 0) - (report["first"] or 0)
    base = {"bench": "live", "broker": kind, "game": args.game, "matches": args.matches,
            "concurrency": args.concurrency}  # fmt: skip
    figures = {
        "events_published": n_events,
        "events_received": report["received"],
        "events_dropped": counters.get("dropped", 0),
        "events_per_s_delivered": round(report["received"] / span, 1) if span > 0 else None,
        "events_per_s_produced_with_bus": round(n_events / run_s, 1),
        "events_per_s_produced_without_bus": round(n_events / base_s, 1),
        "latency_p50_ms": round(1000 * _pct(lat, 0.50), 2),
        "latency_p90_ms": round(1000 * _pct(lat, 0.90), 2),
        "latency_p99_ms": round(1000 * _pct(lat, 0.99), 2),
        "latency_max_ms": round(1000 * max(lat), 2) if lat else None,
        "malformed": report["malformed"],
    }
    return [{**base, "figure": k, "value": v} for k, v in figures.items()]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", choices=["werewolf", "toy"], default="werewolf")
    p.add_argument("--matches", type=int, default=50)
    p.add_argument("--concurrency", type=int, default=50)
    p.add_argument("--broker", choices=["embedded", "mosquitto", "both"], default="both")
    args = p.parse_args()
    kinds = ["embedded", "mosquitto"] if args.broker == "both" else [args.broker]
    with tempfile.TemporaryDirectory(prefix="arena-bench-live-") as d:
        for kind in kinds:
            for row in measure(kind, args, Path(d)):
                print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
