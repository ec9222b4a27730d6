"""The TUI over MQTT: catches a whole run, shows reconnecting while the broker is away."""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path

from app.live import LiveOptions
from arena.live.broker import EmbeddedBroker
from arena.sinks import read_jsonl
from tests.arena.live.helpers import Mosquitto, live_tournament
from tui.app import ArenaApp
from tui.model import RunModel
from tui.sources import MqttSource


async def _until(predicate, timeout: float = 60.0) -> None:  # type: ignore[no-untyped-def]
    # generous: the deadline only matters when the condition never comes (a loaded CI machine
    # may be several times slower than a laptop)
    async with asyncio.timeout(timeout):
        while not predicate():
            await asyncio.sleep(0.05)


async def test_mqtt_source_folds_a_whole_run_like_the_record(tmp_path: Path) -> None:
    model = RunModel()
    with EmbeddedBroker() as broker:
        t, live = live_tournament(tmp_path, LiveOptions(broker=broker.url.public()))
        source = MqttSource(broker.url, run_id=t.run_id)
        subscribed = asyncio.Event()  # notified once the run's topics are subscribed
        task = asyncio.create_task(source.run(model, subscribed.set))
        # events are not retained: the run may start only once the subscriptions are in place
        await asyncio.wait_for(subscribed.wait(), 60)
        assert model.connection == "connected"
        async with live:
            await t.run()
        n = sum(len(list(read_jsonl(p))) for p in t.dir.matches.glob("*.jsonl"))
        await _until(lambda: model.events_seen == n and model.status == "complete")
        await _until(lambda: len(model.leaderboard) == 2)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    assert model.done == 4 and model.malformed == 0 and model.foreign == 0
    assert all(m.status == "finished" for m in model.matches.values())


async def test_newest_run_is_picked_and_reconnecting_is_shown(tmp_path: Path) -> None:
    m = Mosquitto(tmp_path).start()
    t, live = live_tournament(tmp_path, LiveOptions(broker=m.url), matches=2)
    async with live:
        await t.run()
    model = RunModel()
    source = MqttSource(m.url, wait_s=0.5)
    source.backoff = (0.05, 0.2)
    task = asyncio.create_task(source.run(model, lambda: None))
    try:
        await _until(lambda: model.status == "complete")  # retained status of the run
        assert source.run_id == t.run_id and model.done == 2
        m.kill()
        await _until(lambda: model.connection.startswith("reconnecting"))
        model.status = "?"
        m2 = Mosquitto(tmp_path, port=m.port).start()
        try:
            await _until(lambda: model.connection in ("connected", "connected (no run yet)"))
        finally:
            m2.kill()
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        m.kill()


async def test_dashboard_over_mqtt_shows_the_broker_state(tmp_path: Path) -> None:
    with EmbeddedBroker() as broker:
        t, live = live_tournament(tmp_path, LiveOptions(broker=broker.url.public()), matches=2)
        async with live:
            await t.run()
        app = ArenaApp(source=MqttSource(broker.url, wait_s=0.5))
        async with app.run_test(size=(140, 40)) as pilot:
            deadline = time.monotonic() + 60
            while not (app.model.done == 2 and app.model.leaderboard):
                assert time.monotonic() < deadline, "the run's retained state never arrived"
                await pilot.pause(0.05)
            title = ""
            while "run1" not in title:  # the dashboard redraws from the model on a timer
                assert time.monotonic() < deadline, f"the dashboard never showed the run: {title}"
                await pilot.pause(0.05)
                title = str(app.screen.query_one("#run-title").content)
            assert "run1" in title and "[connected]" in title and "broker mqtt://127.0.0.1" in title
