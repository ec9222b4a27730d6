"""Per-seat topics carry exactly what that seat may see — never god-only or others' secrets."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arena.agents import RandomAgent
from arena.events import Event
from arena.live import topics
from arena.live.broker import EmbeddedBroker
from arena.live.bus import Publisher
from arena.live.sink import MqttSink
from arena.live.url import BrokerURL
from arena.results import MatchSpec
from arena.runner import MatchRunner
from arena.sinks import MemorySink
from tests.arena.live.helpers import Collector, mosquitto


class RecordingPublisher(Publisher):
    def __init__(self) -> None:
        super().__init__(BrokerURL("127.0.0.1", 1))
        self.sent: list[tuple[str, str]] = []

    def publish_event(self, topic: str, event_json: str) -> bool:
        self.sent.append((topic, event_json))
        return True


def spec(n: int = 4) -> MatchSpec:
    return MatchSpec(
        match_id="m1", run_id="r", game="toy", rules={"n_players": n}, seed=3,
        seats=[f"a{i}" for i in range(n)],
    )  # fmt: skip


async def _run(sinks: list[Any], n: int = 4) -> list[Event]:
    memory = MemorySink()
    agents = [RandomAgent(f"a{i}", p_speak=0.7) for i in range(n)]
    await MatchRunner(spec(n), agents, [memory, *sinks]).run()
    return memory.events


def _seat_view(events: list[Event], seat: int) -> list[str]:
    return [e.model_dump_json() for e in events if e.delivered_to(seat)]


async def test_seat_topics_get_exactly_the_events_visible_to_the_seat() -> None:
    pub = RecordingPublisher()
    events = await _run([MqttSink(pub, "r", "m1", 4)])
    god = [j for t, j in pub.sent if t == topics.god("r", "m1")]
    assert god == [e.model_dump_json() for e in events]
    scopes = {e.visibility.scope for e in events}
    assert {"public", "private", "god"} <= scopes  # the toy game exercises all three
    for seat in range(4):
        got = [j for t, j in pub.sent if t == topics.seat("r", "m1", seat)]
        assert got == _seat_view(events, seat)
        for j in got:
            ev = Event.model_validate_json(j)
            assert ev.visibility.scope != "god"
            assert ev.visibility.scope == "public" or seat in ev.visibility.seats


async def test_team_events_reach_only_team_members() -> None:
    from arena.events import GameEvent, Visibility

    pub = RecordingPublisher()
    sink = MqttSink(pub, "r", "m1", 5)
    team = Visibility.for_team("wolves", [1, 3])
    sink.write(Event.stamp(GameEvent(type="chat", visibility=team, text="psst"), run_id="r",
                           match_id="m1", seq=0))  # fmt: skip
    seats = sorted(int(t.rsplit("/", 1)[1]) for t, _ in pub.sent if "/seats/" in t)
    assert seats == [1, 3]


async def test_seat_streams_over_a_real_broker_hold_no_foreign_private_data(
    tmp_path: Path,
) -> None:
    with EmbeddedBroker() as broker:
        await _check_over_broker(broker.url)
    with mosquitto(tmp_path) as m:
        await _check_over_broker(BrokerURL.parse(m.url))


async def _check_over_broker(url: BrokerURL) -> None:
    pub = Publisher(url)
    pub.start()
    assert await pub.wait_connected(60)
    async with Collector(url, topics.match_root("r", "m1") + "/seats/+") as col:
        events = await _run([MqttSink(pub, "r", "m1", 4)])
        want = {s: _seat_view(events, s) for s in range(4)}
        await col.wait_for(
            lambda: all(len(col.events(topics.seat("r", "m1", s))) == len(want[s]) for s in want)
        )
    await pub.aclose()
    secrets = {e.payload["value"]: e.visibility.seats[0] for e in events if e.type == "secret"}
    for s in range(4):
        got = col.events(topics.seat("r", "m1", s))
        assert [Event.model_validate(d).model_dump_json() for d in got] == want[s]
        leaked = [
            v for v, owner in secrets.items() if owner != s and any(
                d["payload"].get("value") == v and d["type"] == "secret" for d in got
            )
        ]  # fmt: skip
        assert not leaked
        assert not any(d["type"] in ("ground_truth", "decision", "match_end") for d in got)
