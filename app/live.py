"""What ``arena run`` calls: :func:`session` (publishing around a run) and :func:`run_with_tui`."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from arena.live import topics
from arena.live.broker import EmbeddedBroker
from arena.live.bus import Publisher
from arena.live.sink import MqttSink, sink_factory
from arena.live.status import leaderboard_doc, read_results, status_doc
from arena.live.url import BrokerURL, BrokerURLError

STATUS_INTERVAL = 0.5


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


class LiveSession:
    """The publisher, the embedded broker (if any) and the status task of one run."""

    def __init__(self, tournament: Any, args: argparse.Namespace) -> None:
        self.tournament = tournament
        self.args = args
        self.run_id: str = tournament.run_id
        self.root = Path(tournament.dir.root)
        self.broker: EmbeddedBroker | None = None
        self.publisher: Publisher | None = None
        self.url: BrokerURL | None = None
        self.active: set[MqttSink] = set()
        self._task: asyncio.Task[None] | None = None
        self._rated = -1

    async def open(self) -> None:
        args = self.args
        if getattr(args, "no_broker", False):
            return
        connect_timeout = float(getattr(args, "broker_timeout", 3.0) or 3.0)
        try:
            if getattr(args, "broker", None):
                self.url = BrokerURL.parse(args.broker)
            else:
                self.broker = EmbeddedBroker()
                self.url = await asyncio.to_thread(self.broker.start)
        except (BrokerURLError, RuntimeError, OSError) as err:
            self._unreachable(str(err))
            return
        self.publisher = Publisher(self.url)
        self.publisher.start()
        if not await self.publisher.wait_connected(connect_timeout):
            why = self.publisher.last_error or "no answer"
            if getattr(args, "require_broker", False):
                await self.close()
                raise SystemExit(
                    _fail(f"MQTT broker {self.url.public()} unreachable ({why}); --require-broker")
                )
            _say(
                f"warning: MQTT broker {self.url.public()} unreachable ({why}); the run goes on "
                "recording to JSONL and keeps retrying the broker in the background"
            )
        self.root.mkdir(parents=True, exist_ok=True)
        (self.root / "broker.json").write_text(
            json.dumps(
                {
                    "url": self.url.public(),
                    "embedded": self.broker is not None,
                    "run_id": self.run_id,
                    "topics": topics.run_root(self.run_id),
                    "version": topics.VERSION,
                },
                indent=2,
            )
            + "\n",
            encoding="utf-8",
        )
        make = sink_factory(
            self.publisher, self.run_id, seat_streams=not getattr(args, "no_seat_streams", False)
        )

        def factory(spec: Any) -> list[Any]:
            sinks = make(spec)
            for s in sinks:
                self.active.add(s)
                original = s.close

                def close(s: MqttSink = s, original: Any = original) -> None:
                    original()
                    self.active.discard(s)

                s.close = close  # type: ignore[method-assign]
            return sinks

        previous = self.tournament.extra_sinks

        def combined(spec: Any) -> list[Any]:
            return (previous(spec) if previous else []) + factory(spec)

        self.tournament.extra_sinks = combined
        self._task = asyncio.get_running_loop().create_task(self._status_loop())

    def _unreachable(self, why: str) -> None:
        if getattr(self.args, "require_broker", False):
            raise SystemExit(_fail(f"MQTT broker unavailable: {why}; --require-broker"))
        _say(f"warning: MQTT broker unavailable ({why}); the run goes on recording to JSONL")

    def publish_status(self, final: bool = False) -> None:
        if self.publisher is None:
            return
        db = self.root / "arena.sqlite"
        doc = status_doc(
            db, running=0 if final else len(self.active), bus=self.publisher.counters()
        )
        if doc is None:
            return
        if self.url is not None:
            doc["broker"] = self.url.public()
        # The leaderboard goes out before the status that counts its matches: a subscriber
        # that sees ``done == N`` in the status already has the leaderboard of those N.
        if doc["done"] != self._rated:
            self._rated = doc["done"]
            self.publisher.retain(
                topics.leaderboard(self.run_id), leaderboard_doc(read_results(db))
            )
        self.publisher.retain(topics.status(self.run_id), doc)

    async def _status_loop(self) -> None:
        while True:
            with contextlib.suppress(Exception):  # a status hiccup must never stop a run
                self.publish_status()
            await asyncio.sleep(STATUS_INTERVAL)

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if self.publisher is not None:
            with contextlib.suppress(Exception):
                self.publish_status(final=True)
            await self.publisher.aclose(timeout=5.0)
            if self.publisher.dropped:
                _say(
                    f"live stream: {self.publisher.dropped} event message(s) dropped (JSONL complete)"
                )
        if self.broker is not None:
            await asyncio.to_thread(self.broker.stop)
            self.broker = None


def _fail(message: str) -> int:
    _say(f"error: {message}")
    return 1


@contextlib.asynccontextmanager
async def session(tournament: Any, args: argparse.Namespace) -> AsyncIterator[LiveSession]:
    live = LiveSession(tournament, args)
    await live.open()
    try:
        yield live
    finally:
        await live.close()


def run_with_tui(tournament: Any, args: argparse.Namespace) -> int:
    """Run the tournament inside the Textual app; headless fallback without a terminal."""
    from app.cli import print_leaderboard
    from app.progress import progress_display

    if not (sys.stdout.isatty() and sys.stdin.isatty()):
        _say("no terminal attached: running without the TUI")
        with progress_display(len(tournament.specs), quiet=getattr(args, "quiet", False)) as prog:

            async def headless() -> Any:
                async with session(tournament, args):
                    return await tournament.run(prog)

            results = asyncio.run(headless())
        print_leaderboard(results)
        return 0
    from tournaments.executor import Progress
    from tui.app import ArenaApp
    from tui.sources import RunDirSource

    outcome: dict[str, Any] = {}

    async def job() -> None:
        async with session(tournament, args):
            outcome["results"] = await tournament.run(Progress(total=len(tournament.specs)))

    app = ArenaApp(source=RunDirSource(Path(tournament.dir.root)), job=job)
    app.run()
    if "results" not in outcome:
        _say(
            f"interrupted; finished matches are saved. Resume with:\n  arena run --resume {tournament.dir.root}"
        )
        return 130
    print_leaderboard(outcome["results"])
    return 0
