"""A publisher that never blocks its callers.

``publish_event`` appends to a bounded in-memory buffer and returns; a background task drains
the buffer, groups events per topic into batch messages and publishes them. When the buffer is
full new events are dropped and counted (the JSONL record is written elsewhere and stays
complete). Batches go out with QoS 1 and an event counts as ``published`` only once the broker
acknowledged its batch: those in flight when the connection drops count as ``dropped``.
Retained messages (status, leaderboard, summaries) keep only their latest value, are never
dropped and are re-published after every reconnection. Lost connections are retried with
exponential back-off; a broker that refuses the credentials is reported as "not authorised".
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable
from typing import Any

from arena.live.topics import VERSION
from arena.live.url import BrokerURL, redact

log = logging.getLogger("arena.live")
# paho's own socket errors ("failed to receive on socket ...") would reach stderr, or the TUI's
# screen, at every broker kill; the publisher and the watcher report the loss themselves.
client_log = logging.getLogger("arena.live.mqtt-client")
client_log.setLevel(logging.CRITICAL)


class _Lost(Exception):
    """The connection dropped while the publisher waited (idle, or for acknowledgements)."""


# The batch bounds (docs/live.md, "Delivery guarantees"): a batch message carries at most
# MAX_BATCH events of one topic; after an idle spell the publisher lingers LINGER_S before it
# drains, and under a flood it sends at most one batch per topic every INTERVAL_S. An event
# thus waits at most LINGER_S + INTERVAL_S plus one flush's round trip to the broker, and a
# flood of N events on T topics costs about T x ceil(N / (T x MAX_BATCH)) messages per
# interval instead of N. The settings a Publisher accepts are capped by the MOST_* values.
MAX_BATCH = 500
LINGER_S = 0.02
INTERVAL_S = 0.5
MOST_BATCH = 5_000
MOST_DELAY_S = 5.0


def check_bounds(max_batch: int, linger: float, interval: float) -> None:
    """Refuse settings that would leave a batch's size or an event's delay unbounded."""
    if not 1 <= max_batch <= MOST_BATCH:
        raise ValueError(f"max_batch must be 1..{MOST_BATCH} events, not {max_batch}")
    for name, value in (("linger", linger), ("interval", interval)):
        if not 0.0 <= value <= MOST_DELAY_S:
            raise ValueError(f"{name} must be 0..{MOST_DELAY_S} s, not {value}")


def batch_payload(events_json: list[str]) -> str:
    return f'{{"v":{VERSION},"events":[{",".join(events_json)}]}}'


class Publisher:
    """Publishes from its own thread and event loop, so busy matches never starve it."""

    def __init__(
        self,
        url: BrokerURL,
        *,
        max_buffer: int = 50_000,
        max_batch: int = MAX_BATCH,
        backoff: tuple[float, float] = (0.1, 5.0),
        client_id: str | None = None,
        linger: float = LINGER_S,
        interval: float = INTERVAL_S,
        ack_timeout: float = 10.0,
    ) -> None:
        check_bounds(max_batch, linger, interval)
        self.url = url
        # how long a batch may wait for the broker's acknowledgement before it counts as lost
        self.ack_timeout = ack_timeout
        # After a wake from idle, wait this long before draining, so a burst of events goes out
        # as a few batch messages and costs producers one wake-up, not one per event.
        self.linger = linger
        # Under a steady flood (rule bots), at most one batch per topic this often: the cost of
        # the bus is per message (client and broker alike), so batches this long halve it.
        # Sparse events (LLM speed) still go out after ``linger``.
        self.interval = interval
        self._last_flush = 0.0
        self.max_buffer = max_buffer
        self.max_batch = max_batch
        self.backoff = backoff
        self.client_id = client_id or f"arena-pub-{secrets.token_hex(8)}"
        self._buffer: deque[tuple[str, str]] = deque()
        self._retained: dict[str, str] = {}
        # retained topics to (re)publish, oldest change first: a subscriber never sees a message
        # before one retained earlier (the leaderboard before the status that counts its matches)
        self._dirty: OrderedDict[str, None] = OrderedDict()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        self._wake_pending = False
        self._connected = threading.Event()
        self._closing = False
        self._thread: threading.Thread | None = None
        self._task: asyncio.Task[None] | None = None
        # counters (read by status messages, the CLI and the benchmark)
        self.enqueued = 0
        self.published = 0
        self.messages = 0
        self.dropped = 0
        self.reconnects = 0
        self.last_error: str | None = None
        self.refused = False  # the last attempt failed on credentials ("not authorised")

    # -- producer side (any thread; never blocks) ----------------------------------------
    def publish_event(self, topic: str, event_json: str) -> bool:
        if len(self._buffer) >= self.max_buffer:
            self.dropped += 1
            return False
        self._buffer.append((topic, event_json))
        self.enqueued += 1
        self._poke()
        return True

    def retain(self, topic: str, payload: dict[str, Any] | str) -> None:
        text = payload if isinstance(payload, str) else json.dumps(payload, separators=(",", ":"))
        # (the publisher thread pops ``_dirty`` concurrently: out of it while the value changes,
        # then back in at the end, so the new value never goes out ahead of older changes)
        self._dirty.pop(topic, None)
        self._retained[topic] = text
        self._dirty[topic] = None
        self._poke()

    def _poke(self) -> None:
        # One wake-up per idle period: the flag is cleared by the publisher only when it has
        # drained everything and goes back to waiting (a wake-up is a syscall on the producer's
        # thread; one per event cost rule-bot runs a fifth of their speed).
        loop = self._loop
        if loop is not None and not self._wake_pending:
            self._wake_pending = True
            with contextlib.suppress(RuntimeError):  # loop already closed
                loop.call_soon_threadsafe(self._woken)

    def _woken(self) -> None:
        if self._wake is not None:
            self._wake.set()

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    @property
    def backlog(self) -> int:
        return len(self._buffer)

    def counters(self) -> dict[str, Any]:
        return {
            "connected": self.connected,
            "enqueued": self.enqueued,
            "published": self.published,
            "dropped": self.dropped,
            "backlog": self.backlog,
            "reconnects": self.reconnects,
            "not_authorised": self.refused,
        }

    # -- lifecycle -----------------------------------------------------------------------
    def start(self) -> None:
        if self._thread is not None:
            return
        ready = threading.Event()

        def serve() -> None:
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            self._wake = asyncio.Event()
            self._loop = loop
            self._task = loop.create_task(self._run(), name="mqtt-publisher")
            ready.set()
            with contextlib.suppress(asyncio.CancelledError):
                loop.run_until_complete(self._task)
            self._loop = None
            loop.close()

        self._thread = threading.Thread(target=serve, name="mqtt-publisher", daemon=True)
        self._thread.start()
        ready.wait(5)

    async def wait_connected(self, timeout: float) -> bool:
        return await asyncio.to_thread(self._connected.wait, timeout)

    async def aclose(self, timeout: float = 5.0) -> None:
        """Flush what can be flushed within ``timeout``, then stop."""
        await asyncio.to_thread(self.close, timeout)

    def close(self, timeout: float = 5.0) -> None:
        self._closing = True
        thread, loop, task = self._thread, self._loop, self._task
        if thread is None:
            self.dropped += len(self._buffer)
            self._buffer.clear()
            return
        if loop is not None:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._woken)
        thread.join(timeout)
        if thread.is_alive() and loop is not None and task is not None:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(task.cancel)
            thread.join(2.0)
        self.dropped += len(self._buffer)
        self._buffer.clear()

    # -- consumer side (the publisher thread) -----------------------------------------------
    async def _run(self) -> None:
        import aiomqtt

        delay = self.backoff[0]
        first = True
        while True:
            client = aiomqtt.Client(
                identifier=self.client_id, keepalive=15, timeout=self.ack_timeout,
                logger=client_log, max_inflight_messages=1000, **self.url.client_kwargs(),
            )  # fmt: skip
            # every batch of a flush is in flight at once, by design (paho's default window of
            # 20 unacknowledged messages would send them in rounds): no warning per extra one
            client.pending_calls_threshold = self.max_buffer
            try:
                async with client:
                    self._connected.set()
                    self.refused = False
                    if not first:
                        log.info("reconnected to %s", self.url.public())
                    first = False
                    delay = self.backoff[0]
                    for topic in list(self._retained):
                        self._dirty.setdefault(topic, None)
                    while True:
                        if await self._flush(client):
                            return
            except (aiomqtt.MqttError, _Lost) as err:
                self._connected.clear()
                self.refused = not_authorised(err)
                self.last_error = describe(err)
                if self._closing:
                    return
                self.reconnects += 1
                log.warning("MQTT broker %s: %s; retrying", self.url.public(), self.last_error)
                await asyncio.sleep(delay)
                delay = min(delay * 2, self.backoff[1])
            finally:
                release(client)

    async def _flush(self, client: Any) -> bool:
        """Publish what is pending; True when closing and everything is out."""
        assert self._wake is not None
        if not self._buffer and not self._dirty:
            if self._closing:
                return True
            self._wake.clear()
            self._wake_pending = False  # from here on, the next producer wakes us
            if self._buffer or self._dirty:  # arrived before the flag was down: no wake-up came
                return False
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), 0.25)
            _raise_if_lost(client)  # noticed while idle, not at the next publish
            if self._wake.is_set() and not self._closing:
                await asyncio.sleep(self.linger)
            return False
        wait = self._last_flush + self.interval - time.monotonic()
        if wait > 0 and not self._closing:
            self._wake.clear()
            with contextlib.suppress(TimeoutError):  # close() wakes it early
                await asyncio.wait_for(self._wake.wait(), wait)
        self._last_flush = time.monotonic()
        groups: dict[str, list[str]] = {}
        n = 0
        while self._buffer and n < self.max_buffer:  # all of it: one interval's worth
            topic, ev = self._buffer.popleft()
            groups.setdefault(topic, []).append(ev)
            n += 1
        batches = [
            (topic, evs[i : i + self.max_batch])
            for topic, evs in groups.items()
            for i in range(0, len(evs), self.max_batch)
        ]
        # every batch at once (paho keeps each topic's order); an event counts as published
        # when the broker acknowledged its batch (QoS 1), not when it left this process
        total, before = sum(len(b) for _, b in batches), self.published
        sends = [self._send(client, t, b) for t, b in batches]
        work = asyncio.gather(*sends, return_exceptions=True)
        sent, results = await self._until_lost(client, work)
        failed = next((r for r in results or [] if isinstance(r, BaseException)), None)
        if not sent or failed is not None:
            # never acknowledged (maybe delivered, maybe not): dropped, whatever their stage
            self.dropped += total - (self.published - before)
            if failed is not None:
                raise failed
            raise _Lost("connection lost with batches in flight")
        while self._dirty:
            try:
                topic, _ = self._dirty.popitem(last=False)
            except KeyError:  # emptied by retain() meanwhile; it is put back at once
                break
            publish = client.publish(topic, self._retained[topic], qos=1, retain=True)
            if not (await self._until_lost(client, publish))[0]:
                self._dirty[topic] = None  # not acknowledged: again after reconnecting
                raise _Lost("connection lost with a retained message in flight")
        return False

    async def _send(self, client: Any, topic: str, chunk: list[str]) -> None:
        await client.publish(topic, batch_payload(chunk), qos=1)
        self.messages += 1
        self.published += len(chunk)

    @staticmethod
    async def _until_lost(client: Any, work: Awaitable[Any]) -> tuple[bool, Any]:
        """Await ``work``: (True, its result), or (False, None) with ``work`` cancelled, and
        finished, when the connection drops first."""
        task = asyncio.ensure_future(work)
        lost = _lost(client)
        if lost is None:
            return True, await task
        await asyncio.wait({task, lost}, return_when=asyncio.FIRST_COMPLETED)
        if not task.done():
            task.cancel()
        done: tuple[Any] = await asyncio.gather(task, return_exceptions=True)
        result = done[0]
        if isinstance(result, asyncio.CancelledError):
            return False, None
        if isinstance(result, BaseException):
            raise result
        return True, result


def not_authorised(err: BaseException) -> bool:
    """True when the broker refused the connection's credentials (CONNACK 4/5, v5 134/135)."""
    rc = getattr(err, "rc", None)
    value = getattr(rc, "value", rc)
    return type(err).__name__ == "MqttConnectError" and value in (4, 5, 134, 135)


def describe(err: BaseException) -> str:
    """One line for an MQTT failure: "not authorised" for refused credentials."""
    if not_authorised(err):
        return "not authorised: the broker refused the credentials"
    return redact(str(err))


def release(client: Any) -> None:
    """Tidy an aiomqtt client after its ``async with`` on the loop that ran it (kills included).

    A connection lost while idle leaves its exception in a future nobody awaited: read it, or
    asyncio prints "Future exception was never retrieved" when it is collected. A connection
    attempt that timed out or was cancelled leaves paho's socket open: close it now, or paho
    closes it when collected, after the loop is gone, and prints "Event loop is closed".
    """
    lost = _lost(client)
    if lost is not None and lost.done() and not lost.cancelled():
        lost.exception()
    paho = getattr(client, "_client", None)
    reset = getattr(paho, "_reset_sockets", None)
    if callable(reset):
        with contextlib.suppress(Exception):
            reset()


def _lost(client: Any) -> asyncio.Future[None] | None:
    # aiomqtt resolves this future when the connection drops; it has no public equivalent
    fut = getattr(client, "_disconnected", None)
    return fut if isinstance(fut, asyncio.Future) else None


def _raise_if_lost(client: Any) -> None:
    lost = _lost(client)
    if lost is not None and lost.done():
        err = None if lost.cancelled() else lost.exception()
        raise _Lost(f"connection lost ({redact(str(err)) if err else 'closed'})")
