"""``kind: human``: a seat played by a person at a terminal UI.

The agent side only: :class:`HumanAgent` turns every ``act()`` into a :class:`HumanRequest` on a
:class:`HumanDesk` (an asyncio queue shared by the runner and a UI on the same event loop) and
awaits the answer. The UI (``tui/play*.py``) takes requests off the desk, shows the seat its own
observation and decision, and resolves the request's future. ``arena`` never imports the UI.

A person has a time limit of their own (``timeout_s``, none by default), never the tournament
policy's ``timeout_s``: that one is sized for programs, and a person who reads the table for a
minute is not a hung bot. When a person's own limit passes, the runner cancels ``act()``; the
request is withdrawn from the desk (the UI is told, so it stops offering the decision) and the
runner records the refusal and, after the policy's retries, its fallback.

A run finds its desk through :func:`using_desk` (a context variable set around the run by the
command that owns the terminal); an agent built with no desk in reach cannot start a match
(:class:`NoHumanDesk`): a human seat needs someone to play it.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from arena.agents.base import Agent, MatchContext
from arena.types import Action, Decision, Observation

Answer = Action | str | dict[str, Any]
DeskChange = Literal["asked", "withdrawn", "answered", "joined", "left"]

HUMAN_KIND = "human"

NO_DESK = (
    "a human seat needs a terminal UI to be played from: use `arena play CONFIG --seat N` "
    "or `arena run CONFIG --tui` in a terminal"
)


class NoHumanDesk(RuntimeError):
    """A human seat was asked to play with no UI to play it from."""


@dataclass(eq=False)
class HumanRequest:
    """One pending decision of a human seat: what the seat sees and the answer to give."""

    match_id: str
    seat: int
    name: str
    observation: Observation
    decision: Decision
    answer: asyncio.Future[Answer]
    asked_at: float = field(default_factory=time.monotonic)
    timeout_s: float | None = None  # the seat's own time per decision (None: no limit)

    @property
    def key(self) -> tuple[str, int]:
        """Who is asked: (match, seat). A change of key is a change of player at the keyboard."""
        return (self.match_id, self.seat)

    @property
    def open(self) -> bool:
        """Still waiting for an answer (neither answered nor withdrawn)."""
        return not self.answer.done()

    @property
    def withdrawn(self) -> bool:
        """The runner stopped waiting (timeout or the match was cancelled)."""
        return self.answer.cancelled()

    def give(self, answer: Answer) -> bool:
        """Answer the request; False when it was already answered or withdrawn."""
        if self.answer.done():
            return False
        self.answer.set_result(answer)
        return True


Listener = Callable[[DeskChange, HumanRequest | None], None]


class HumanDesk:
    """Where human seats' decisions wait for a UI: a queue of :class:`HumanRequest`.

    ``joined`` holds the (match, seat) of every human seat of a match in progress; more than
    one means several people share the keyboard (hot-seat). Listeners are told of every
    change (on the event loop's thread; a listener must not block)."""

    def __init__(self) -> None:
        self._queue: asyncio.Queue[HumanRequest] = asyncio.Queue()
        self.joined: dict[tuple[str, int], str] = {}
        self._listeners: list[Listener] = []

    def subscribe(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def _tell(self, change: DeskChange, request: HumanRequest | None = None) -> None:
        for listener in list(self._listeners):
            listener(change, request)

    def join(self, match_id: str, seat: int, name: str) -> None:
        self.joined[(match_id, seat)] = name
        self._tell("joined")

    def leave(self, match_id: str, seat: int) -> None:
        self.joined.pop((match_id, seat), None)
        self._tell("left")

    @property
    def hot_seat(self) -> bool:
        """Whether more than one human seat is in play: each switch must hide the last view."""
        return len(self.joined) > 1

    async def ask(
        self,
        match_id: str,
        seat: int,
        name: str,
        observation: Observation,
        decision: Decision,
        timeout_s: float | None = None,
    ) -> Answer:
        """Queue a request and wait for its answer; cancelling the wait withdraws it.
        ``timeout_s`` is only shown (the runner keeps the time)."""
        future: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        request = HumanRequest(
            match_id, seat, name, observation, decision, future, timeout_s=timeout_s
        )
        self._queue.put_nowait(request)
        self._tell("asked", request)
        try:
            answer = await future
        except asyncio.CancelledError:
            future.cancel()  # the UI sees it withdrawn, whatever cancelled the wait
            self._tell("withdrawn", request)
            raise
        self._tell("answered", request)
        return answer

    async def next_request(self) -> HumanRequest:
        """The oldest request still open (withdrawn ones are dropped)."""
        while True:
            request = await self._queue.get()
            if request.open:
                return request


_DESK: contextvars.ContextVar[HumanDesk | None] = contextvars.ContextVar(
    "arena_human_desk", default=None
)


def current_desk() -> HumanDesk | None:
    """The desk of the run in this context (None: no UI serves human seats here)."""
    return _DESK.get()


@contextlib.contextmanager
def using_desk(desk: HumanDesk) -> Iterator[HumanDesk]:
    """Human seats of matches started in this context (and tasks it spawns) use ``desk``."""
    token = _DESK.set(desk)
    try:
        yield desk
    finally:
        _DESK.reset(token)


class HumanAgent(Agent):
    """A seat played by a person: every decision goes to the desk's UI and waits there.

    ``timeout_s``: the person's seconds per decision (None, the default: as long as they
    need); the tournament policy's ``timeout_s`` does not apply to this seat."""

    kind = HUMAN_KIND

    def __init__(
        self, name: str | None = None, timeout_s: float | None = None, **params: Any
    ) -> None:
        super().__init__(name, **params)
        if timeout_s is not None:
            if isinstance(timeout_s, bool) or not isinstance(timeout_s, (int, float)):
                raise ValueError(f"timeout_s: seconds (a number) or null, not {timeout_s!r}")
            if timeout_s <= 0:
                raise ValueError(f"timeout_s: seconds > 0, not {timeout_s}")
        self.timeout_s = None if timeout_s is None else float(timeout_s)
        self.desk: HumanDesk | None = None
        self._joined: tuple[str, int] | None = None

    def time_limit(self, policy_timeout_s: float | None) -> float | None:
        """The person's own limit; the policy's (sized for programs) never applies."""
        return self.timeout_s

    def attach(self, desk: HumanDesk) -> HumanAgent:
        """Play from ``desk`` (otherwise the run's desk, :func:`current_desk`)."""
        self.desk = desk
        return self

    def reset(self, context: MatchContext) -> None:
        super().reset(context)
        desk = self.desk or current_desk()
        if desk is None:
            raise NoHumanDesk(NO_DESK)
        self.desk = desk
        self._joined = (context.match_id, context.seat)
        desk.join(context.match_id, context.seat, context.name)

    async def act(self, observation: Observation, decision: Decision) -> Answer:
        if self.desk is None or self.context is None:
            raise NoHumanDesk(NO_DESK)
        ctx = self.context
        return await self.desk.ask(
            ctx.match_id, ctx.seat, ctx.name, observation, decision, timeout_s=self.timeout_s
        )

    async def close(self) -> None:
        if self.desk is not None and self._joined is not None:
            self.desk.leave(*self._joined)
            self._joined = None


def human_entry_names(entries: list[Any]) -> list[str]:
    """The names of the config entries (anything with ``name`` and ``kind``) played by people."""
    return [e.name for e in entries if e.kind == HUMAN_KIND]
