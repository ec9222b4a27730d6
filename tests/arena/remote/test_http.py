"""The remote protocol's HTTP client against real sockets on 127.0.0.1: the reply framings a
third-party server may use, a kept-alive connection the server closed, a request cancelled at
its time limit (its late reply must never be read as the next one's), and non-HTTP replies."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest

from arena.remote.http import Connection, HTTPError

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


async def with_server(handler: Handler, talk: Callable[[Connection], Awaitable[None]]) -> None:
    server = await asyncio.start_server(handler, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    conn = Connection(f"http://127.0.0.1:{port}", {"Authorization": "Bearer x"}, None)
    try:
        await talk(conn)
    finally:
        conn.close()
        server.close()


async def read_request(reader: asyncio.StreamReader) -> bytes:
    head = await reader.readuntil(b"\r\n\r\n")
    size = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            size = int(line.split(b":")[1])
    return head + await reader.readexactly(size)


def serving(*replies: bytes, close_after: bool = False) -> Handler:
    """Answers each request on a connection with the next reply."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        for reply in replies:
            try:
                await read_request(reader)
            except asyncio.IncompleteReadError:
                break
            writer.write(reply)
            await writer.drain()
        if close_after:
            writer.close()

    return handle


def test_content_length_chunked_and_close_delimited_replies() -> None:
    replies = (
        b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}",
        b'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n{"a\r\n4\r\n":1}\r\n0\r\n\r\n',
        b"HTTP/1.0 201 Created\r\n\r\n[1]",
    )

    async def talk(conn: Connection) -> None:
        assert (await conn.request("POST", "/x", b"{}")).body == b"{}"
        assert (await conn.request("GET", "/y")).body == b'{"a":1}'
        reply = await conn.request("GET", "/z")
        assert (reply.status, reply.body) == (201, b"[1]")

    asyncio.run(with_server(serving(*replies, close_after=True), talk))


def test_a_kept_alive_connection_the_server_closed_is_reopened_once() -> None:
    ok = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"

    async def talk(conn: Connection) -> None:
        assert (await conn.request("GET", "/a")).body == b"ok"
        assert (await conn.request("GET", "/b")).body == b"ok"  # on a new connection

    asyncio.run(with_server(serving(ok, close_after=True), talk))


def test_a_cancelled_request_never_leaves_its_reply_for_the_next() -> None:
    served = []
    fast = asyncio.Event()  # /slow is answered only after /fast was asked: always too late

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            try:
                request = await read_request(reader)
            except asyncio.IncompleteReadError:
                return
            served.append(request.split(b" ")[1])
            if request.startswith(b"GET /slow"):
                await fast.wait()  # then answers, late, on the connection it came on
            else:
                fast.set()
            body = request.split(b" ")[1]
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
            try:
                await writer.drain()
            except ConnectionError:
                return

    async def talk(conn: Connection) -> None:
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.05):
                await conn.request("GET", "/slow")
        async with asyncio.timeout(30):  # a reused connection would wait behind /slow
            assert (await conn.request("GET", "/fast")).body == b"/fast"

    asyncio.run(with_server(handle, talk))
    assert served == [b"/slow", b"/fast"]


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        (b"SSH-2.0-OpenSSH\r\n\r\n", "not an HTTP reply"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n", "ValueError"),
    ],
)
def test_what_is_not_http_is_one_error(reply: bytes, problem: str) -> None:
    async def talk(conn: Connection) -> None:
        with pytest.raises(HTTPError, match=problem):
            await conn.request("GET", "/")

    asyncio.run(with_server(serving(reply), talk))


def test_nothing_listening_is_cannot_connect() -> None:
    async def talk(conn: Connection) -> None:
        conn.port = 1  # a privileged port nothing listens on here
        with pytest.raises(HTTPError, match="cannot connect"):
            await conn.request("GET", "/")

    asyncio.run(with_server(serving(), talk))
