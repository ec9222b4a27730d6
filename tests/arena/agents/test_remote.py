"""``kind: remote`` faults are any agent's faults: a remote agent that hangs, refuses, answers
garbage or dies mid-match is re-asked, falls back and, when it keeps failing, forfeits with a
reason. Real agent servers on 127.0.0.1 throughout."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from arena.agents import factory
from arena.agents.base import Agent
from arena.events import Event
from arena.remote.protocol import StartRequest
from arena.remote.server import AgentServer, ServerThread, free_port, kind_factory
from arena.results import InvalidActionPolicy, MatchResult, MatchSpec
from arena.runner import MatchRunner
from arena.sinks import MemorySink
from arena.types import Action, Decision, Observation

GAME = "dealornodeal"


def play(url: str, policy: InvalidActionPolicy, **params: Any) -> tuple[MatchResult, list[Event]]:
    """Seat 0 remote at ``url``, seat 1 the in-process rule bot."""
    spec = MatchSpec(run_id="r", match_id="m", game=GAME, seed=7, seats=["far", "near"])
    remote = factory.build("far", "remote", GAME, {"url": url, **params})
    runner = MatchRunner(spec, [remote, factory.build("near", "rule", GAME)], policy=policy)
    return runner.play(), runner.recorder.events


def of(events: list[Event], kind: str, seat: int = 0) -> list[dict[str, Any]]:
    return [e.payload for e in events if e.type == kind and e.actor == seat]


@pytest.fixture
def serve() -> Iterator[Callable[..., ServerThread]]:
    threads: list[ServerThread] = []

    def start(make: Callable[[StartRequest], Agent], token: str | None = None) -> ServerThread:
        threads.append(ServerThread(AgentServer(make), token).start())
        return threads[-1]

    yield start
    for t in threads:
        t.stop()


class Hanging(Agent):
    """Never answers until released (the test releases it before the server stops)."""

    released = threading.Event()

    async def act(self, observation: Observation, decision: Decision) -> Action:
        await asyncio.to_thread(self.released.wait, 60)
        return Action(choices=(decision.option_ids[0],))


class Saying(Agent):
    """Answers ``word`` to everything."""

    def __init__(self, word: Any) -> None:
        super().__init__("saying")
        self.word = word

    async def act(self, observation: Observation, decision: Decision) -> Any:
        return self.word


def test_a_hanging_agent_times_out_then_forfeits_with_a_reason(serve: Any) -> None:
    Hanging.released.clear()
    server = serve(lambda start: Hanging())
    try:
        result, events = play(server.url, InvalidActionPolicy(retries=1), timeout_s=0.2)
    finally:
        Hanging.released.set()
    assert result.status == "forfeited"
    assert "failed 3 calls in a row" in (result.reason or "")
    timeouts = [p for p in of(events, "invalid_action") if "no answer within 0.2s" in p["error"]]
    assert len(timeouts) == 3  # two on the first decision (then its fallback), one more
    assert [p["policy"] for p in of(events, "fallback")] == ["fallback_pass", "forfeit"]
    assert result.seats[0].reward == -1.0


def test_a_refused_connection_forfeits_after_max_failures(serve: Any) -> None:
    url = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    result, events = play(url, InvalidActionPolicy(retries=5), max_failures=2)
    assert result.status == "forfeited"
    assert "failed 2 calls in a row" in (result.reason or "")
    assert "cannot connect: ConnectionRefusedError" in (result.reason or "")
    first, last = of(events, "invalid_action")
    assert "RemoteCallError" in first["error"] and "cannot connect" in first["error"]
    assert last["error"] == result.reason.split(": ", 1)[1]  # type: ignore[union-attr]
    assert of(events, "fallback")[0]["policy"] == "forfeit"


def test_an_illegal_answer_is_re_asked_then_falls_back_and_the_match_goes_on(serve: Any) -> None:
    server = serve(lambda start: Saying({"choice": "xyzzy"}))
    result, events = play(server.url, InvalidActionPolicy(retries=1))
    assert result.status == "finished"  # well-formed replies: the transport never failed
    refusals = of(events, "invalid_action")
    assert refusals and all("'xyzzy' is not a legal option" in p["error"] for p in refusals)
    assert result.seats[0].fallbacks == len(of(events, "fallback")) > 0
    assert result.seats[0].invalid == len(refusals) == 2 * result.seats[0].fallbacks


def test_a_reply_that_is_not_the_protocol_counts_as_a_failed_call(serve: Any) -> None:
    import uvicorn
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse, PlainTextResponse
    from starlette.routing import Route

    async def ok(request: Any) -> JSONResponse:
        return JSONResponse({"ok": True})

    async def garbage(request: Any) -> PlainTextResponse:
        return PlainTextResponse("<html>teapot</html>")

    app = Starlette(routes=[Route("/start", ok, methods=["POST"]),
                            Route("/decide", garbage, methods=["POST"])])  # fmt: skip
    port = free_port()
    web = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=web.run, daemon=True)
    thread.start()
    try:
        while not web.started:
            assert thread.is_alive()
            thread.join(0.01)
        result, events = play(f"http://127.0.0.1:{port}", InvalidActionPolicy(retries=4))
    finally:
        web.should_exit = True
        thread.join(10)
    assert result.status == "forfeited"
    assert "malformed reply" in (result.reason or "")
    assert len(of(events, "invalid_action")) == 3  # max_failures 3: the seat gave up


class Killing(MemorySink):
    """Stops the agent server right after seat 0's first decision is recorded: from then on
    every call is refused, as when an agent process dies."""

    def __init__(self, server: ServerThread) -> None:
        super().__init__()
        self.server = server

    def write(self, event: Event) -> None:
        super().write(event)
        if event.type == "decision" and event.actor == 0 and len(of(self.events, "decision")) == 1:
            self.server.stop()


def test_an_agent_that_dies_mid_match_forfeits_after_playing(serve: Any) -> None:
    server = serve(kind_factory("rule"))
    spec = MatchSpec(run_id="r", match_id="m", game=GAME, seed=7, seats=["far", "near"])
    remote = factory.build("far", "remote", GAME, {"url": server.url})
    agents = [remote, factory.build("near", "rule", GAME)]
    sink = Killing(server)
    result = MatchRunner(spec, agents, [sink], InvalidActionPolicy()).play()
    assert result.status == "forfeited"
    assert "failed 3 calls in a row" in (result.reason or "")
    assert len(of(sink.events, "decision")) == 1  # it played until it died
    assert of(sink.events, "fallback")[-1]["policy"] == "forfeit"


def test_the_bearer_token_is_required_and_sent(serve: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    server = serve(kind_factory("rule"), token="s3cret")
    result, _ = play(server.url, InvalidActionPolicy(retries=0))
    assert result.status == "forfeited" and "HTTP 401" in (result.reason or "")
    monkeypatch.setenv("ARENA_TEST_TOKEN", "s3cret")
    result, _ = play(server.url, InvalidActionPolicy(), token_env="ARENA_TEST_TOKEN")
    assert result.status == "finished"
    assert result.seats[0].invalid == 0


def test_an_unset_token_variable_forfeits_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARENA_UNSET_TOKEN", raising=False)
    url = f"http://127.0.0.1:{free_port()}"
    result, events = play(url, InvalidActionPolicy(), token_env="ARENA_UNSET_TOKEN")
    assert result.status == "forfeited"
    assert "ARENA_UNSET_TOKEN is not set" in (result.reason or "")


@pytest.mark.parametrize(
    ("params", "problem"),
    [
        ({"url": "ftp://127.0.0.1:1"}, "not an http(s) URL"),
        ({"url": "http://192.0.2.7:8700"}, "not a loopback address"),
        ({"url": "http://127.0.0.1:1", "timeout": 3}, "timeout"),
        ({}, "url"),
    ],
)
def test_bad_params_are_config_errors(params: dict[str, Any], problem: str) -> None:
    problems = factory.param_problems("remote", GAME, params)
    assert problems and problem in " ".join(problems)


def test_another_host_is_allowed_when_said_so() -> None:
    params = {"url": "https://agents.example.org/x", "allow_remote_host": True}
    assert factory.param_problems("remote", GAME, params) == []
