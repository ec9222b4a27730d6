"""The MQTT event sink: one per match, feeding a shared :class:`~arena.live.bus.Publisher`.

Every event of the match record goes to the match's spectator (``god``) topic; the streaming
metrics' ``metric`` events, which are not part of the record, go to its ``metrics`` topic
instead (each one a line of ``RUN_DIR/metrics/<match_id>.live.jsonl``). To a seat's topic an
event goes only when
the seat is in the event's audience (``event.delivered_to(seat)``, fixed by the engine when it
emitted the event) — god-only events, other seats' private or team events and whatever a seat
no longer observes (a dead Werewolf seat, a character who left) never reach a seat topic. A retained ``summary`` keeps the match's state in brief.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from arena.events import Event
from arena.live import topics
from arena.live.bus import Publisher

SUMMARY_EVERY = 50  # events between summary refreshes (also on phase change, start and end)


class MqttSink:
    def __init__(
        self,
        publisher: Publisher,
        run_id: str,
        match_id: str,
        n_seats: int,
        *,
        seat_streams: bool = True,
        game: str = "",
        agents: list[str] | None = None,
        on_close: Callable[[MqttSink], None] | None = None,
    ) -> None:
        self.publisher = publisher
        self.on_close = on_close  # told once, after the final summary is retained
        self.run_id = run_id
        self.match_id = match_id
        self.n_seats = n_seats
        self.seat_streams = seat_streams
        self.god_topic = topics.god(run_id, match_id)
        self.metrics_topic = topics.metrics(run_id, match_id)
        self.seat_topics = [topics.seat(run_id, match_id, s) for s in range(n_seats)]
        self.summary_topic = topics.summary(run_id, match_id)
        self.summary: dict[str, Any] = {
            "run_id": run_id,
            "match_id": match_id,
            "game": game,
            "agents": list(agents or []),
            "status": "running",
            "phase": "",
            "n_events": 0,
            "last": "",
            "errors": 0,
            "started": time.time(),
        }
        self._since_summary = 0
        self._closed = False

    def write(self, event: Event) -> None:
        if self._closed:
            return
        data = event.model_dump_json()
        pub = self.publisher
        if event.type == "metric":  # a score of a record's event, not one of them
            pub.publish_event(self.metrics_topic, data)
            return
        pub.publish_event(self.god_topic, data)
        if self.seat_streams:
            for s in event.delivered_seats(self.n_seats):
                if 0 <= s < self.n_seats:
                    pub.publish_event(self.seat_topics[s], data)
        self._note(event)

    def _note(self, event: Event) -> None:
        s = self.summary
        s["n_events"] = event.seq + 1
        changed = event.type in ("match_start", "match_end") or event.phase != s["phase"]
        if event.type in ("error", "invalid_action", "fallback"):
            s["errors"] += 1
        if event.type == "match_start":
            s["names"] = event.payload.get("names", [])
        if event.type == "match_end":
            s["status"] = event.payload.get("status", "finished")
            s["outcome"] = event.payload.get("outcome")
            s["winners"] = event.payload.get("winners", [])
        s["phase"] = event.phase
        if event.text and event.visibility.scope == "public":
            s["last"] = event.text[:200]
        self._since_summary += 1
        if changed or self._since_summary >= SUMMARY_EVERY:
            self._push_summary()

    def _push_summary(self) -> None:
        self._since_summary = 0
        self.summary["ts"] = time.time()
        self.publisher.retain(self.summary_topic, dict(self.summary))

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._push_summary()
        if self.on_close is not None:
            self.on_close(self)


def sink_factory(
    publisher: Publisher,
    run_id: str,
    seat_streams: bool = True,
    on_close: Callable[[MqttSink], None] | None = None,
) -> Callable[[Any], list[MqttSink]]:
    """A ``Tournament.extra_sinks`` factory: one :class:`MqttSink` per match spec."""

    def make(spec: Any) -> list[MqttSink]:
        return [
            MqttSink(
                publisher,
                run_id,
                spec.match_id,
                len(spec.seats),
                seat_streams=seat_streams,
                game=spec.game,
                agents=list(spec.seats),
                on_close=on_close,
            )
        ]

    return make
