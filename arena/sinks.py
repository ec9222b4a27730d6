"""Event sinks: where stamped events go. The JSONL file per match is the record of truth."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Protocol

from arena.events import Event


class EventSink(Protocol):
    """Receives every stamped event of a match, in order. Must never block for long."""

    def write(self, event: Event) -> None: ...

    def close(self) -> None: ...


class JsonlSink:
    """One JSON object per line, fsynced on close.

    Flushed before the event loop next runs anything else (live tailing sees every event
    before the match waits on an agent), once for all the events written in between: a
    decision writes several (the call, the decision, what the engine said), and a flush per
    event was a few percent of a tournament's own CPU per LLM request. Without a running loop
    (synchronous callers), every event is flushed as it is written."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        # A rerun of an unfinished match starts its record afresh.
        self._fh: IO[str] | None = open(path, "w", encoding="utf-8")  # noqa: SIM115
        self.count = 0
        self._flush_due = False

    def write(self, event: Event) -> None:
        if self._fh is None:
            raise RuntimeError(f"sink for {self.path} is closed")
        self._fh.write(event.model_dump_json())
        self._fh.write("\n")
        self.count += 1
        if self._flush_due:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._fh.flush()
            return
        self._flush_due = True
        loop.call_soon(self._flush)

    def _flush(self) -> None:
        self._flush_due = False
        if self._fh is not None:
            self._fh.flush()

    def close(self) -> None:
        if self._fh is None:
            return
        self._fh.flush()
        os.fsync(self._fh.fileno())
        self._fh.close()
        self._fh = None


class MemorySink:
    """Keeps events in a list (tests, benchmarks, in-process consumers)."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    def write(self, event: Event) -> None:
        self.events.append(event)

    def close(self) -> None:
        pass


class RecordError(ValueError):
    """A match record with a bad line before its end (not a crash's truncated last line)."""


def read_jsonl(path: Path) -> Iterator[Event]:
    """Events of a match record; a bad last line (a crashed writer's) is skipped.

    A bad line followed by more lines is not a crash's trace: it raises :class:`RecordError`
    naming the file and line, rather than silently dropping the rest of the record.
    """
    with open(path, encoding="utf-8") as fh:
        bad: tuple[int, Exception] | None = None
        for number, raw in enumerate(fh, start=1):
            line = raw.strip()
            if not line:
                continue
            if bad is not None:
                where, err = bad
                first = str(err).splitlines()[0] if str(err) else type(err).__name__
                raise RecordError(f"{path}:{where}: not an event ({first}); later lines follow")
            try:
                event = Event.model_validate(json.loads(line))
            except ValueError as err:  # JSON or validation error
                bad = (number, err)
                continue
            yield event


class GuardedSink:
    """Wraps an optional sink (live view, streaming metrics) so that its failures never reach
    the match: the first error is reported on stderr, later events are dropped and counted.
    The JSONL record is never wrapped — a failure to write the record of truth must surface."""

    def __init__(self, sink: EventSink) -> None:
        self.sink = sink
        self.failed = False
        self.dropped = 0

    def write(self, event: Event) -> None:
        if self.failed:
            self.dropped += 1
            return
        try:
            self.sink.write(event)
        except Exception as err:
            self.failed = True
            self.dropped += 1
            print(
                f"warning: sink {type(self.sink).__name__} failed on {event.match_id} "
                f"event {event.seq}: {type(err).__name__}: {err}; it is switched off for this match",
                file=sys.stderr,
            )

    def close(self) -> None:
        try:
            self.sink.close()
        except Exception as err:
            print(
                f"warning: sink {type(self.sink).__name__} failed to close: {err}", file=sys.stderr
            )
