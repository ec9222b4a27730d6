"""`arena run` publishing: embedded broker, mosquitto, retained status, unreachable brokers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.live import LiveOptions
from arena.live import topics
from arena.live.broker import EmbeddedBroker
from arena.sinks import read_jsonl
from tests.arena.live.helpers import Collector, free_port, live_tournament, mosquitto


def jsonl_events(t) -> dict[str, list[dict]]:  # type: ignore[no-untyped-def]
    return {
        p.stem: [e.model_dump(mode="json") for e in read_jsonl(p)]
        for p in sorted(t.dir.matches.glob("*.jsonl"))
    }


async def _run_and_collect(tmp: Path, url: str, read_url: str | None = None):  # type: ignore[no-untyped-def]
    t, live = live_tournament(tmp, LiveOptions(broker=url))
    async with Collector(read_url or url, topics.run_filter(t.run_id)) as col:
        async with live:
            results = await t.run()
        records = jsonl_events(t)
        n = sum(len(v) for v in records.values())
        await col.wait_for(
            lambda: sum(len(col.events(topics.god(t.run_id, m))) for m in records) >= n
        )
        await col.wait_for(lambda: (col.last(topics.status(t.run_id)) or {}).get("done") == 4)
        await col.wait_for(
            lambda: (col.last(topics.leaderboard(t.run_id)) or {}).get("n_results") == 4
        )
        await col.wait_for(  # every retained summary's final version, whatever the order
            lambda: all(
                (col.last(topics.summary(t.run_id, m)) or {}).get("status") == "finished"
                for m in records
            )
        )
    return t, results, records, col, live


def _check_streams(t, records, col) -> None:  # type: ignore[no-untyped-def]
    for match_id, events in records.items():
        assert col.events(topics.god(t.run_id, match_id)) == events  # complete, in order
        summary = col.last(topics.summary(t.run_id, match_id))
        assert summary is not None and summary["status"] == "finished"
    status = col.last(topics.status(t.run_id))
    assert status["status"] == "complete" and status["total"] == 4
    board = col.last(topics.leaderboard(t.run_id))
    assert {r["agent"] for r in board["rows"]} == {"r1", "r2"}
    assert all(len(h) >= 1 for h in board["history"].values())


async def test_run_publishes_every_event_to_an_embedded_broker(tmp_path: Path) -> None:
    with EmbeddedBroker() as broker:
        t, results, records, col, live = await _run_and_collect(tmp_path, broker.url.public())
    assert len(results) == 4 and all(r.status == "finished" for r in results)
    _check_streams(t, records, col)
    assert live.publisher.dropped == 0


async def test_run_publishes_every_event_to_mosquitto(tmp_path: Path) -> None:
    with mosquitto(tmp_path) as m:
        t, _results, records, col, _live = await _run_and_collect(tmp_path, m.url)
    _check_streams(t, records, col)
    retained = [r for tp, _p, r in col.messages if tp.endswith("/status")]
    assert retained, "status messages arrive"


async def test_default_session_starts_a_loopback_broker_and_records_its_url(
    tmp_path: Path,
) -> None:
    t, live = live_tournament(tmp_path, matches=2)
    async with live:
        assert live.broker is not None and live.url is not None
        assert live.url.host == "127.0.0.1" and live.url.port > 0
        await t.run()
        info = json.loads((t.dir.root / "broker.json").read_text())
    assert info["url"] == f"mqtt://127.0.0.1:{live.url.port}" and info["embedded"] is True
    assert info["topics"] == "arena/v1/runs/run1"
    assert live.broker is None  # stopped on exit


async def test_credentials_never_reach_the_run_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    port = free_port()
    url = f"mqtt://alice:s3cret-pw@127.0.0.1:{port}"  # nothing listens: unreachable
    t, live = live_tournament(tmp_path, LiveOptions(broker=url, connect_timeout_s=0.3), matches=1)
    async with live:
        await t.run()
    text = "".join(p.read_text() for p in t.dir.root.rglob("*") if p.suffix in (".json", ".yaml"))
    text += "".join(p.read_text() for p in t.dir.matches.glob("*.jsonl"))
    out = capsys.readouterr()
    assert "s3cret-pw" not in text and "s3cret-pw" not in out.err + out.out
    assert json.loads((t.dir.root / "broker.json").read_text())["url"].startswith(
        "mqtt://alice@127.0.0.1"
    )


async def test_unreachable_broker_warns_and_the_run_still_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:

    options = LiveOptions(broker=f"mqtt://127.0.0.1:{free_port()}", connect_timeout_s=0.3)
    t, live = live_tournament(tmp_path, options, matches=3)
    async with live:
        results = await t.run()
    assert [r.status for r in results] == ["finished"] * 3
    assert all(len(v) > 10 for v in jsonl_events(t).values())
    assert "unreachable" in capsys.readouterr().err
    assert live.publisher.dropped > 0 and live.publisher.published == 0


async def test_require_broker_fails_fast_when_unreachable(tmp_path: Path) -> None:

    options = LiveOptions(
        broker=f"mqtt://127.0.0.1:{free_port()}", require=True, connect_timeout_s=0.3
    )
    t, live = live_tournament(tmp_path, options, matches=1)
    with pytest.raises(SystemExit) as info:
        async with live:
            await t.run()
    assert info.value.code == 1
    assert not t.dir.matches.exists() or not list(t.dir.matches.glob("*.jsonl"))


async def test_no_broker_publishes_nothing(tmp_path: Path) -> None:
    t, live = live_tournament(tmp_path, LiveOptions(publish=False), matches=1)
    async with live:
        await t.run()
    assert live.publisher is None and all(live.sinks(spec) == [] for spec in t.specs)
    assert not (t.dir.root / "broker.json").exists()


async def test_metric_streams_forward_to_the_same_matchs_live_sinks(tmp_path: Path) -> None:
    from app.commands.run import run_sinks
    from arena.live.sink import MqttSink
    from arena.metrics.stream import MetricsSink, metrics_sink_factory

    with EmbeddedBroker() as broker:
        t, live = live_tournament(tmp_path, LiveOptions(broker=broker.url.public()), matches=2)
        make = run_sinks(live, metrics_sink_factory(t.dir.root))
        assert make is not None
        async with live:
            first, second = (make(spec) for spec in t.specs[:2])
            for sinks, spec in ((first, t.specs[0]), (second, t.specs[1])):
                published = [s for s in sinks if isinstance(s, MqttSink)]
                streams = [s for s in sinks if isinstance(s, MetricsSink)]
                assert [s.match_id for s in published] == [spec.match_id]
                assert len(streams) == 1 and streams[0].forward == published
            assert len(live.active) == 2
            for s in first:
                s.close()
            assert {s.match_id for s in live.active} == {t.specs[1].match_id}  # on_close


def _mosquitto_users(tmp: Path, users: dict[str, str]) -> Path:
    import shutil
    import subprocess

    tool = shutil.which("mosquitto_passwd")
    if tool is None:
        pytest.skip("mosquitto_passwd not installed (apt-get install mosquitto)")
    path = tmp / "passwd"
    for i, (user, password) in enumerate(users.items()):
        flags = ["-b", "-c"] if i == 0 else ["-b"]
        subprocess.run([tool, *flags, str(path), user, password], check=True, timeout=60)
    return path


async def test_run_publishes_to_a_mosquitto_with_a_password_file_and_acl(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import aiomqtt

    from arena.live.bus import not_authorised
    from arena.live.url import BrokerURL
    from tests.arena.live.helpers import Mosquitto

    # the configuration docs/security.md describes: a writer, a reader, a seat
    passwd = _mosquitto_users(
        tmp_path, {"arena-pub": "pub-secret", "arena-watch": "watch-secret", "seat0": "s0"}
    )
    match0 = "toy-r0-m00000"
    acl = tmp_path / "acl"
    acl.write_text(
        "user arena-pub\ntopic write arena/v1/runs/#\n"
        "user arena-watch\ntopic read arena/v1/runs/#\n"
        f"user seat0\ntopic read arena/v1/runs/run1/matches/{match0}/seats/0\n"
    )
    m = Mosquitto(tmp_path, passwd=passwd, acl=acl).start()
    try:
        watch = f"mqtt://arena-watch:watch-secret@127.0.0.1:{m.port}"
        root = f"arena/v1/runs/run1/matches/{match0}"
        async with Collector(f"mqtt://seat0:s0@127.0.0.1:{m.port}", f"{root}/#") as seat:
            t, results, records, col, _live = await _run_and_collect(
                tmp_path, f"mqtt://arena-pub:pub-secret@127.0.0.1:{m.port}", watch
            )
            assert match0 in records
            _check_streams(t, records, col)  # the reader got everything
            seat_events = topics.seat(t.run_id, match0, 0)
            await seat.wait_for(lambda: len(seat.events(seat_events)) > 0)
            await seat.wait_for(lambda: seat.events(seat_events) == col.events(seat_events))
        assert {tp for tp, _p, _r in seat.messages} == {seat_events}  # nothing but its seat
        err = capsys.readouterr().err
        assert "pub-secret" not in err and "watch-secret" not in err
        url = BrokerURL.parse(watch)
        for bad in (BrokerURL(url.host, url.port), BrokerURL(url.host, url.port, False, "arena-watch", "x")):  # fmt: skip
            with pytest.raises(aiomqtt.MqttError) as info:
                async with aiomqtt.Client(**bad.client_kwargs(), timeout=10):
                    pass
            assert not_authorised(info.value)
        # a reader's spoofed status goes nowhere: the retained one is still the run's
        async with aiomqtt.Client(**url.client_kwargs(), timeout=10) as spoofer:
            await spoofer.publish(topics.status(t.run_id), b'{"status":"spoofed"}', qos=1, retain=True)  # fmt: skip
        async with Collector(watch, topics.status(t.run_id)) as late:
            await late.wait_for(lambda: late.last(topics.status(t.run_id)) is not None)
        assert late.last(topics.status(t.run_id))["status"] == "complete"
    finally:
        m.kill()


async def test_metric_events_have_their_own_topic_and_identity(tmp_path: Path) -> None:
    from app.commands.run import run_sinks
    from app.live import LiveSession
    from arena.metrics.stream import metrics_sink_factory
    from tests.arena.live.helpers import toy_tournament
    from tui.model import RunModel
    from tui.sources import MqttSource

    with EmbeddedBroker() as broker:
        url = broker.url.public()
        live = LiveSession("run1", tmp_path / "run1", LiveOptions(broker=url))
        make = run_sinks(live, metrics_sink_factory(tmp_path / "run1"))
        t = toy_tournament(tmp_path, matches=2, extra_sinks=make)
        async with Collector(url, topics.run_filter(t.run_id)) as col:
            async with live:
                await t.run()
            records = jsonl_events(t)
            lines = {
                m: [json.loads(x) for x in (t.dir.root / "metrics" / f"{m}.live.jsonl").read_text().splitlines()]
                for m in records
            }  # fmt: skip
            assert all(lines.values()), "the toy game's speech is scored"
            for m in records:
                god, scores = topics.god(t.run_id, m), topics.metrics(t.run_id, m)
                await col.wait_for(
                    lambda g=god, s=scores, m=m: (
                        len(col.events(g)) == len(records[m])
                        and len(col.events(s)) == len(lines[m])
                    )
                )
    model = RunModel()
    for topic, payload, _retained in col.messages:
        MqttSource.handle(model, topic, payload)
    for m, events in records.items():
        assert col.events(topics.god(t.run_id, m)) == events  # the record, and only it
        published = col.events(topics.metrics(t.run_id, m))
        assert published == lines[m]  # each one line of the metrics stream
        assert [e["seq"] for e in published] == list(range(len(published)))
        assert {e["type"] for e in published} == {"metric"}
        by_seq = {e["seq"]: e for e in events}
        for e in published:  # of_seq names the record's event it scores
            assert by_seq[e["payload"]["of_seq"]]["actor"] == e["actor"]
        assert len(model.matches[m].metrics) == len(published)  # the TUI keeps them all
        assert model.matches[m].n_events == len(events)
    assert model.events_seen == sum(len(v) for v in records.values())  # metrics apart


async def test_status_carries_the_executors_matches_per_node(tmp_path: Path) -> None:
    with EmbeddedBroker() as broker:
        url = broker.url.public()
        t, live = live_tournament(tmp_path, LiveOptions(broker=url))
        nodes = {"vm:aa11": 2}
        async with Collector(url, topics.status(t.run_id)) as col, live:
            await t.run()
            live.nodes_of = lambda: dict(nodes)
            await live.publish_status()
            await col.wait_for(lambda: (col.last(topics.status(t.run_id)) or {}).get("nodes"))
            assert col.last(topics.status(t.run_id))["nodes"] == {"vm:aa11": 2}
            nodes.clear()  # idle nodes are published too, so a viewer's line goes away
            await live.publish_status()
            await col.wait_for(lambda: col.last(topics.status(t.run_id)).get("nodes") == {})


async def test_the_final_status_retains_the_leaderboard_even_after_a_lost_poll(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # At close the status loop is cancelled, possibly while its poll runs in a thread: that
    # poll's leaderboard is never published. The final status must still carry the final
    # leaderboard (a viewer joining later would otherwise never see one: CI caught it once).
    import app.live

    # one poll at the start, then the final one
    monkeypatch.setattr(app.live, "STATUS_INTERVAL", 3600.0)
    with EmbeddedBroker() as broker:
        t, live = live_tournament(tmp_path, LiveOptions(broker=broker.url.public()), matches=2)
        board = topics.leaderboard(t.run_id)
        async with Collector(broker.url.public(), topics.run_filter(t.run_id)) as col:
            async with live:
                await t.run()
                live.status.poll(0)  # what the cancelled poll did: its answer went nowhere
            # the leaderboard goes out before the status that counts its matches
            await col.wait_for(lambda: (col.last(board) or {}).get("n_results") == 2)
            await col.wait_for(lambda: (col.last(topics.status(t.run_id)) or {}).get("done") == 2)
