"""Capacity of the live bus alone: events/s from the publisher, through a broker, to a subscriber.

``bench/live.py`` measures the bus behind real matches, so its events/s is capped by how fast
the matches make events. This one feeds the :class:`~arena.live.bus.Publisher` as fast as its
buffer admits (events of a real match's sizes, spread over ``--matches`` matches' spectator and
seat topics) and counts what a subscriber in another process receives, checking that every
topic's events arrive complete and in order. Two publisher settings, in the same run:

  unbatched   one message per event (``max_batch=1``, no linger, no interval): the baseline
  batched     the defaults ``arena run`` uses (at most ``MAX_BATCH`` events a message, at most
              one message per topic every ``interval`` under a flood)

Prints one JSON line per figure (per broker, per setting): events_per_s_delivered (target
≥ 20,000 with mosquitto, every event delivered in order: ``complete``), messages, dropped,
out_of_order, the publisher thread's CPU µs per event. One publish per event does not survive
a flood: the broker's acknowledgements fall behind, the connection times out, and what was in
flight counts as dropped (so the baseline's figures are of what got through). Usage:

    .venv/bin/python bench/live_capacity.py [--events 40000] [--broker embedded|mosquitto|both]
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
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

SETTINGS: dict[str, dict[str, Any]] = {
    "unbatched": {"max_batch": 1, "linger": 0.0, "interval": 0.0},
    "batched": {},  # the Publisher's defaults
}
SEATS = 8


def emit(figure: str, value: Any, **extra: Any) -> None:
    print(json.dumps({"bench": "live_capacity", "figure": figure, "value": value, **extra}))


def _subscriber(url: str, run_id: str, expected: int, ready: Any, out: Any) -> None:
    """Counts every event of every match topic; per topic, the seqs must rise by one."""

    async def main() -> None:
        import aiomqtt

        from arena.live import topics
        from arena.live.url import BrokerURL

        last: dict[str, int] = {}
        received = out_of_order = messages = 0
        first = end = 0.0
        async with aiomqtt.Client(**BrokerURL.parse(url).client_kwargs()) as client:
            await client.subscribe(f"{topics.run_root(run_id)}/matches/#", qos=1)
            ready.set()
            idle = 60.0
            while received < expected:
                try:
                    async with asyncio.timeout(idle):
                        message = await anext(aiter(client.messages))
                except TimeoutError:
                    break
                first = first or time.perf_counter()
                topic = str(message.topic)
                assert isinstance(message.payload, bytes)
                for event in json.loads(message.payload)["events"]:
                    seq = event["seq"]
                    out_of_order += seq != last.get(topic, -1) + 1
                    last[topic] = seq
                    received += 1
                messages += 1
                end = time.perf_counter()
                idle = 10.0
        out.put({"received": received, "messages": messages, "out_of_order": out_of_order,
                 "span_s": end - first})  # fmt: skip

    asyncio.run(main())


def _payload(seq: int, size: int) -> str:
    # an event of a real record's size (a speech line with its payload), seq for the order check
    text = "x" * size
    return json.dumps({"v": 2, "type": "speech", "seq": seq, "phase": "day_1", "text": text})


def _produce(url: str, run_id: str, events: int, matches: int, setting: dict[str, Any]) -> Any:
    """Feed ``events`` events (god topic + every seat, as a public event goes) at full speed."""
    from arena.live import topics
    from arena.live.bus import Publisher
    from arena.live.url import BrokerURL

    pub = Publisher(BrokerURL.parse(url), **setting)
    pub.start()
    if not pub._connected.wait(30):
        raise SystemExit(f"no broker at {url}")
    cpu0 = time.thread_time()
    streams = [
        [topics.god(run_id, f"m{m}")] + [topics.seat(run_id, f"m{m}", s) for s in range(SEATS)]
        for m in range(matches)
    ]
    seqs = [0] * matches
    sent = 0
    while sent < events:
        m = sent // (SEATS + 1) % matches
        line = _payload(seqs[m], 300)
        seqs[m] += 1
        for topic in streams[m]:
            while pub.backlog >= pub.max_buffer - 1:  # never drop: wait for the buffer
                time.sleep(0.001)
            pub.publish_event(topic, line)
            sent += 1
    producer_cpu = time.thread_time() - cpu0
    return pub, producer_cpu


def _publisher_cpu(pub: Any) -> float:
    """CPU seconds of the publisher's own thread (Linux: per-thread clock by native id)."""
    thread = pub._thread
    assert thread is not None and thread.native_id is not None
    stat = Path(f"/proc/self/task/{thread.native_id}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = int(stat[11]) + int(stat[12])  # utime + stime
    import os

    return ticks / os.sysconf("SC_CLK_TCK")


def measure(url: str, name: str, args: argparse.Namespace) -> dict[str, Any]:
    run_id = f"cap-{name}-{time.time_ns()}"
    total = args.events - args.events % (SEATS + 1)
    ctx = mp.get_context("spawn")
    ready, out = ctx.Event(), ctx.Queue()
    sub = ctx.Process(target=_subscriber, args=(url, run_id, total, ready, out))
    sub.start()
    ready.wait(60)
    pub, producer_cpu = _produce(url, run_id, total, args.matches, SETTINGS[name])
    report = out.get(timeout=300)
    pub_cpu = _publisher_cpu(pub)  # everything delivered; read while the thread lives
    pub.close(timeout=10)
    sub.join(10)
    span = report["span_s"]
    return {
        "events": total,
        "received": report["received"],
        "messages": report["messages"],
        "out_of_order": report["out_of_order"],
        "dropped": pub.dropped,
        # over the subscriber's span; None when (almost) nothing arrived
        "events_per_s_delivered": (
            round(report["received"] / span, 1) if span > 0 and report["received"] > 1 else None
        ),
        "complete": report["received"] == total and report["out_of_order"] == 0,
        "publisher_cpu_us_per_event": round(1e6 * pub_cpu / total, 2),
        "producer_cpu_us_per_event": round(1e6 * producer_cpu / total, 2),
    }


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def broker(kind: str, tmp: Path) -> tuple[str, Any]:
    """(url, stop) of a broker of ``kind`` in its own process; url "" when not installed."""
    if kind == "mosquitto":
        binary = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
        if not Path(binary).exists():
            return "", lambda: None
        port = _free_port()
        conf = tmp / "mosquitto.conf"
        conf.write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\nlog_dest none\n")
        proc = subprocess.Popen([binary, "-c", str(conf)], stderr=subprocess.DEVNULL)
        time.sleep(0.3)
        return f"mqtt://127.0.0.1:{port}", proc.kill
    from arena.live.broker import BrokerProcess

    process = BrokerProcess()  # what arena run starts (its own process)
    return process.start().public(), process.stop


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--events", type=int, default=40_000)
    p.add_argument("--matches", type=int, default=50)
    p.add_argument("--broker", choices=["embedded", "mosquitto", "both"], default="both")
    args = p.parse_args()
    kinds = ["embedded", "mosquitto"] if args.broker == "both" else [args.broker]
    with tempfile.TemporaryDirectory(prefix="arena-bench-cap-") as d:
        for kind in kinds:
            url, stop = broker(kind, Path(d))
            if not url:
                emit("skipped", "mosquitto not installed", broker=kind)
                continue
            try:
                for name in SETTINGS:
                    figures = measure(url, name, args)
                    for key, value in figures.items():
                        emit(key, value, broker=kind, setting=name, matches=args.matches)
            finally:
                stop()
    return 0


if __name__ == "__main__":
    threading.current_thread().name = "producer"
    sys.exit(main())
