"""The reference agent server: any object with the agent interface, served over HTTP.

    from arena.remote.server import serve
    serve(lambda start: MyAgent(), port=8700)

Each ``/start`` builds a fresh agent for one seat of one match (``factory(start)``), resets
it with the match context, and keeps it until ``/end``. ``/decide`` rebuilds the seat's
observation and decision from the request — the same objects an in-process agent gets — and
returns the agent's answer. An agent that raises answers HTTP 500 (the runner re-asks).
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ValidationError

from arena.agents.base import Agent, HearsMatchEnd, MatchContext
from arena.events import Event
from arena.remote.protocol import (
    PROTOCOL_VERSION,
    DecideRequest,
    EndRequest,
    StartRequest,
    View,
)
from arena.types import Action, Decision, Observation, PrivateFact

AgentFactory = Callable[[StartRequest], Agent]


@dataclass
class Session:
    """One seat of one match: its agent and the events of its view received so far."""

    start: StartRequest
    agent: Agent
    events: list[Event] = field(default_factory=list)


def observation(session: Session, view: View) -> Observation:
    """The seat's observation from a request's view (the events appended to the session's)."""
    start = session.start
    if view.events_from > len(session.events):
        raise ValueError(f"events_from {view.events_from} past the {len(session.events)} received")
    del session.events[view.events_from :]
    session.events.extend(Event.model_validate(e) for e in view.events)
    return Observation(
        text=view.text or "",
        game=start.game,
        match_id=start.match_id,
        seat=start.seat,
        name=start.name,
        phase=view.phase,
        names=start.names,
        events=list(session.events),
        private=[PrivateFact.model_validate(f) for f in view.private],
        state=view.state,
        error=view.error,
    )


def answer_json(answer: Action | str | int | dict[str, Any]) -> dict[str, Any]:
    """An agent's answer as a ``/decide`` reply."""
    if not isinstance(answer, Action):
        return {"answer": answer}
    out: dict[str, Any] = {}
    if answer.choices:
        out["choice"] = list(answer.choices)
    if answer.text is not None:
        out["text"] = answer.text
    if answer.belief is not None:
        out["belief"] = answer.belief
    reply: dict[str, Any] = {"answer": out}
    if answer.meta:
        reply["meta"] = answer.meta
    return reply


class AgentServer:
    """The protocol's state machine, independent of the HTTP framework (easy to test)."""

    def __init__(self, factory: AgentFactory, name: str = "", text: bool = True) -> None:
        self.factory, self.name, self.text = factory, name, text
        self.sessions: dict[str, Session] = {}

    def info(self) -> dict[str, Any]:
        return {"protocol": PROTOCOL_VERSION, "name": self.name}

    def start(self, req: StartRequest) -> dict[str, Any]:
        agent = self.factory(req)
        context = MatchContext(
            game=req.game, match_id=req.match_id, seat=req.seat, name=req.name,
            names=req.names, seed=req.seed, team_seed=req.team_seed, rules=req.rules,
            briefing=req.briefing,
        )  # fmt: skip
        agent.reset(context)
        self.sessions[req.session] = Session(req, agent)
        return {"ok": True, "text": self.text}

    async def decide(self, req: DecideRequest) -> dict[str, Any]:
        session = self._session(req.session)
        obs = observation(session, req.observation)
        decision = Decision.model_validate(req.decision)
        return answer_json(await session.agent.act(obs, decision))

    async def end(self, req: EndRequest) -> dict[str, Any]:
        session = self.sessions.pop(req.session, None)
        if session is None:
            raise KeyError(req.session)
        try:
            if isinstance(session.agent, HearsMatchEnd):
                obs = observation(session, req.observation)
                await session.agent.match_over(obs, req.outcome.model_dump(mode="json"))
        finally:
            await session.agent.close()
        return {"ok": True}

    def _session(self, key: str) -> Session:
        session = self.sessions.get(key)
        if session is None:
            raise KeyError(key)
        return session


def make_app(server: AgentServer, token: str | None = None) -> Any:
    """A Starlette app speaking the protocol for ``server``."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route

    def error(status: int, message: str) -> Response:
        return JSONResponse({"error": message}, status_code=status)

    def handler(model: type[BaseModel] | None, call: Callable[[Any], Any]) -> Any:
        async def endpoint(request: Request) -> Response:
            if token is not None and request.headers.get("authorization") != f"Bearer {token}":
                return error(401, "missing or wrong bearer token")
            try:
                body = None if model is None else model.model_validate_json(await request.body())
            except ValidationError as err:
                return error(400, f"malformed request: {err.errors()[0]['msg']}")
            if body is not None and getattr(body, "protocol", PROTOCOL_VERSION) != PROTOCOL_VERSION:
                return error(400, f"this agent speaks protocol {PROTOCOL_VERSION}")
            try:
                out = call(body)
                if asyncio.iscoroutine(out):
                    out = await out
            except KeyError:
                return error(404, "unknown session (no /start for it, or already ended)")
            except Exception as err:  # the agent's bug: the runner re-asks, then falls back
                return error(500, f"agent raised {type(err).__name__}: {err}")
            return Response(json.dumps(out), media_type="application/json")

        return endpoint

    routes = [
        Route("/info", handler(None, lambda _: server.info()), methods=["GET"]),
        Route("/start", handler(StartRequest, server.start), methods=["POST"]),
        Route("/decide", handler(DecideRequest, server.decide), methods=["POST"]),
        Route("/end", handler(EndRequest, server.end), methods=["POST"]),
    ]
    return Starlette(routes=routes)


def kind_factory(kind: str, params: dict[str, Any] | None = None) -> AgentFactory:
    """A factory of built-in agents of ``kind`` (``random``, ``rule``, ``werewolf.rule``,
    ``llm``, ...), resolved for each match's game: what ``arena serve-agent KIND`` serves."""
    from arena.agents import factory

    def build(start: StartRequest) -> Agent:
        return factory.build(start.agent or kind, kind, start.game, dict(params or {}))

    return build


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


class ServerThread:
    """The app in a background thread on a loopback port (tests, benchmarks, the gauntlet)."""

    def __init__(self, server: AgentServer, token: str | None = None,
                 host: str = "127.0.0.1", port: int | None = None,
                 wrap: Callable[[Any], Any] | None = None) -> None:  # fmt: skip
        import uvicorn

        self.agents, self.host = server, host
        self.port = port or free_port(host)
        app = make_app(server, token)
        if wrap is not None:  # ASGI middleware (tests tap the wire with it)
            app = wrap(app)
        config = uvicorn.Config(app, host=host, port=self.port, log_level="warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self, timeout: float = 60.0) -> ServerThread:
        self.thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the agent server did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)

    def __enter__(self) -> ServerThread:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def serve(factory: AgentFactory, host: str = "127.0.0.1", port: int = 8700,
          token: str | None = None, name: str = "", text: bool = True) -> None:  # fmt: skip
    """Serve agents built by ``factory`` until interrupted."""
    import uvicorn

    app = make_app(AgentServer(factory, name, text), token)
    uvicorn.run(app, host=host, port=port, log_level="warning")
