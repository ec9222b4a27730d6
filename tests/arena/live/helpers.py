"""Test helpers for the live bus: toy runs, a subscriber, a real mosquitto on a free port."""

from __future__ import annotations

import asyncio
import contextlib
import getpass
import json
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.live import LiveOptions, LiveSession
from tournaments.config import parse
from tournaments.executor import Tournament


def toy_tournament(
    tmp: Path, matches: int = 4, concurrency: int = 4, extra_sinks: Any = None, **rules: Any
) -> Tournament:
    config = parse(
        {
            "name": "toy",
            "game": "toy",
            "rules": {"n_players": 4, "rounds": 3, **rules},
            "agents": [
                {"name": "r1", "kind": "random", "params": {"p_speak": 0.8}},
                {"name": "r2", "kind": "random", "params": {"p_speak": 0.3}},
            ],
            "matches": matches,
            "concurrency": concurrency,
            "master_seed": 5,
            "output_dir": str(tmp),
        }
    )
    return Tournament(config, tmp / "run1", "run1", extra_sinks=extra_sinks)


def live_tournament(
    tmp: Path, options: LiveOptions | None = None, **kw: Any
) -> tuple[Tournament, LiveSession]:
    """A toy run whose matches publish through a live session (as ``arena run`` wires it)."""
    live = LiveSession("run1", tmp / "run1", options)
    return toy_tournament(tmp, extra_sinks=live.sinks, **kw), live


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_port(
    port: int, timeout: float = 60.0, proc: subprocess.Popen[bytes] | None = None
) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"the server meant for 127.0.0.1:{port} exited ({proc.returncode})")
        time.sleep(0.05)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port}")


MOSQUITTO = shutil.which("mosquitto") or (
    "/usr/sbin/mosquitto" if Path("/usr/sbin/mosquitto").exists() else None
)


class Mosquitto:
    """A private mosquitto on a free loopback port, with a temporary config."""

    def __init__(
        self,
        tmp: Path,
        port: int | None = None,
        passwd: Path | None = None,
        acl: Path | None = None,
    ) -> None:
        if MOSQUITTO is None:
            pytest.skip("mosquitto binary not installed (apt-get install mosquitto)")
        self.tmp, self.passwd, self.acl = tmp, passwd, acl
        self.fixed_port = port is not None
        self._configure(port or free_port())
        self.proc: subprocess.Popen[bytes] | None = None

    def _configure(self, port: int) -> None:
        self.port = port
        tmp, passwd, acl = self.tmp, self.passwd, self.acl
        self.conf = tmp / f"mosquitto-{self.port}.conf"
        lines = [f"listener {self.port} 127.0.0.1", "persistence false", "log_dest none"]
        lines += (
            [f"password_file {passwd}", "allow_anonymous false"]
            if passwd
            else ["allow_anonymous true"]
        )
        lines += [f"acl_file {acl}"] if acl else []
        if passwd or acl:
            # run as root, mosquitto drops to user "mosquitto", who cannot read a private tmp dir
            lines.append(f"user {getpass.getuser()}")
        self.conf.write_text("\n".join(lines) + "\n")

    def start(self) -> Mosquitto:
        """Start it; on a port picked free, try another if it was taken in between (mosquitto
        cannot listen on port 0 and say which port it got)."""
        assert MOSQUITTO is not None
        for attempt in range(3):
            self.proc = subprocess.Popen(
                [MOSQUITTO, "-c", str(self.conf)],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            try:
                wait_port(self.port, proc=self.proc)
                self.fixed_port = True  # a restart comes back on the same port
                return self
            except RuntimeError:  # it exited: the port was taken
                if self.fixed_port or attempt == 2:
                    raise
                self._configure(free_port())
        return self

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(5)

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"


@contextlib.contextmanager
def mosquitto(tmp: Path) -> Iterator[Mosquitto]:
    m = Mosquitto(tmp).start()
    try:
        yield m
    finally:
        m.kill()


class Collector:
    """Subscribes to a filter and keeps every message (topic, payload bytes, retain)."""

    def __init__(self, url: Any, filt: str) -> None:
        from arena.live.url import BrokerURL

        self.url = url if isinstance(url, BrokerURL) else BrokerURL.parse(str(url))
        self.filt = filt
        self.messages: list[tuple[str, bytes, bool]] = []
        self._task: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()

    async def __aenter__(self) -> Collector:
        self._task = asyncio.create_task(self._run())
        ready = asyncio.create_task(self._ready.wait())
        await asyncio.wait({self._task, ready}, timeout=60, return_when=asyncio.FIRST_COMPLETED)
        ready.cancel()
        if self._task.done():
            self._task.result()  # the subscriber failed: its error, not a timeout
        if not self._ready.is_set():
            raise TimeoutError(f"could not subscribe to {self.filt} at {self.url.public()}")
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task

    async def _run(self) -> None:
        import aiomqtt

        async with aiomqtt.Client(**self.url.client_kwargs()) as client:
            await client.subscribe(self.filt, qos=1)
            self._ready.set()
            async for m in client.messages:
                self.messages.append((str(m.topic), bytes(m.payload), bool(m.retain)))

    def events(self, topic: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for t, payload, _ in self.messages:
            if t == topic:
                out.extend(json.loads(payload)["events"])
        return out

    def last(self, topic: str) -> dict[str, Any] | None:
        docs = [json.loads(p) for t, p, _ in self.messages if t == topic]
        return docs[-1] if docs else None

    async def wait_for(self, predicate: Any, timeout: float = 60.0) -> None:
        # generous: the deadline only matters when the condition never comes
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                raise TimeoutError("condition not met in time")
            await asyncio.sleep(0.05)
