"""A match's event log read into what the metrics need (§A2): messages with delivered recipients.

Scanned: speech events (with ``speech``; in v1 records: settings.message_types) with an actor
and non-god visibility. R(t) = the event's audience (``Event.delivered_seats``, fixed by the
engine at emission: the dead who stop observing and characters who left are already out of it)
minus the speaker. A v1 record has no audience: there it is every seat the visibility admits.
Never scanned: god-only events (probes, beliefs, polls), structured actions, briefings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.events import Event
from arena.facts import Knowledge
from arena.sinks import read_jsonl


@dataclass
class Message:
    t: int  # 1-based turn index over scanned messages
    seq: int
    speaker: int
    text: str
    recipients: frozenset[int]
    scope: str
    phase: str
    type: str
    kind: str = ""  # persona: speak / question / answer
    qa: int | None = None


@dataclass
class Probe:
    seat: int
    probe_id: str
    point: str
    own_turn: int
    sample: int
    question: str
    answer: str | None
    score: float | None


@dataclass
class ViewItem:
    """A non-god event with text, for an observer's view (§A10): delivered to ``seats``."""

    seq: int
    type: str
    actor: int | None
    seats: frozenset[int]
    text: str


@dataclass
class MatchLog:
    match_id: str = ""
    run_id: str = ""
    game: str = ""
    names: list[str] = field(default_factory=list)
    seats: dict[int, str] = field(default_factory=dict)  # seat -> agent entry
    teams: dict[int, str] = field(default_factory=dict)
    roles: dict[int, str] = field(default_factory=dict)
    rules: dict[str, Any] = field(default_factory=dict)
    ground_truth: dict[str, Any] | None = None
    knowledge: Knowledge = field(default_factory=Knowledge)  # who knew which fact when
    scenario_truth: dict[str, Any] | None = None
    messages: list[Message] = field(default_factory=list)
    probes: list[Probe] = field(default_factory=list)
    slips: list[dict[str, Any]] = field(default_factory=list)
    beliefs: list[dict[str, Any]] = field(default_factory=list)  # {seat, beliefs, seq}
    offers: list[dict[str, Any]] = field(default_factory=list)  # {seat, price, seq}
    qa: list[dict[str, Any]] = field(default_factory=list)
    briefings: dict[int, dict[str, Any]] = field(default_factory=dict)
    public_text: list[str] = field(default_factory=list)  # scenario / setup lines
    rewards: dict[int, float] = field(default_factory=dict)
    status: str = ""
    view: list[ViewItem] = field(default_factory=list)  # what each seat was shown (§A10)
    end_seq: int | None = None  # first game_over / match_end: the final reveal is not a view

    @property
    def n_seats(self) -> int:
        return len(self.names) or (max(self.seats) + 1 if self.seats else 0)


def message_text(e: Event) -> str:
    """The words of a message: its speech body, else (v1) the payload's message/text."""
    if e.speech is not None and e.speech.body.strip():
        return e.speech.body
    p = e.payload
    for key in ("message", "text"):
        v = p.get(key)
        if isinstance(v, str) and v.strip():
            return v
    return e.text


END_TYPES = ("game_over", "match_end")


class LogReader:
    """Incremental: feed events in order (the streaming sink reuses it)."""

    def __init__(self, message_types: tuple[str, ...]) -> None:
        self.types = set(message_types)
        self.log = MatchLog()

    def feed(self, e: Event) -> Message | None:
        log, p = self.log, e.payload
        log.knowledge.feed(e)
        if e.type == "match_start":
            log.match_id, log.run_id = e.match_id, e.run_id
            log.game = p.get("game", "")
            log.names = list(p.get("names") or [])
            log.rules = dict(p.get("rules") or {})
            log.seats.update({int(k): v for k, v in (p.get("seats") or {}).items()})
        elif e.type == "ground_truth":
            log.ground_truth = dict(p)
            log.seats.update({int(k): v for k, v in (p.get("seats") or {}).items()})
            log.teams = {int(k): v for k, v in (p.get("teams") or {}).items()}
            log.roles = {int(k): v for k, v in (p.get("roles") or {}).items()}
        elif e.type == "scenario_truth":
            log.scenario_truth = dict(p)
        elif e.type == "briefing" and e.actor is not None:
            log.briefings[e.actor] = dict(p)
        elif e.type in ("scenario", "setup", "game_start") and e.text:
            log.public_text.append(e.text)
        elif e.type == "probe" and e.actor is not None:
            log.probes.append(
                Probe(e.actor, str(p.get("probe_id")), str(p.get("point")),
                      int(p.get("own_turn") or 0), int(p.get("sample") or 0),
                      str(p.get("question") or ""), p.get("answer"), p.get("score"))
            )  # fmt: skip
        elif e.type == "slip":
            log.slips.append({"seat": e.actor, "seq": e.seq, **p})
        elif e.type == "belief_report" and e.actor is not None:
            log.beliefs.append({"seat": e.actor, "seq": e.seq, **p})
        elif e.type == "offer" and e.actor is not None and "price" in p:
            log.offers.append({"seat": e.actor, "price": p["price"], "seq": e.seq})
        elif e.type == "qa":
            log.qa.append(dict(p))
        elif e.type == "match_end":
            log.rewards = {int(k): float(v) for k, v in (p.get("rewards") or {}).items()}
            log.status = str(p.get("status", ""))
        is_msg = (e.speech is not None or e.type in self.types) and e.actor is not None
        if e.type in END_TYPES and log.end_seq is None:
            log.end_seq = e.seq
        if (e.visibility.scope != "god" and not is_msg and e.type != "metric"
                and log.end_seq is None):  # fmt: skip
            text = message_text(e)
            if text.strip():
                seen = frozenset(e.delivered_seats(log.n_seats))
                log.view.append(ViewItem(e.seq, e.type, e.actor, seen, text))
        if is_msg and e.actor is not None and e.visibility.scope != "god":
            text = message_text(e)
            if not text.strip():
                return None
            seats = set(e.delivered_seats(log.n_seats)) - {e.actor}
            m = Message(
                t=len(log.messages) + 1, seq=e.seq, speaker=e.actor, text=text,
                recipients=frozenset(seats), scope=e.visibility.scope, phase=e.phase,
                type=e.type, kind=str(p.get("kind", "")), qa=p.get("qa"),
            )  # fmt: skip
            log.messages.append(m)
            log.view.append(ViewItem(e.seq, e.type, e.actor, m.recipients | {e.actor}, text))
            return m
        return None


def read_log(events: list[Event] | Path | str, message_types: tuple[str, ...]) -> MatchLog:
    """Events are read in ``seq`` order: the stamped sequence is the semantic order, the order
    in which events were delivered or stored is not (§D13)."""
    reader = LogReader(message_types)
    source = read_jsonl(Path(events)) if isinstance(events, Path | str) else events
    for e in sorted(source, key=lambda x: x.seq):
        reader.feed(e)
    return reader.log
