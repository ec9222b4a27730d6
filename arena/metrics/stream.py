"""Streaming: a sink that runs the cheap tiers per message and yields god-only ``metric`` events
(§B12 TurnMetrics). Expensive tiers (judge, NLI, probes, inference) run offline (arena score).

Metric events go to ``forward`` sinks (e.g. the live publisher), to ``path`` (a JSONL of metric
events next to the match record) and to ``on_metric`` callbacks; they are never written into
the match record by this sink, so the record of truth is unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from arena.events import Event, Visibility
from arena.metrics import persona as P
from arena.metrics.claims import Matcher, extract
from arena.metrics.detect import Cascade
from arena.metrics.privacy import Exposure
from arena.metrics.secrets import secrets_from_truth
from arena.metrics.settings import MetricsSettings
from arena.metrics.transcript import LogReader, Message
from arena.sinks import EventSink


class MetricsSink:
    """An :class:`arena.sinks.EventSink` computing per-turn metrics as events arrive."""

    def __init__(
        self,
        settings: MetricsSettings | None = None,
        forward: list[EventSink] | None = None,
        path: Path | None = None,
        on_metric: Callable[[Event], Any] | None = None,
        embedder: Any = None,
    ) -> None:
        self.settings = settings or MetricsSettings()
        self.reader = LogReader(self.settings.message_types)
        self.forward = list(forward or [])
        self.on_metric = on_metric
        self.embedder = embedder
        self.path = path
        self._fh: IO[str] | None = None
        self.cascade: Cascade | None = None
        self.exposure: Exposure | None = None
        self.trackers: dict[int, P.ClaimTracker] = {}
        self.cards: dict[int, P.Card] = {}
        self.metrics: list[Event] = []

    def _start(self) -> None:
        log = self.reader.log
        secrets = secrets_from_truth(
            log.ground_truth, log.scenario_truth, log.names, log.game, log.knowledge
        )
        self.cascade = Cascade(secrets, self.settings, self.embedder)
        # The live timeline: at each message it holds every facts record before it.
        self.exposure = Exposure(secrets, log.n_seats, log.knowledge)
        self.cards = P.cards_from_log(log)

    def write(self, event: Event) -> None:
        if event.type == "metric":
            return
        msg = self.reader.feed(event)
        if msg is None:
            return
        if self.cascade is None:
            self._start()
        self._emit(event, self.turn_metrics(msg))

    def turn_metrics(self, msg: Message) -> dict[str, Any]:
        assert self.cascade is not None and self.exposure is not None
        leaks = self.exposure.update(msg, self.cascade.scan(msg.text, msg.seq, speaker=msg.speaker))
        claims = extract(msg.text, msg.t)
        card = self.cards.get(msg.speaker)
        m = Matcher(card.aliases if card else None, self.settings.age_tol)
        tracker = self.trackers.setdefault(msg.speaker, P.ClaimTracker(card, m))
        contra_card = tracker.against_card(claims)
        contra_self = tracker.against_self(claims)
        log = self.reader.log
        others = [n for s, n in enumerate(log.names) if s != msg.speaker]
        own = log.names[msg.speaker] if msg.speaker < len(log.names) else ""
        imp = P.impersonation(msg.text, own, others)
        if self.settings.impersonation_slot_values and not imp:  # §B8 option
            occ = {str(f["value"]) for c in self.cards.values() for f in c.facts
                   if f["slot"] == "occupation"}  # fmt: skip
            uniq = P.unique_slot_values(self.cards, msg.speaker)
            imp = bool(P.slot_impersonation(msg.text, uniq, card, m, occ))
        return {
            "turn": msg.t, "of_seq": msg.seq, "agent": msg.speaker,
            "leak_events": leaks.events, "delta_w": leaks.delta_w,
            "claims": [[c.slot, c.value, c.polarity] for c in claims],
            "contra_card": int(contra_card), "contra_self": int(contra_self),
            "evasive": P.evasive(msg.text, claims, False),
            "impersonation": imp,
            "threshold_version": self.settings.thresholds.version,
        }  # fmt: skip

    def _emit(self, source: Event, payload: dict[str, Any]) -> None:
        # Its own identity: seq numbers the metrics stream (the line of the .live.jsonl);
        # payload["of_seq"] is the record's event it scores. Reusing the source's seq made
        # two different events share one (match_id, seq).
        ev = Event(
            type="metric", phase=source.phase, actor=source.actor, payload=payload,
            visibility=Visibility.god(), run_id=source.run_id, match_id=source.match_id,
            seq=len(self.metrics), ts=source.ts,
        )  # fmt: skip
        self.metrics.append(ev)
        if self.path is not None:
            if self._fh is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._fh = open(self.path, "w", encoding="utf-8")  # noqa: SIM115
            self._fh.write(json.dumps(ev.model_dump(mode="json")) + "\n")
            self._fh.flush()
        for sink in self.forward:
            sink.write(ev)
        if self.on_metric is not None:
            self.on_metric(ev)

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None


def metrics_sink_factory(run_dir: Path | None = None, settings: MetricsSettings | None = None,
                         embedder: Any = None) -> Callable[[Any], list[MetricsSink]]:  # fmt: skip
    """A ``Tournament(extra_sinks=...)`` factory: one MetricsSink per match spec, writing
    ``RUN_DIR/metrics/<match_id>.live.jsonl`` when ``run_dir`` is given."""

    def make(spec: Any) -> list[MetricsSink]:
        path = (
            None if run_dir is None else Path(run_dir) / "metrics" / f"{spec.match_id}.live.jsonl"
        )
        return [MetricsSink(settings, path=path, embedder=embedder)]

    return make
