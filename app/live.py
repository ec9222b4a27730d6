"""What ``arena run`` wires around a run to publish it live: :class:`LiveSession` (the broker, the
sinks, the run status) and its typed :class:`LiveOptions`. ``--tui`` is ``app.commands.run``'s."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from arena.live import topics
from arena.live.auth import BusCredentials, credentials_path
from arena.live.broker import BrokerProcess
from arena.live.bus import Publisher
from arena.live.sink import MqttSink, sink_factory
from arena.live.status import RunStatus
from arena.live.url import BrokerURL, BrokerURLError, cleartext_warning
from arena.results import MatchSpec
from arena.sinks import EventSink

STATUS_INTERVAL = 0.5
CREDENTIALS_NOTE = "broker.credentials.json"  # in the run directory, mode 0600, while it runs

SinkFactory = Callable[[MatchSpec], list[EventSink]]


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


@dataclass(frozen=True)
class LiveOptions:
    """How a run is published live (``arena run``'s live-view flags, typed)."""

    publish: bool = True  # False: no broker and no publishing (``--no-broker``)
    broker: str | None = None  # an external broker's URL; None: an embedded one on loopback
    require: bool = False  # the broker must be reachable, or the run stops (exit 1)
    seat_streams: bool = True  # one stream per seat besides the spectator stream
    connect_timeout_s: float = 3.0


class LiveSession:
    """The publisher, the embedded broker (if any) and the status task of one run.

    An async context manager: entering starts publishing, leaving publishes the final status
    and stops. :meth:`sinks` is the run's sink factory (one :class:`MqttSink` per match; none
    while nothing is published), to be composed into the tournament's ``extra_sinks``.
    """

    def __init__(self, run_id: str, root: Path, options: LiveOptions | None = None) -> None:
        self.run_id = run_id
        self.root = Path(root)
        self.options = options or LiveOptions()
        self.broker: BrokerProcess | None = None
        self.publisher: Publisher | None = None
        self.url: BrokerURL | None = None
        # the embedded broker's credentials (RUN_DIR/broker.credentials.json, mode 0600)
        self.credentials: BusCredentials | None = None
        self.active: set[MqttSink] = set()
        self._make: SinkFactory | None = None
        self._task: asyncio.Task[None] | None = None
        self.status = RunStatus(self.root / "arena.sqlite")
        # matches running per node, from the executor's progress (set by the command)
        self.nodes_of: Callable[[], dict[str, int]] | None = None

    async def __aenter__(self) -> LiveSession:
        await self.open()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    @property
    def public_url(self) -> str:
        """The broker's URL as printed and recorded: never a password; for the embedded broker
        not even the publisher's username (a watcher connects with its own)."""
        if self.url is None:
            return ""
        if self.credentials is not None:
            return BrokerURL(self.url.host, self.url.port).public()
        return self.url.public()

    def sinks(self, spec: MatchSpec) -> list[EventSink]:
        """This match's live sinks (none while the session publishes nothing)."""
        return self._make(spec) if self._make is not None else []

    async def open(self) -> None:
        options = self.options
        if not options.publish:
            return
        url = self.url = await self._find_broker()
        if url is None:
            return
        clear = cleartext_warning(url)
        if clear is not None:
            _say(f"warning: {clear}")
        publisher = self.publisher = Publisher(url)
        publisher.start()
        if not await publisher.wait_connected(options.connect_timeout_s):
            why = publisher.last_error or "no answer"
            state = "refused the connection" if publisher.refused else "unreachable"
            if options.require:
                await self.close()
                raise SystemExit(
                    _fail(f"MQTT broker {url.public()} {state} ({why}); --require-broker")
                )
            _say(
                f"warning: MQTT broker {url.public()} {state} ({why}); the run goes on "
                "recording to JSONL and keeps retrying the broker in the background"
            )
        self._write_broker_note()
        self._start_sinks(publisher)

    async def _find_broker(self) -> BrokerURL | None:
        """The broker's URL: the external one, or an embedded broker started now with
        credentials for this run only. None (said, or fatal with --require-broker) when none."""
        try:
            if self.options.broker:
                return BrokerURL.parse(self.options.broker)
            else:
                # Credentials for this run only, generated before the broker starts: it admits
                # nobody else (docs/security.md, "The live bus").
                self.credentials = BusCredentials.generate(self.run_id)
                secret = self.credentials.save(credentials_path(self.root))
                # its own process: off the matches' GIL
                self.broker = BrokerProcess(credentials_file=secret)
                url = await asyncio.to_thread(self.broker.start)
                pub = self.credentials.publisher
                return BrokerURL(url.host, url.port, username=pub.username, password=pub.password)
        except (BrokerURLError, RuntimeError, OSError) as err:
            self._forget_credentials()
            self._unreachable(str(err))
            return None

    def _write_broker_note(self) -> None:
        """RUN_DIR/broker.json: where a viewer finds the run's topics (never a password)."""
        self.root.mkdir(parents=True, exist_ok=True)
        (self.root / "broker.json").write_text(
            json.dumps(
                {
                    "url": self.public_url,
                    "embedded": self.broker is not None,
                    # where the watch credentials are (never the passwords themselves)
                    "credentials": CREDENTIALS_NOTE if self.credentials is not None else None,
                    "run_id": self.run_id,
                    "topics": topics.run_root(self.run_id),
                    "version": topics.VERSION,
                },
                indent=2,
            )
            + "\n",
            encoding="utf-8",
        )

    def _start_sinks(self, publisher: Publisher) -> None:
        make = sink_factory(
            publisher,
            self.run_id,
            seat_streams=self.options.seat_streams,
            on_close=self.active.discard,  # a closed match no longer counts as running
        )

        def tracked(spec: MatchSpec) -> list[EventSink]:
            sinks = make(spec)
            self.active.update(sinks)
            return list(sinks)

        self._make = tracked
        self._task = asyncio.get_running_loop().create_task(self._status_loop())

    def _unreachable(self, why: str) -> None:
        if self.options.require:
            raise SystemExit(_fail(f"MQTT broker unavailable: {why}; --require-broker"))
        _say(f"warning: MQTT broker unavailable ({why}); the run goes on recording to JSONL")

    async def publish_status(self, final: bool = False) -> None:
        """Retain the run's status (and its leaderboard when matches finished since)."""
        if self.publisher is None:
            return
        running = 0 if final else len(self.active)
        # SQLite reads and the rating fold run in a thread: the matches keep playing meanwhile
        doc, board = await asyncio.to_thread(
            self.status.poll, running, board=final, bus=self.publisher.counters()
        )
        if doc is None:
            return
        if self.url is not None:
            doc["broker"] = self.public_url
        if self.nodes_of is not None:  # empty too: a viewer must see the nodes go idle
            doc["nodes"] = self.nodes_of()
        # The leaderboard goes out before the status that counts its matches: a subscriber
        # that sees ``done == N`` in the status already has the leaderboard of those N.
        if board is not None:
            self.publisher.retain(topics.leaderboard(self.run_id), board)
        self.publisher.retain(topics.status(self.run_id), doc)

    async def _status_loop(self) -> None:
        while True:
            with contextlib.suppress(Exception):  # a status hiccup must never stop a run
                await self.publish_status()
            await asyncio.sleep(STATUS_INTERVAL)

    async def close(self) -> None:
        self._make = None
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if self.publisher is not None:
            with contextlib.suppress(Exception):
                await self.publish_status(final=True)
            await self.publisher.aclose(timeout=5.0)
            if self.publisher.dropped:
                _say(
                    f"live stream: {self.publisher.dropped} event message(s) dropped (JSONL complete)"
                )
        if self.broker is not None:
            await asyncio.to_thread(self.broker.stop)
            self.broker = None
        self._forget_credentials()

    def _forget_credentials(self) -> None:
        """The broker is gone: its credentials open nothing any more, so they leave the disk."""
        if self.credentials is not None:
            with contextlib.suppress(OSError):
                credentials_path(self.root).unlink()


def _fail(message: str) -> int:
    _say(f"error: {message}")
    return 1
