"""The publisher never blocks, drops and counts when the broker is away, and reconnects."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from arena.live import topics
from arena.live.bus import Publisher
from arena.live.url import BrokerURL
from tests.arena.live.helpers import Collector, Mosquitto, free_port, live_tournament
from tournaments.progress import Progress


async def test_publishing_without_a_broker_never_blocks_and_counts_drops(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import socket

    pub = Publisher(BrokerURL("127.0.0.1", free_port()), max_buffer=100, backoff=(0.05, 0.1))
    pub.start()
    touched: list[str] = []
    caller = threading.get_ident()

    def watched(name: str) -> Any:
        real = getattr(socket.socket, name)

        def call(sock: socket.socket, *a: Any, **k: Any) -> Any:
            # only this thread's calls count: the publisher's own thread tries the broker
            # meanwhile, for real (its first connect counted here when it fell inside the
            # loop below: a flaky failure)
            if threading.get_ident() == caller:
                touched.append(name)
                return None
            return real(sock, *a, **k)

        return call

    # publishing is an in-memory append: no call may try to reach the broker (a connect
    # attempt per call would block the match loop while the broker is down). Not send: waking
    # the event loop writes a byte to its own socketpair.
    with monkeypatch.context() as m:
        for name in ("connect", "connect_ex"):
            m.setattr(socket.socket, name, watched(name))
        accepted = sum(pub.publish_event("arena/v1/x", "{}") for _ in range(10_000))
    assert touched == []
    assert accepted == 100 and pub.dropped == 9_900
    deadline = time.monotonic() + 60
    while pub.reconnects < 1:  # the first connection attempt has failed
        assert time.monotonic() < deadline, "the publisher never tried to connect"
        await asyncio.sleep(0.02)
    assert not pub.connected
    await pub.aclose(timeout=0.5)
    assert pub.dropped == 10_000 and pub.published == 0


async def test_publisher_connects_late_and_republishes_retained_state(tmp_path: Path) -> None:
    port = free_port()
    pub = Publisher(BrokerURL("127.0.0.1", port), backoff=(0.05, 0.2))
    pub.retain("arena/v1/runs/r/status", {"status": "running", "done": 1})
    pub.start()
    await asyncio.sleep(0.3)
    assert not pub.connected
    m = Mosquitto(tmp_path, port=port).start()
    try:
        assert await pub.wait_connected(60)
        # The first subscriber may subscribe before or after the publisher's (re)publication
        # reaches the broker (then it is delivered live, without the retain flag) ...
        async with Collector(m.url, "arena/v1/runs/r/status") as col:
            await col.wait_for(lambda: col.last("arena/v1/runs/r/status") is not None)
        assert col.last("arena/v1/runs/r/status") == {"status": "running", "done": 1}
        # ... once it arrived, the broker holds it: a later subscriber gets it as retained
        async with Collector(m.url, "arena/v1/runs/r/status") as late:
            await late.wait_for(lambda: late.last("arena/v1/runs/r/status") is not None)
        assert late.last("arena/v1/runs/r/status") == {"status": "running", "done": 1}
        assert late.messages[0][2] is True  # delivered as a retained message
    finally:
        await pub.aclose()
        m.kill()


async def test_broker_killed_mid_run_the_run_completes_and_jsonl_is_complete(
    tmp_path: Path,
) -> None:
    from app.live import LiveOptions, LiveSession
    from arena.sinks import read_jsonl
    from tests.arena.toygame import SlowAgent  # noqa: F401  (the toy game is registered)

    m = Mosquitto(tmp_path).start()
    # long enough matches that the kill lands while some still run, however fast the runner is
    t, session = live_tournament(
        tmp_path, LiveOptions(broker=m.url), matches=6, concurrency=3, rounds=10
    )
    killed = asyncio.Event()
    progress = Progress(total=6)
    done_at_kill: list[int] = []

    async def killer(live: LiveSession) -> None:
        while live.publisher is not None and live.publisher.published < 20 and progress.done < 2:
            await asyncio.sleep(0.001)
        m.kill()
        done_at_kill.append(progress.done)
        killed.set()

    m2 = None
    try:
        async with session as live:
            task = asyncio.create_task(killer(live))
            results = await t.run(progress)
            await task
            assert killed.is_set() and done_at_kill[0] < 6  # killed while matches ran
            # the broker comes back on the same port: the publisher reconnects
            m2 = Mosquitto(tmp_path, port=m.port).start()
            async with Collector(m.url, topics.status(t.run_id)) as col:
                await col.wait_for(
                    lambda: (col.last(topics.status(t.run_id)) or {}).get("status") == "complete",
                    60,  # the publisher's reconnect back-off grows up to its cap while the broker is down
                )
            pub = live.publisher
            assert pub is not None and pub.reconnects >= 1
        # every event accounted for once: acknowledged, or dropped (in flight at the kill, or
        # left over at close); the buffer kept the rest while the broker was away
        assert pub.enqueued == pub.published + pub.dropped and pub.backlog == 0
    finally:
        m.kill()
        if m2 is not None:
            m2.kill()
    assert [r.status for r in results] == ["finished"] * 6
    for r in results:
        assert r.jsonl is not None
        events = list(read_jsonl(t.dir.root / r.jsonl))
        assert len(events) == r.n_events and events[-1].type == "match_end"
        assert [e.seq for e in events] == list(range(len(events)))


def test_batch_messages_are_json_with_a_version() -> None:
    from arena.live.bus import batch_payload

    doc = json.loads(batch_payload(['{"seq":0}', '{"seq":1}']))
    assert doc == {"v": topics.VERSION, "events": [{"seq": 0}, {"seq": 1}]}


async def test_retained_messages_go_out_in_the_order_they_were_set() -> None:
    # LiveSession.publish_status retains the leaderboard before the status that counts its matches:
    # a subscriber that sees ``done == N`` must already have the leaderboard of those N
    pub = Publisher(BrokerURL("127.0.0.1", 1))
    pub._wake = asyncio.Event()
    names = [f"arena/v1/runs/r/t{i}" for i in range(20)]
    for name in names:
        pub.retain(name, {"n": name})
    pub.retain(names[0], {"n": "again"})  # a newer value goes out after the others
    sent: list[tuple[str, bool]] = []

    class Client:
        async def publish(
            self, topic: str, payload: str, qos: int = 0, retain: bool = False
        ) -> None:
            sent.append((topic, retain))

    assert await pub._flush(Client()) is False
    assert sent == [(n, True) for n in [*names[1:], names[0]]]


async def _until(predicate, what: str, timeout: float = 60.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout  # only matters when the condition never comes
    while not predicate():
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.02)


async def test_events_in_flight_at_a_broker_kill_count_as_dropped_not_published() -> None:
    import os
    import signal

    from arena.live.broker import BrokerProcess

    broker = BrokerProcess()
    url = await asyncio.to_thread(broker.start)
    pub = Publisher(url, backoff=(0.05, 0.2), linger=0.0, interval=0.0)
    pub.start()
    god = "arena/v1/runs/r/matches/m/god"
    try:
        assert await pub.wait_connected(60)
        for i in range(50):
            pub.publish_event(god, json.dumps({"seq": i}))
        await _until(lambda: pub.published == 50, "the broker acknowledged the first 50")
        assert broker._proc is not None
        pid = broker._proc.pid
        os.kill(pid, signal.SIGSTOP)  # the broker reads nothing and acknowledges nothing
        # kill() returns once the signal is queued, not once the broker has stopped: a broker
        # running on the other core could still acknowledge the next event (seen: 51 published)
        await _until(lambda: _all_threads_stopped(pid), "the broker's threads are stopped")
        for i in range(50, 80):
            pub.publish_event(god, json.dumps({"seq": i}))
        # some of them leave the buffer: in flight, waiting for an acknowledgement
        await _until(lambda: pub.backlog < 30, "a batch went out to the stopped broker")
        os.kill(pid, signal.SIGKILL)
        await _until(lambda: not pub.connected, "the publisher saw the connection drop")
    finally:
        await pub.aclose(timeout=1.0)
        await asyncio.to_thread(broker.stop)
    # sent but never acknowledged: not counted as published (QoS 0 counted them all)
    assert (pub.enqueued, pub.published, pub.dropped) == (80, 50, 30)


def _all_threads_stopped(pid: int) -> bool:
    """Every thread of ``pid`` is in the stopped state (``T``) in /proc."""
    from pathlib import Path

    states = []
    for stat in Path(f"/proc/{pid}/task").glob("*/stat"):
        # the state follows the command name, which is in parentheses and may hold spaces
        states.append(stat.read_text().rsplit(")", 1)[1].split()[0])
    return bool(states) and all(state in ("T", "t") for state in states)


async def _idle_publisher_loses_its_broker() -> None:
    from arena.live.broker import BrokerProcess

    broker = BrokerProcess()
    url = await asyncio.to_thread(broker.start)
    pub = Publisher(url, backoff=(0.05, 0.2))
    pub.retain("arena/v1/runs/r/status", {"status": "running"})
    pub.start()
    try:
        assert await pub.wait_connected(60)
        await _until(lambda: not pub._dirty, "the retained status went out")
        assert broker._proc is not None
        broker._proc.kill()
        await _until(lambda: not pub.connected, "an idle publisher notices the drop")
    finally:
        await pub.aclose(timeout=1.0)
        await asyncio.to_thread(broker.stop)


async def test_a_broker_killed_while_the_publisher_idles_leaves_no_stray_future(
    caplog: pytest.LogCaptureFixture,
) -> None:
    import gc

    await _idle_publisher_loses_its_broker()
    gc.collect()  # an unretrieved future reports itself when it is collected
    stray = [r for r in caplog.records if "never retrieved" in r.getMessage()]
    assert not stray, stray[0].getMessage()


async def test_a_flood_goes_out_in_bounded_batches_complete_and_in_order() -> None:
    from arena.live.broker import EmbeddedBroker
    from arena.live.bus import MAX_BATCH

    names = [f"arena/v1/runs/r/matches/m{i}/god" for i in range(3)]
    per_topic = 2 * MAX_BATCH + 7  # more than two full batches each
    with EmbeddedBroker() as broker:
        async with Collector(broker.url.public(), "arena/v1/runs/r/matches/#") as col:
            pub = Publisher(broker.url)
            pub.start()
            assert await pub.wait_connected(60)
            for seq in range(per_topic):  # interleaved, as concurrent matches publish
                for topic in names:
                    pub.publish_event(topic, json.dumps({"seq": seq}))
            await col.wait_for(lambda: all(len(col.events(t)) == per_topic for t in names))
            await pub.aclose()
    for topic in names:
        assert [e["seq"] for e in col.events(topic)] == list(range(per_topic))
    sizes = [len(json.loads(p)["events"]) for t, p, _ in col.messages]
    assert max(sizes) <= MAX_BATCH
    # one publish per event would be 3,021 messages; a flood costs a few per topic
    assert len(sizes) == pub.messages < len(names) * per_topic // 50
    assert pub.published == len(names) * per_topic and pub.dropped == 0


@pytest.mark.parametrize(
    "bad",
    [
        {"max_batch": 0},
        {"max_batch": 10**6},
        {"interval": -1.0},
        {"linger": 60.0},
        {"interval": float("inf")},
    ],
)
def test_batch_bounds_refuse_an_unbounded_setting(bad: dict[str, float]) -> None:
    with pytest.raises(ValueError, match="must be"):
        Publisher(BrokerURL("127.0.0.1", 1), **bad)  # type: ignore[arg-type]
