"""The engine's log as recorded: each engine event stamped once, in log order, and each seat's
delivered records kept incrementally.

Records are matched to engine events by log position. A ``restore()`` replaces the engine's
log: the records of the prefix it shares with the old one are kept, the rest of the new log is
stamped as new events (the record itself is append-only). After each sync a god-only ``facts``
event says which facts changed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arena.events import Event, GameEvent
from arena.facts import FACTS_EVENT, FactTracker

if TYPE_CHECKING:
    from arena.engine import RulesEngine
    from arena.match_record import MatchRecorder


class StampedLog:
    """The records of one engine's log, and what each seat was delivered of them."""

    def __init__(self, recorder: MatchRecorder) -> None:
        self.recorder = recorder
        # records[i] is the record of engine.log[i]; _drafts[i] the engine event it stamped.
        self.records: list[Event] = []
        self._drafts: list[GameEvent] = []
        self._log: list[GameEvent] | None = None
        self._views: dict[int, tuple[int, list[Event]]] = {}
        self.facts = FactTracker()

    def sync(self, engine: RulesEngine[Any]) -> None:
        """Stamp engine events that are not yet in the record, then note changed facts."""
        log = engine.log
        if log is not self._log:
            keep = 0
            limit = min(len(log), len(self._drafts))
            while keep < limit and log[keep] == self._drafts[keep]:
                keep += 1
            del self.records[keep:], self._drafts[keep:]
            self._views = {}
            self._log = log
        while len(self.records) < len(log):
            draft = log[len(self.records)]
            self.records.append(self.recorder.record(draft))
            self._drafts.append(draft)
        self._note_facts(engine)

    def _note_facts(self, engine: RulesEngine[Any]) -> None:
        """A god-only ``facts`` event when the engine's facts changed (a fact was born, its
        audience grew, it became public): ground truth as a timeline, right after the engine
        events that changed it."""
        changed = self.facts.changes(engine.current_facts())
        if changed:
            self.recorder.note(
                FACTS_EVENT, engine.phase, facts=[f.model_dump(mode="json") for f in changed]
            )

    def seat_events(self, engine: RulesEngine[Any], seat: int) -> list[Event]:
        """The records of the engine events delivered to ``seat``, in order (incremental).

        Only events already stamped count (the runner stamps after each applied answer, so
        the record's order does not depend on when agents were asked)."""
        if engine.log is not self._log:
            self.sync(engine)
        done, seen = self._views.get(seat, (0, []))
        if done < len(self.records):
            seen.extend(e for e in self.records[done:] if e.delivered_to(seat))
            self._views[seat] = (len(self.records), seen)
        return seen
