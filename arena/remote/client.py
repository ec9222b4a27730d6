"""The runner side of the remote protocol: connection settings, calls, preflight.

Every failure of a call (refused, reset, timed out, an HTTP error status, a reply that is not
the protocol's JSON) is a :class:`RemoteCallError` with one line saying what happened; the
agent turns it into a refused answer (re-asked, then the policy's fallback) or, when it keeps
happening, a forfeit.
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import json
import os
import ssl
from typing import Any, TypeVar
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from arena.remote.http import Connection, HTTPError
from arena.remote.protocol import PROTOCOL_VERSION, InfoReply

Reply = TypeVar("Reply", bound=BaseModel)

LOOPBACK_NAMES = ("localhost",)


class RemoteParams(BaseModel):
    """``params`` of a ``kind: remote`` entry."""

    model_config = ConfigDict(extra="forbid")

    url: str
    # the name of the environment variable that holds this run's bearer token
    token_env: str | None = None
    # seconds per call; the tournament policy's timeout_s applies too (the smaller wins)
    timeout_s: float | None = Field(30.0, gt=0)
    # transport failures in a row (refused, timed out, malformed replies) before the seat forfeits
    max_failures: int = Field(3, ge=1, le=1000)
    # an agent on another host is refused unless said so: a seat's view is private
    allow_remote_host: bool = False

    @field_validator("url")
    @classmethod
    def _http_url(cls, v: str) -> str:
        parts = urlsplit(v)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"{v[:80]!r} is not an http(s) URL")
        return v.rstrip("/")

    @model_validator(mode="after")
    def _loopback(self) -> RemoteParams:
        host = urlsplit(self.url).hostname or ""
        if not is_loopback(host) and not self.allow_remote_host:
            raise ValueError(
                f"url: {host} is not a loopback address; agents on other hosts need "
                "allow_remote_host: true (and should use token_env and https)"
            )
        return self

    def token(self) -> str | None:
        """The bearer token from ``token_env``; ValueError when the variable is unset."""
        if self.token_env is None:
            return None
        value = os.environ.get(self.token_env)
        if not value:
            raise ValueError(f"token_env: environment variable {self.token_env} is not set")
        return value


def is_loopback(host: str) -> bool:
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class RemoteCallError(Exception):
    """A call to a remote agent that failed; the message is one line."""


class Link:
    """One keep-alive connection to one agent server (per seat and match)."""

    def __init__(self, params: RemoteParams) -> None:
        self.params = params
        headers = {}
        token = params.token()
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        tls = _tls_context() if params.url.startswith("https:") else None
        self.conn = Connection(params.url, headers, tls)

    async def call(
        self, path: str, body: dict[str, Any] | None, reply: type[Reply], timeout: float | None
    ) -> Reply:
        """POST ``body`` (GET when None) and the validated reply, or RemoteCallError."""
        where = f"{self.params.url}{path}"
        content = None
        if body is not None:
            content = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()
        try:
            async with asyncio.timeout(timeout):
                resp = await self.conn.request("GET" if body is None else "POST", path, content)
        except TimeoutError:
            raise RemoteCallError(f"{where}: no reply within {timeout}s") from None
        except HTTPError as err:
            raise RemoteCallError(f"{where}: {err}") from None
        if resp.status != 200:
            raise RemoteCallError(f"{where}: HTTP {resp.status}: {_snippet(resp.body)}")
        try:
            return reply.model_validate_json(resp.body)
        except ValidationError as err:
            first = err.errors()[0]
            at = ".".join(str(p) for p in first["loc"]) or "reply"
            raise RemoteCallError(f"{where}: malformed reply ({at}: {first['msg']})") from None

    async def close(self) -> None:
        self.conn.close()


@functools.cache
def _tls_context() -> ssl.SSLContext:
    # loading the CA bundle takes ~40 ms: once per process, not once per seat and match
    return ssl.create_default_context()


def _snippet(body: bytes) -> str:
    return " ".join(body.decode("utf-8", "replace").split())[:200]


async def preflight(params: RemoteParams) -> str:
    """One ``GET /info``: a line naming the agent server, or RemoteCallError (unreachable, a
    rejected token, another protocol version)."""
    try:
        link = Link(params)
    except ValueError as err:
        raise RemoteCallError(str(err)) from None
    try:
        info = await link.call("/info", None, InfoReply, params.timeout_s or 30.0)
    finally:
        await link.close()
    if info.protocol != PROTOCOL_VERSION:
        raise RemoteCallError(
            f"{params.url} speaks remote agent protocol {info.protocol}; "
            f"this arena speaks {PROTOCOL_VERSION}"
        )
    name = f" ({info.name})" if info.name else ""
    return f"remote agent{name} at {params.url}, protocol {info.protocol}"
