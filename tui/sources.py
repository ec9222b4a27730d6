"""Where the TUI's data comes from: a run directory (tailing files) or an MQTT broker.

Both fold into a :class:`tui.model.RunModel` and call ``notify`` when what the screens draw
changed (:mod:`tui.changes` turns that into one redraw however many events came).

A run directory is written by another process (``arena watch``) or by the run in this one
(``arena run --tui``) through files only, so nothing can tell its reader that a line was
appended: :class:`RunDirSource` checks the files every ``interval`` seconds (a ``stat`` per
record and one read of the store) and tells the app only when a pass changed the model. A
stat check rather than an OS file watcher: no extra dependency, and it works the same on
every platform and on network file systems, where change notifications are not delivered.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from arena.events import Event
from arena.live.status import RunStatus
from tui.model import RunModel

Notify = Callable[[], None]


class RunSource(Protocol):
    """What the app reads a run from: it folds the run into ``model`` and calls ``notify``
    when that changed something; ``description`` says where it reads (the dashboard's title)."""

    description: str

    async def run(self, model: RunModel, notify: Notify) -> None: ...


@dataclass
class Record:
    """What one pass read of one match record: its new complete events."""

    match_id: str
    restarted: bool = False  # the file was rewritten (a resumed match): fold it from scratch
    events: list[Event] = field(default_factory=list)
    malformed: int = 0


@dataclass
class Pass:
    """What one pass over a run directory read; folded into the model on the app's loop."""

    records: list[Record] = field(default_factory=list)
    status: dict[str, Any] | None = None
    board: dict[str, Any] | None = None


class RunDirSource:
    """Tails ``matches/*.jsonl`` and polls ``arena.sqlite`` of a run directory."""

    def __init__(
        self,
        root: Path,
        interval: float = 0.25,
        extra: Callable[[], dict[str, Any]] | None = None,
    ) -> None:
        self.root = Path(root)
        self.interval = interval
        # in-process facts the store does not hold (the executor's matches per node)
        self.extra = extra
        self.description = f"run dir {self.root}"
        self._offsets: dict[Path, int] = {}
        self._partial: dict[Path, bytes] = {}
        self.status = RunStatus(self.root / "arena.sqlite")  # folds only new results

    async def run(self, model: RunModel, notify: Notify) -> None:
        model.connection = "files"
        notify()
        while True:
            # the files are read and parsed in a thread; the model changes only on the
            # app's loop, so a screen never draws from a model that is being folded
            got = await asyncio.to_thread(self.read)
            before = model.fingerprint()
            self.fold(model, got)
            if model.fingerprint() != before:
                notify()
            await asyncio.sleep(self.interval)

    def poll(self, model: RunModel) -> int:
        """One pass: new complete lines of every record, then the store. Returns new events."""
        return self.fold(model, self.read())

    def read(self) -> Pass:
        """Read what is new since the last pass (blocking: files and SQLite)."""
        got = Pass()
        matches = self.root / "matches"
        if matches.is_dir():
            tails = (self._tail(path) for path in sorted(matches.glob("*.jsonl")))
            got.records = [rec for rec in tails if rec is not None]
        with contextlib.suppress(Exception):  # a busy or half-written store: next time
            got.status, got.board = self.status.poll()
        return got

    def fold(self, model: RunModel, got: Pass) -> int:
        """Fold one pass into ``model``; the number of new events."""
        n = 0
        for rec in got.records:
            if rec.restarted:
                model.matches.pop(rec.match_id, None)
            model.match(rec.match_id)  # listed as soon as its record exists
            model.malformed += rec.malformed
            for event in rec.events:
                model.add_event(event)
            n += len(rec.events)
        if got.status is not None:
            doc = dict(got.status)
            if self.extra is not None:
                doc.update(self.extra())
            model.apply_status(doc)
            model.running = sum(1 for m in model.matches.values() if m.status == "running")
        if got.board is not None:
            model.apply_leaderboard(got.board)
        return n

    def _tail(self, path: Path) -> Record | None:
        """The new complete lines of one record (None: it is gone)."""
        rec = Record(path.stem)
        try:
            size = path.stat().st_size
        except FileNotFoundError:
            return None
        offset = self._offsets.get(path, 0)
        if size < offset:  # rewritten (resumed match): start over
            offset = 0
            self._partial.pop(path, None)
            rec.restarted = True
        if size == offset:
            return rec
        with open(path, "rb") as fh:
            fh.seek(offset)
            chunk = fh.read(size - offset)
        self._offsets[path] = offset + len(chunk)
        data = self._partial.pop(path, b"") + chunk
        lines = data.split(b"\n")
        if lines[-1]:
            self._partial[path] = lines[-1]  # an incomplete line: wait for the rest
        for line in lines[:-1]:
            if not line.strip():
                continue
            try:
                rec.events.append(Event.model_validate(json.loads(line)))
            except (ValueError, TypeError):
                rec.malformed += 1
        return rec


class MqttSource:
    """Subscribes to one run's topics (the newest run on the broker when none is named).

    ``connection`` on the model says how it goes: ``connected``, ``reconnecting (why)``, or
    ``not authorised (why)`` when the broker refuses the credentials or a subscription.
    """

    def __init__(
        self,
        url: Any,
        run_id: str | None = None,
        wait_s: float = 1.5,
        seat: tuple[str, int] | None = None,
    ) -> None:
        from arena.live.url import BrokerURL

        self.url = url if isinstance(url, BrokerURL) else BrokerURL.parse(str(url))
        self.run_id = run_id
        self.wait_s = wait_s
        # (match id, seat): only that seat's stream, what a seat credential may read
        self.seat = seat
        where = f", seat {seat[1]} of {seat[0]}" if seat else ""
        self.description = f"broker {self.url.public()}{where}"
        self.backoff = (0.2, 5.0)
        self.ever_connected = False
        self.refused = False  # the last attempt was refused: credentials or topic rules

    async def run(self, model: RunModel, notify: Notify) -> None:
        import aiomqtt

        from arena.live import topics
        from arena.live.bus import client_log, describe, not_authorised, release

        delay = self.backoff[0]
        while True:
            client = aiomqtt.Client(logger=client_log, **self.url.client_kwargs())
            try:
                async with client:
                    model.connection = "connected"
                    self.ever_connected = True
                    self.refused = False
                    delay = self.backoff[0]
                    if self.run_id is None:
                        self.run_id = await self._pick_run(client)
                    if self.run_id is None:
                        model.connection = "connected (no run yet)"
                        notify()
                        await asyncio.sleep(1.0)
                        continue
                    root = topics.run_root(self.run_id)
                    filters = [f"{root}/{f}" for f in ("status", "leaderboard", "matches/+/summary",
                               "matches/+/god", "matches/+/metrics")]  # fmt: skip
                    if self.seat is not None:
                        filters = [topics.seat(self.run_id, *self.seat)]
                    for filt in filters:
                        if _refused(await client.subscribe(filt, qos=1)):
                            raise _SubscriptionRefused(filt)
                    notify()
                    async for message in client.messages:
                        self.handle(model, str(message.topic), message.payload)
                        notify()  # one redraw for a burst: the app coalesces
            except _SubscriptionRefused as err:
                self.refused = True
                model.connection = f"not authorised (may not read {err})"[:90]
                notify()
                await asyncio.sleep(self.backoff[1])
            except aiomqtt.MqttError as err:
                self.refused = not_authorised(err)
                state = "not authorised" if self.refused else "reconnecting"
                why = "the broker refused the credentials" if self.refused else describe(err)
                model.connection = f"{state} ({why[:60]})"
                notify()
                await asyncio.sleep(delay)
                delay = min(delay * 2, self.backoff[1])
            finally:
                release(client)

    async def _pick_run(self, client: Any) -> str | None:
        from arena.live import topics

        every_status = f"{topics.PREFIX}/runs/+/status"
        if _refused(await client.subscribe(every_status, qos=1)):
            raise _SubscriptionRefused(f"{every_status}; name the run")
        best: tuple[float, str] | None = None
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(self.wait_s):
                async for message in client.messages:
                    ref = topics.parse(str(message.topic))
                    try:
                        doc = json.loads(message.payload)
                        ts = float(doc.get("ts", 0))
                    except (ValueError, TypeError, AttributeError):
                        continue
                    if ref is not None and (best is None or ts > best[0]):
                        best = (ts, ref.run_id)
        await client.unsubscribe(f"{topics.PREFIX}/runs/+/status")
        return best[1] if best else None

    @staticmethod
    def handle(model: RunModel, topic: str, payload: Any) -> None:
        """Fold one message; foreign topics and malformed payloads are counted, never raised."""
        from arena.live import topics

        ref = topics.parse(topic)
        if ref is None:
            model.foreign += 1
            return
        if isinstance(payload, bytes | bytearray):
            payload = bytes(payload)
        elif not isinstance(payload, str):
            model.malformed += 1
            return
        if ref.kind in ("god", "seat", "metrics"):
            model.add_batch(payload)
            return
        try:
            doc = json.loads(payload)
            if not isinstance(doc, dict):
                raise TypeError("not an object")
            if ref.kind == "status":
                model.apply_status(doc)
            elif ref.kind == "leaderboard":
                model.apply_leaderboard(doc)
            elif ref.kind == "summary":
                model.apply_summary(doc)
        except (ValueError, TypeError, KeyError):
            model.malformed += 1


class _SubscriptionRefused(Exception):
    """The broker refused a subscription (SUBACK failure): these credentials may not read it."""


def _refused(granted: Any) -> bool:
    codes = granted if isinstance(granted, list | tuple) else [granted]
    return any(int(getattr(c, "value", c) or 0) >= 0x80 for c in codes)


def find_broker(root: Path) -> str | None:
    """The broker URL a run directory recorded (``broker.json``), if any."""
    path = Path(root) / "broker.json"
    with contextlib.suppress(OSError, ValueError, KeyError):
        return str(json.loads(path.read_text(encoding="utf-8"))["url"])
    return None


def replay_events(path: Path) -> tuple[list[Event], bool]:
    """A record's events up to the last complete one, and whether the file was truncated."""
    from arena.sinks import read_jsonl

    events = list(read_jsonl(path))
    size = os.path.getsize(path)
    with open(path, "rb") as fh:
        lines = [ln for ln in fh.read().split(b"\n") if ln.strip()]
    truncated = len(lines) > len(events) or (size > 0 and not _ends_with_newline(path))
    return events, truncated


def _ends_with_newline(path: Path) -> bool:
    with open(path, "rb") as fh:
        fh.seek(-1, os.SEEK_END)
        return fh.read(1) == b"\n"
