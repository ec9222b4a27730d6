"""Where the TUI's data comes from: a run directory (tailing files) or an MQTT broker.

Both fold into a :class:`tui.model.RunModel`; the app redraws from the model on a timer, so a
flood of events never floods the screen.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arena.events import Event
from arena.live.status import RunStatus
from tui.model import RunModel

Notify = Callable[[], None]


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
        while True:
            await asyncio.to_thread(self.poll, model)
            notify()
            await asyncio.sleep(self.interval)

    def poll(self, model: RunModel) -> int:
        """One pass: new complete lines of every record, then the store. Returns new events."""
        n = 0
        matches = self.root / "matches"
        if matches.is_dir():
            for path in sorted(matches.glob("*.jsonl")):
                n += self._tail(path, model)
        self._poll_store(model)
        return n

    def _tail(self, path: Path, model: RunModel) -> int:
        try:
            size = path.stat().st_size
        except FileNotFoundError:
            return 0
        offset = self._offsets.get(path, 0)
        if size < offset:  # rewritten (resumed match): start over
            offset = 0
            self._partial.pop(path, None)
            model.matches.pop(path.stem, None)
        if size == offset:
            model.match(path.stem)
            return 0
        with open(path, "rb") as fh:
            fh.seek(offset)
            chunk = fh.read(size - offset)
        self._offsets[path] = offset + len(chunk)
        data = self._partial.pop(path, b"") + chunk
        lines = data.split(b"\n")
        if lines[-1]:
            self._partial[path] = lines[-1]  # an incomplete line: wait for the rest
        n = 0
        model.match(path.stem)
        for line in lines[:-1]:
            if not line.strip():
                continue
            try:
                model.add_event(Event.model_validate(json.loads(line)))
                n += 1
            except (ValueError, TypeError):
                model.malformed += 1
        return n

    def _poll_store(self, model: RunModel) -> None:
        with contextlib.suppress(Exception):  # a busy or half-written store: next time
            doc, board = self.status.poll()
            if doc is None:
                return
            if self.extra is not None:
                doc.update(self.extra())
            model.apply_status(doc)
            model.running = sum(1 for m in model.matches.values() if m.status == "running")
            if board is not None:
                model.apply_leaderboard(board)


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
