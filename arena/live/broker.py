"""The embedded MQTT broker (``amqtt``), run on its own thread and event loop, or in a child
process (:class:`BrokerProcess`, what ``arena run`` starts) so that routing every message of a
busy run never competes with the matches for the interpreter.

By default it listens on 127.0.0.1 on a free port. Who may connect:

* ``credentials_file`` (what ``arena run`` passes): only the run's credentials, each limited to
  its topics (:mod:`arena.live.auth`; enforced by :mod:`arena.live.broker_plugins`);
* ``username`` and ``password`` (``arena broker --user``): that one user, stored only as an
  argon2 hash in a private temporary file removed on stop; a username without a password is
  refused, never served open;
* neither: anonymous clients, on loopback only (tests, ``arena broker`` for local tinkering).

Listening on any other address needs ``allow_remote=True`` *and* credentials. Packet logging is
off, so credentials never reach a log.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

from arena.live.url import BrokerURL, is_loopback

__all__ = ["BrokerProcess", "BrokerSecurityError", "EmbeddedBroker", "is_loopback"]


class BrokerSecurityError(ValueError):
    """Refused: a non-loopback listener without an explicit opt-in and a password."""


class EmbeddedBroker:
    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        allow_remote: bool = False,
        username: str | None = None,
        password: str | None = None,
        credentials_file: Path | None = None,
    ) -> None:
        if username and not password:
            raise BrokerSecurityError(
                f"user {username!r} has no password (set ARENA_BROKER_PASSWORD); "
                "refusing to run an open broker"
            )
        if password and not username:
            raise BrokerSecurityError("a broker password needs a username")
        if not is_loopback(host):
            if not allow_remote:
                raise BrokerSecurityError(
                    f"the embedded broker listens on loopback only; binding {host} needs "
                    "--allow-remote and a password"
                )
            if not (username and password) and credentials_file is None:
                raise BrokerSecurityError(
                    f"binding the embedded broker on {host} requires a username and password"
                )
        self.host = host
        self.port = port
        self.username = username
        self._password = password
        self.credentials_file = Path(credentials_file) if credentials_file else None
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._broker: Any = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._tmp: Path | None = None

    # -- public --------------------------------------------------------------------------
    @property
    def url(self) -> BrokerURL:
        """Where clients connect (loopback address when bound to a wildcard)."""
        host = self.host if self.host not in ("0.0.0.0", "::") else "127.0.0.1"
        return BrokerURL(host=host, port=self.port, username=self.username, password=self._password)

    def start(self, timeout: float = 10.0) -> BrokerURL:
        for name in ("amqtt", "transitions"):
            logging.getLogger(name).setLevel(logging.ERROR)
        self._thread = threading.Thread(target=self._serve, name="amqtt-broker", daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout):
            raise RuntimeError("embedded MQTT broker did not start in time")
        if self._error is not None:
            raise RuntimeError(f"embedded MQTT broker failed to start: {self._error}")
        return self.url

    def stop(self, timeout: float = 5.0) -> None:
        loop, thread = self._loop, self._thread
        if loop is not None and thread is not None and thread.is_alive():
            fut = asyncio.run_coroutine_threadsafe(self._shutdown(), loop)
            with contextlib.suppress(Exception):
                fut.result(timeout)
            loop.call_soon_threadsafe(loop.stop)
            thread.join(timeout)
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def __enter__(self) -> EmbeddedBroker:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- the broker thread -----------------------------------------------------------------
    def _config(self) -> dict[str, Any]:
        plugins: dict[str, Any] = {}
        if self.credentials_file is not None:
            cfg = {"credentials_file": str(self.credentials_file)}
            plugins["arena.live.broker_plugins.RunAuthPlugin"] = cfg
            plugins["arena.live.broker_plugins.RunTopicPlugin"] = cfg
        elif self.username and self._password:
            from pwdlib import PasswordHash
            from pwdlib.hashers.argon2 import Argon2Hasher

            self._tmp = Path(tempfile.mkdtemp(prefix="arena-broker-"))
            pw = self._tmp / "passwd"
            digest = PasswordHash((Argon2Hasher(),)).hash(self._password)
            fd = os.open(pw, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(f"{self.username}:{digest}\n")
            plugins["amqtt.plugins.authentication.FileAuthPlugin"] = {"password_file": str(pw)}
        else:
            plugins["amqtt.plugins.authentication.AnonymousAuthPlugin"] = {"allow_anonymous": True}
        host = f"[{self.host}]" if ":" in self.host else self.host
        return {
            "listeners": {"default": {"type": "tcp", "bind": f"{host}:{self.port}"}},
            "plugins": plugins,
        }

    def _serve(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(self._start())
        except BaseException as err:
            self._error = err
            self._ready.set()
            loop.close()
            return
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            with contextlib.suppress(Exception):
                pending = asyncio.all_tasks(loop)
                for t in pending:
                    t.cancel()
                loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            loop.close()

    async def _start(self) -> None:
        from arena.live.broker_plugins import CheckedBroker

        self._broker = CheckedBroker(self._config())
        await self._broker.start()
        server = self._broker._servers["default"].instance
        self.port = server.sockets[0].getsockname()[1]

    async def _shutdown(self) -> None:
        if self._broker is not None:
            with contextlib.suppress(Exception):
                await self._broker.shutdown()


class BrokerProcess:
    """An :class:`EmbeddedBroker` on loopback in a child process.

    With ``credentials_file`` (a run's :class:`~arena.live.auth.BusCredentials`, what ``arena
    run`` passes) only those credentials connect; without, anyone local may (tests). The child
    gets the file's path, never a password, on its command line. It prints its port, then
    serves until its stdin closes: when this object stops it, or when the parent dies, so a
    crashed run never leaves a broker behind.
    """

    def __init__(
        self, host: str = "127.0.0.1", port: int = 0, credentials_file: Path | None = None
    ) -> None:
        if not is_loopback(host):
            raise BrokerSecurityError("a broker process listens on loopback only")
        self.host = host
        self.port = port
        self.credentials_file = Path(credentials_file) if credentials_file else None
        self._proc: subprocess.Popen[str] | None = None

    @property
    def url(self) -> BrokerURL:
        return BrokerURL(host=self.host, port=self.port)

    def start(self, timeout: float = 30.0) -> BrokerURL:
        # the child imports this very package, wherever it was imported from here
        root = str(Path(__file__).resolve().parents[2])
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]),
        }
        cmd = [sys.executable, "-m", "arena.live.broker", self.host, str(self.port)]
        if self.credentials_file is not None:
            cmd.append(str(self.credentials_file.resolve()))
        self._proc = proc = subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True, env=env,
        )  # fmt: skip
        first: list[str] = []
        out = proc.stdout
        assert out is not None
        reader = threading.Thread(target=lambda: first.append(out.readline()), daemon=True)
        reader.start()
        reader.join(timeout)
        line = first[0].strip() if first else ""
        if not line.startswith("port "):
            self.stop()
            why = line or ("no answer in time" if reader.is_alive() else "it exited")
            raise RuntimeError(f"embedded MQTT broker process failed to start: {why}")
        self.port = int(line.split()[1])
        return self.url

    def stop(self, timeout: float = 5.0) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        with contextlib.suppress(OSError):
            if proc.stdin is not None:
                proc.stdin.close()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def __enter__(self) -> BrokerProcess:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _serve_child(host: str, port: int, credentials_file: str | None = None) -> None:
    """The child of :class:`BrokerProcess`: serve until stdin closes."""
    broker = EmbeddedBroker(
        host, port, credentials_file=Path(credentials_file) if credentials_file else None
    )
    try:
        url = broker.start()
    except Exception as err:
        print(f"error {err}", flush=True)
        return
    print(f"port {url.port}", flush=True)
    try:
        sys.stdin.read()  # returns at EOF: the parent stopped us or is gone
    finally:
        broker.stop()


if __name__ == "__main__":
    _serve_child(sys.argv[1], int(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else None)
