"""Re-parse replay: the current answer parser over every stored raw reply of a match record.

A match record keeps each LLM call's reply (``llm_call`` events, god-only) and what the runner
made of the decision: refusals (``invalid_action``), a ``fallback``, and the settled
``decision`` with the decision the seat was shown. Calls are written when their decision
settles, so a seat's calls since its last settled decision are the attempts at that decision,
in order; the last one was accepted unless a fallback settled the decision, every other one
was refused.

:func:`replay` runs today's parser (:func:`arena.llm.parse.interpret`, then
:meth:`arena.types.Decision.parse`) over those replies and reports each call's old and new
verdict. It reads only. Calls without a reply (transport errors, timeouts), ranked answers
(the local backend's likelihood ranking, no text to parse) and replies the agent refused for
copying its prompt are not parser verdicts and are skipped. A reply the parser now accepts
could still have been refused by the game's rules at that moment; only a replay of the match
would tell, so the counts say *parses*, not *would have been played*. An accepted reply that
today's parser reads as another move (prose taken as a message, where the fenced JSON inside
it chose an offer) is counted as *read differently*.
"""

from __future__ import annotations

import hashlib
import inspect
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from arena import types as arena_types
from arena.events import Event
from arena.llm import parse as llm_parse
from arena.types import Decision, InvalidAction

Parser = Callable[[str, Decision], Any]


def parser_id() -> str:
    """A hash of the parser's source: which parser a stored re-parse used."""
    text = inspect.getsource(llm_parse) + inspect.getsource(arena_types)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


@dataclass
class Verdict:
    match_id: str
    seat: int
    agent: str
    attempt: int
    was_ok: bool
    now_ok: bool
    fallback: bool  # the decision was settled by a fallback
    decision: int = 0  # the seat's decision number in the match
    error: str | None = None
    read_differently: bool = False  # accepted then and now, but read as another move

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class _Group:
    number: int = 0  # the seat's decision number
    calls: list[dict[str, Any]] = field(default_factory=list)
    fallback: bool = False


def _parses(
    reply: str, decision: Decision, seat: int, interpret: Parser
) -> tuple[str | None, dict[str, Any] | None]:
    """(None, the move) when ``reply`` parses into a legal answer for ``decision``, else
    (why not, None)."""
    try:
        action = decision.parse(interpret(reply, decision), seat)
    except InvalidAction as err:
        return str(err), None
    return None, action.summary()


def _judged(call: dict[str, Any]) -> bool:
    """A call whose reply the parser judged (text came back, no ranking, no copy refusal)."""
    return (
        call.get("status") == "ok"
        and isinstance(call.get("reply"), str)
        and not call.get("ranked")
        and not call.get("refused")
    )


def _verdicts(
    match_id: str,
    seat: int,
    agent: str,
    group: _Group,
    decision: Decision,
    played: Any,
    interpret: Parser,
) -> list[Verdict]:
    out = []
    last = len(group.calls) - 1
    for i, call in enumerate(group.calls):
        if not _judged(call):
            continue
        why, move = _parses(call["reply"], decision, seat, interpret)
        was_ok = i == last and not group.fallback
        out.append(
            Verdict(
                match_id=match_id,
                seat=seat,
                agent=agent,
                attempt=int(call.get("attempt", i)),
                was_ok=was_ok,
                now_ok=why is None,
                read_differently=was_ok and move is not None and move != played,
                fallback=group.fallback,
                decision=group.number,
                error=why,
            )
        )
    return out


def replay(
    match_id: str,
    events: Iterable[Event],
    agents: dict[int, str],
    interpret: Parser = llm_parse.interpret,
) -> list[Verdict]:
    """Every judged call of one match record: its old verdict and today's parser's."""
    groups: dict[int, _Group] = {}
    out: list[Verdict] = []
    for event in events:
        seat = event.actor
        if seat is None:
            continue
        group = groups.setdefault(seat, _Group())
        if event.type == "llm_call":
            group.calls.append(event.payload)
        elif event.type == "fallback":
            group.fallback = True
        elif event.type == "decision":
            shown = event.payload.get("shown") or {}
            if shown.get("decision") is not None and group.calls:
                decision = Decision.model_validate(shown["decision"])
                agent = agents.get(seat, str(seat))
                played = event.payload.get("action")
                out += _verdicts(match_id, seat, agent, group, decision, played, interpret)
            groups[seat] = _Group(number=group.number + 1)
    return out


def summary(verdicts: Iterable[Verdict]) -> dict[str, dict[str, int]]:
    """Per agent entry: calls judged, refused calls that now parse, accepted calls now refused
    or read as another move, and decisions settled by a fallback that a reply would now have
    settled."""
    out: dict[str, dict[str, int]] = {}
    recovered: set[tuple[str, int, str, int]] = set()
    for v in verdicts:
        s = out.setdefault(
            v.agent,
            {"calls": 0, "refused_now_parse": 0, "accepted_now_refused": 0,
             "read_differently": 0, "fallbacks_recovered": 0},
        )  # fmt: skip
        s["calls"] += 1
        if not v.was_ok and v.now_ok:
            s["refused_now_parse"] += 1
        if v.was_ok and not v.now_ok:
            s["accepted_now_refused"] += 1
        s["read_differently"] += v.read_differently
        if v.fallback and v.now_ok:
            recovered.add((v.match_id, v.seat, v.agent, v.decision))
    for _, _, agent, _ in recovered:
        out[agent]["fallbacks_recovered"] += 1
    return out
