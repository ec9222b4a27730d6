"""The protocol as docs/remote.md documents it is the protocol on the wire: every request and
reply of real matches over loopback validates against the page's JSON schema; a server speaking
another version, or none, fails the preflight with one line."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from arena import registry
from arena.agents import factory
from arena.remote.client import RemoteCallError, RemoteParams, preflight
from arena.remote.protocol import answer_schema
from arena.remote.server import AgentServer, ServerThread, free_port, kind_factory
from arena.results import MatchSpec
from arena.runner import MatchRunner
from arena.types import Decision, Option

ROOT = Path(__file__).resolve().parents[3]
Tape = list[tuple[str, bytes, bytes]]


def doc_schema() -> dict[str, Any]:
    text = (ROOT / "docs" / "remote.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- remote-schema -->\s*```json\n(.*?)\n```", text, re.S)
    assert block is not None, "docs/remote.md lost its schema block"
    return json.loads(block.group(1))  # type: ignore[no-any-return]


def validator(schema: dict[str, Any], name: str) -> Draft202012Validator:
    return Draft202012Validator({**schema, "$ref": f"#/$defs/{name}"})


def taped(tape: Tape) -> Any:
    """ASGI middleware keeping (path, request body, response body) of every call."""

    def wrap(app: Any) -> Any:
        async def tapped(scope: Any, receive: Any, send: Any) -> None:
            if scope["type"] != "http":
                return await app(scope, receive, send)
            body = bytearray()

            async def recv() -> Any:
                message = await receive()
                body.extend(message.get("body", b""))
                return message

            async def snd(message: Any) -> None:
                if message["type"] == "http.response.body":
                    tape.append((scope["path"], bytes(body), message.get("body", b"")))
                await send(message)

            await app(scope, recv, snd)

        return tapped

    return wrap


@pytest.mark.parametrize(
    ("game", "kind"), [("werewolf", "rule"), ("dealornodeal", "rule"), ("avalon", "rule")]
)
def test_every_message_of_a_match_follows_the_documented_schema(game: str, kind: str) -> None:
    schema = doc_schema()
    tape: Tape = []
    with ServerThread(AgentServer(kind_factory(kind)), wrap=taped(tape)) as server:
        seats = registry.engine_class(game)({}, seed=3).n_seats
        spec = MatchSpec(run_id="r", match_id="m", game=game, seed=3, seats=["a"] * seats)
        agents = [factory.build("a", "remote", game, {"url": server.url}) for _ in range(seats)]
        assert MatchRunner(spec, agents).play().status == "finished"
    names = {"/start": "Start", "/decide": "Decide", "/end": "End"}
    seen = set()
    for path, request, reply in tape:
        name = names[path]
        seen.add(name)
        validator(schema, f"{name}Request").validate(json.loads(request))
        validator(schema, f"{name}Reply").validate(json.loads(reply))
    assert seen == {"Start", "Decide", "End"}


def test_the_answer_schema_of_a_decision_accepts_what_the_decision_accepts() -> None:
    decision = Decision(
        kind="pick", options=[Option(id="a"), Option(id="b"), Option(id="c")],
        min_choices=1, max_choices=2, free_text=True, max_chars=10,
    )  # fmt: skip
    check = Draft202012Validator(answer_schema(decision))
    for good in ("a", {"choice": ["a", "c"]}, {"text": "hi"}):
        check.validate(good)
        decision.parse(good, 0)
    for bad in ("z", {"choice": ["a", "b", "c"]}, {"text": "far too long a line"}):
        assert not check.is_valid(bad)


def info_server(body: dict[str, Any]) -> ServerThread:
    class Speaking(AgentServer):
        def info(self) -> dict[str, Any]:
            return body

    return ServerThread(Speaking(kind_factory("rule")))


def check(url: str) -> str:
    return asyncio.run(preflight(RemoteParams(url=url)))


def test_preflight_names_the_agent_and_its_version() -> None:
    with info_server({"protocol": 1, "name": "mine"}) as server:
        assert check(server.url) == f"remote agent (mine) at {server.url}, protocol 1"


def test_preflight_refuses_another_protocol_version() -> None:
    with info_server({"protocol": 2}) as server, pytest.raises(RemoteCallError) as err:
        check(server.url)
    assert "speaks remote agent protocol 2; this arena speaks 1" in str(err.value)


def test_preflight_refuses_what_is_not_an_agent_server() -> None:
    with info_server({"hello": "world"}) as server, pytest.raises(RemoteCallError) as err:
        check(server.url)
    assert "malformed reply (protocol: Field required)" in str(err.value)


def test_preflight_says_when_nothing_listens() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(RemoteCallError) as err:
        check(url)
    assert str(err.value).startswith(f"{url}/info: cannot connect: ConnectionRefusedError")
