"""``kind: remote``: a seat played by an agent process over HTTP (docs/remote.md).

Per decision the agent POSTs the seat's view — exactly what an in-process agent receives — and
returns the answer, which the runner parses and checks like any other. Its faults are any
agent's faults: a call that fails (refused, timed out, a malformed reply) is a refused answer,
re-asked and then the policy's fallback, recorded as ``invalid_action`` and ``fallback`` events;
``max_failures`` failed calls in a row and the seat forfeits with the last one as the reason.
"""

from __future__ import annotations

import uuid
from typing import Any

from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from arena.agents.base import Agent, AgentForfeit, MatchContext
from arena.agents.params import as_written
from arena.remote.client import Link, RemoteCallError, RemoteParams
from arena.remote.protocol import (
    DecideReply,
    EndReply,
    StartReply,
    answer_schema,
    decision_json,
)
from arena.types import Action, Decision, Observation


class RemoteAgent(Agent):
    kind = "remote"

    Params = RemoteParams

    @classmethod
    def from_params(cls, name: str, params: BaseModel) -> RemoteAgent:
        if not isinstance(params, RemoteParams):
            raise TypeError(f"{name}: remote params must be RemoteParams, not {type(params)}")
        return cls(name, config=params)

    def __init__(
        self, name: str | None = None, config: RemoteParams | None = None, **params: Any
    ) -> None:
        # ``config``: params already typed (a checked config's entry); else the keywords
        self.config = config if config is not None else RemoteParams.model_validate(params)
        super().__init__(name, **(params if config is None else as_written(config)))
        self.failures = 0  # failed calls in a row
        self._last = ""  # what the last failed call said (the forfeit's reason names it)
        self._link: Link | None = None
        self._session: str | None = None
        self._wants_text = True
        self._acked = 0  # events of the seat's view the server has acknowledged
        self._limit: float | None = self.config.timeout_s

    # -- the agent contract ----------------------------------------------------------------
    def reset(self, context: MatchContext) -> None:
        super().reset(context)
        self._session = None
        self._acked = 0
        self.failures = 0
        self._last = ""

    def time_limit(self, policy_timeout_s: float | None) -> float | None:
        """The smaller of this entry's ``timeout_s`` and the policy's; also the deadline sent."""
        limits = [t for t in (self.config.timeout_s, policy_timeout_s) if t is not None]
        self._limit = min(limits) if limits else None
        return self._limit

    def mark_timed_out(self, error: str = "") -> None:
        """The runner cancelled a call at the time limit: a failed call like any other, so
        the one that reaches ``max_failures`` forfeits here (AgentForfeit), saying why."""
        self.failures += 1
        self._last = error or "no answer in time"
        self._check_alive()

    async def act(
        self, observation: Observation, decision: Decision
    ) -> Action | str | dict[str, Any]:
        self._check_alive()
        if self._session is None:
            await self._start()
        body = {
            "protocol": 1,
            "session": self._session,
            "match_id": observation.match_id,
            "seat": observation.seat,
            "deadline_s": self._limit,
            "observation": self._view(observation),
            "decision": decision_json(decision),
            "answer_schema": answer_schema(decision),
        }
        reply = await self._call("/decide", body, DecideReply)
        self._acked = len(observation.events)
        if reply.meta is None:
            return reply.answer  # type: ignore[no-any-return]
        action = decision.parse(reply.answer, observation.seat)
        return action.model_copy(update={"meta": reply.meta})

    async def match_over(self, observation: Observation, outcome: dict[str, Any]) -> None:
        if self._session is None or self.failures >= self.config.max_failures:
            return  # never started (no decision), or gone: nothing to tell
        body = {
            "protocol": 1,
            "session": self._session,
            "match_id": observation.match_id,
            "seat": observation.seat,
            "outcome": outcome,
            "observation": self._view(observation),
        }
        await self._call("/end", body, EndReply)

    async def close(self) -> None:
        if self._link is not None:
            link, self._link = self._link, None
            await link.close()

    # -- the calls -------------------------------------------------------------------------
    async def _start(self) -> None:
        context = self.context
        if context is None:
            raise RuntimeError("remote agent asked to act before reset()")
        session = uuid.uuid4().hex
        body = {"protocol": 1, "session": session, "agent": self.name}
        body.update(context.model_dump(mode="json"))
        reply = await self._call("/start", body, StartReply)
        self._session, self._wants_text, self._acked = session, reply.text, 0

    async def _call(self, path: str, body: dict[str, Any], reply: type[Any]) -> Any:
        if self._link is None:
            try:
                self._link = Link(self.config)
            except ValueError as err:  # the token's variable is unset: nothing will work
                raise AgentForfeit(str(err)) from None
        try:
            out = await self._link.call(path, body, reply, self._limit)
        except RemoteCallError as err:
            self.failures += 1
            self._last = str(err)
            self._check_alive()
            raise
        self.failures = 0
        return out

    def _check_alive(self) -> None:
        if self.failures >= self.config.max_failures:
            why = f"; last: {self._last}" if self._last else ""
            raise AgentForfeit(
                f"remote agent at {self.config.url} failed {self.failures} calls in a row{why}"
            )

    def _view(self, obs: Observation) -> dict[str, Any]:
        """The seat's observation as the protocol sends it: the events not yet acknowledged."""
        events = obs.events[self._acked :]
        return {
            "phase": obs.phase,
            "text": obs.text if self._wants_text else None,
            "events_from": self._acked,
            "events": [e.model_dump(mode="json") for e in events],
            "private": [f.model_dump(mode="json") for f in obs.private],
            "state": to_jsonable_python(obs.state),
            "error": obs.error,
        }


__all__ = ["RemoteAgent"]
