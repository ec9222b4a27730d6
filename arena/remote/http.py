"""A small HTTP/1.1 client for the remote protocol: one keep-alive connection, one request at a
time, JSON in and out.

Why not httpx: a seat asks one decision at a time on one connection, and httpx's pools, URL
parsing and anyio layers cost about a millisecond of CPU per call — more than the rest of the
remote path together. This client writes each request in one send (no Nagle delay between
headers and body) and reads ``Content-Length``, chunked or close-delimited replies.
"""

from __future__ import annotations

import asyncio
import ssl
from dataclasses import dataclass
from urllib.parse import urlsplit

MAX_HEADER_BYTES = 64 * 1024
MAX_BODY_BYTES = 64 * 1024 * 1024


class HTTPError(Exception):
    """The connection failed or the reply was not HTTP; the message is one line."""


@dataclass
class Reply:
    status: int
    body: bytes


class Connection:
    """Keep-alive HTTP/1.1 to one origin. Not for concurrent use (a seat asks one at a time)."""

    def __init__(self, base_url: str, headers: dict[str, str], tls: ssl.SSLContext | None) -> None:
        parts = urlsplit(base_url)
        self.https = parts.scheme == "https"
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or (443 if self.https else 80)
        self.prefix = parts.path.rstrip("/")
        self.tls = tls if self.https else None
        host = self.host if ":" not in self.host else f"[{self.host}]"
        fixed = {"Host": f"{host}:{self.port}", "Connection": "keep-alive", **headers}
        self.fixed = "".join(f"{k}: {v}\r\n" for k, v in fixed.items())
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(self, method: str, path: str, body: bytes | None = None) -> Reply:
        """One request. A kept-alive connection the server has closed meanwhile is reopened
        once (a resent request is harmless: every call of the protocol is idempotent)."""
        reused = self.writer is not None
        try:
            return await self._exchange(method, path, body)
        except _FAILURES as err:
            self.close()
            if isinstance(err, HTTPError):
                raise
            if not reused:
                raise HTTPError(_describe(err)) from None
        try:
            return await self._exchange(method, path, body)
        except _FAILURES as err:
            self.close()
            raise err if isinstance(err, HTTPError) else HTTPError(_describe(err)) from None

    async def _exchange(self, method: str, path: str, body: bytes | None) -> Reply:
        if self.writer is None:
            try:
                self.reader, self.writer = await asyncio.open_connection(
                    self.host, self.port, ssl=self.tls
                )
            except OSError as err:
                raise HTTPError(f"cannot connect: {_describe(err)}") from None
        assert self.reader is not None and self.writer is not None
        try:
            return await self._send(self.reader, self.writer, method, path, body)
        except BaseException:  # cancelled (a time limit) or failed mid-exchange: never reuse
            self.close()
            raise

    async def _send(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        method: str,
        path: str,
        body: bytes | None,
    ) -> Reply:
        head = f"{method} {self.prefix}{path} HTTP/1.1\r\n{self.fixed}"
        if body is not None:
            head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        writer.write(head.encode("latin-1") + b"\r\n" + (body or b""))
        await writer.drain()
        reply, keep = await _read_reply(reader)
        if not keep:
            self.close()
        return reply

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


async def _read_reply(reader: asyncio.StreamReader) -> tuple[Reply, bool]:
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.LimitOverrunError:
        raise HTTPError("reply headers too long") from None
    if len(head) > MAX_HEADER_BYTES:
        raise HTTPError("reply headers too long")
    lines = head.decode("latin-1").split("\r\n")
    status_line = lines[0].split(" ", 2)
    if (
        len(status_line) < 2
        or not status_line[0].startswith("HTTP/1.")
        or not status_line[1].isdigit()
    ):
        raise HTTPError(f"not an HTTP reply: {lines[0][:80]!r}")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if sep:
            headers[name.strip().lower()] = value.strip()
    keep = headers.get("connection", "").lower() != "close" and status_line[0] != "HTTP/1.0"
    if "chunked" in headers.get("transfer-encoding", "").lower():
        body = await _read_chunked(reader)
    elif "content-length" in headers:
        size = int(headers["content-length"])
        if not 0 <= size <= MAX_BODY_BYTES:
            raise HTTPError(f"reply body of {size} bytes refused")
        body = await reader.readexactly(size)
    else:  # delimited by the end of the connection
        body, keep = await reader.read(MAX_BODY_BYTES), False
    return Reply(int(status_line[1]), body), keep


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    out = bytearray()
    while True:
        line = await reader.readuntil(b"\r\n")
        size = int(line.split(b";")[0].strip() or b"0", 16)
        if size == 0:
            await reader.readuntil(b"\r\n")  # trailers end with an empty line
            return bytes(out)
        out += await reader.readexactly(size)
        if len(out) > MAX_BODY_BYTES:
            raise HTTPError("reply body too large")
        await reader.readexactly(2)


_FAILURES = (OSError, EOFError, ValueError, HTTPError)


def _describe(err: BaseException) -> str:
    text = " ".join(str(err).split())
    return f"{type(err).__name__}: {text}" if text else type(err).__name__
