"""Event sinks: where stamped events go. The JSONL file per match is the record of truth."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Protocol

from arena.events import Event


class EventSink(Protocol):
    """Receives every stamped event of a match, in order. Must never block for long."""

    def write(self, event: Event) -> None: ...

    def close(self) -> None: ...


class JsonlSink:
    """One JSON object per line; flushed per event (live tailing), fsynced on close."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        # A rerun of an unfinished match starts its record afresh.
        self._fh: IO[str] | None = open(path, "w", encoding="utf-8")  # noqa: SIM115
        self.count = 0

    def write(self, event: Event) -> None:
        if self._fh is None:
            raise RuntimeError(f"sink for {self.path} is closed")
        self._fh.write(event.model_dump_json())
        self._fh.write("\n")
        self._fh.flush()
        self.count += 1

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


def read_jsonl(path: Path) -> Iterator[Event]:
    """Events of a match record; a truncated last line (crashed writer) is skipped."""
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            line = line.strip()
            if not line:
                continue
            try:
                yield Event.model_validate(json.loads(line))
            except (json.JSONDecodeError, ValueError):
                return
