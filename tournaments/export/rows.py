"""One row per applied seat decision, read from a match's event record (its JSONL).

A row holds only what its seat saw or did: its own observation (rebuilt exactly from the
decision record's ``shown`` part and the events delivered to the seat, see
:meth:`arena.runner.MatchRunner._shown_record`), its own LLM prompt and reply, its answer and
the applied action, its refusals and fallback, its facts as it knew them at the time, its own
role, result and reward, and the public outcome. The god view (``god=True``) adds the match
seed, the ground truth of every seat and the spectator transcript up to the decision.

The records of a decision come in this order in the JSONL: ``invalid_action`` events of its
re-asks, its ``llm_call`` events, a ``fallback`` event when the policy answered, then the
``decision`` event itself; so per seat the pending ones are gathered until its next decision.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from arena import transcript
from arena.engine import compose_view
from arena.events import Event
from arena.facts import GROUND_TRUTH_EVENT, Knowledge
from arena.results import MatchResult, SeatResult
from arena.types import Decision


@dataclass(frozen=True)
class RowFilter:
    """Which rows an export keeps (``None``: any)."""

    agent: str | None = None
    role: str | None = None
    outcome: str | None = None  # the seat's result: win | loss | draw | none
    seat: int | None = None

    def keeps_seat(self, seat: SeatResult) -> bool:
        return (
            (self.agent is None or seat.agent == self.agent)
            and (self.role is None or seat.role == self.role)
            and (self.outcome is None or seat.result == self.outcome)
            and (self.seat is None or seat.seat == self.seat)
        )


@dataclass
class _SeatState:
    """What one seat was shown so far, and what is pending until its next decision record."""

    briefing: str = ""
    delivered: list[int] = field(default_factory=list)  # seqs of the events it received
    lines: list[tuple[int, str]] = field(default_factory=list)  # (seq, its transcript line)
    invalid: list[str] = field(default_factory=list)
    calls: list[dict[str, Any]] = field(default_factory=list)
    fallback: dict[str, Any] | None = None
    memory: dict[str, Any] | None = None
    step: int = 0


def _observation(state: _SeatState, shown: dict[str, Any] | None) -> str | None:
    """The exact text the seat was shown; ``None`` when the record cannot say (records written
    before ``shown`` existed, or a record whose events do not add up to what it says)."""
    if shown is None:
        return None
    last = int(shown.get("last_seq", -1))
    if bisect.bisect_right(state.delivered, last) != int(shown.get("seen", -1)):
        return None
    lines = [text for seq, text in state.lines if seq <= last]
    decision = Decision.model_validate(shown["decision"])
    return compose_view(
        state.briefing,
        "\n".join(lines),
        decision.describe(),
        shown.get("error"),
        shown.get("status", ""),
    )


def _call_columns(calls: list[dict[str, Any]]) -> dict[str, Any]:
    """The decision's LLM calls: the last one's prompt, reply and model; sums over all."""
    last = calls[-1] if calls else {}
    messages = last.get("messages")
    prompt = (
        [{"role": str(m["role"]), "content": str(m["content"])} for m in messages]
        if messages
        else None
    )
    return {
        "llm_calls": len(calls),
        "model": last.get("model"),
        "prompt": prompt,
        "answer": last.get("reply"),
        "tokens_in": sum(int(c.get("tokens_in", 0)) for c in calls),
        "tokens_out": sum(int(c.get("tokens_out", 0)) for c in calls),
        "latency_s": round(sum(float(c.get("latency_s", 0.0)) for c in calls), 6),
        "cost_usd": round(sum(float(c.get("cost_usd", 0.0)) for c in calls), 8),
        "llm_status": last.get("status"),
    }


def _facts(
    knowledge: Knowledge, seat: int, seq: int, cache: dict[int, dict[str, Any]]
) -> list[dict[str, Any]]:
    """The facts the seat knew at ``seq`` (its own, those it was told, public ones).

    ``cache`` maps a recorded fact (the same dict for every row of the match until the fact
    changes) to its column form, so each is converted once."""
    out = []
    for f in knowledge.known_by(seat, seq):
        column = cache.get(id(f))
        if column is None:
            column = cache[id(f)] = {
                "owner": int(f["owner"]),
                "kind": str(f["kind"]),
                "key": str(f["key"]),
                "value": json.dumps(f.get("value"), default=str),
                "public": bool(f.get("public")),
            }
        out.append(column)
    return out


def _row(
    e: Event,
    result: MatchResult,
    seat: SeatResult,
    st: _SeatState,
    knowledge: Knowledge,
    decision_index: int,
    facts: dict[int, dict[str, Any]],
) -> dict[str, Any]:
    shown = e.payload.get("shown")
    if isinstance(shown, dict) and "briefing" in shown:
        st.briefing = str(shown["briefing"])
    shown = shown if isinstance(shown, dict) else None
    decision = shown.get("decision", {}) if shown else {}
    action = e.payload.get("action") or {}
    memory = st.memory or {}
    policy = (st.fallback or {}).get("policy") or action.get("fallback")
    return {
        "run_id": result.run_id,
        "match_id": result.match_id,
        "game": result.game,
        "match_index": result.index,
        "repeat": result.repeat,
        "step": e.seq,
        "decision_index": decision_index,
        "seat_step": st.step,
        "seat": seat.seat,
        "name": seat.name,
        "agent": seat.agent,
        "role": seat.role,
        "team": seat.team,
        "phase": e.phase,
        "decision_kind": str(e.payload.get("kind", "")),
        "observation": _observation(st, shown),
        "options": [
            {"id": str(o["id"]), "label": str(o.get("label", ""))}
            for o in decision.get("options", [])
        ],
        "min_choices": int(decision.get("min_choices", 1)),
        "max_choices": int(decision.get("max_choices", 1)),
        "free_text": bool(decision.get("free_text", False)),
        "known_facts": _facts(knowledge, seat.seat, e.seq, facts),
        **_call_columns(st.calls),
        "action": json.dumps(action, sort_keys=True),
        "action_choices": [str(c) for c in action.get("choices", [])],
        "action_text": action.get("text"),
        "invalid": len(st.invalid),
        "invalid_errors": list(st.invalid),
        "fallback": policy is not None,
        "fallback_policy": policy,
        "memory_version": memory.get("version"),
        "memory_insights": [str(i) for i in memory.get("ids", [])],
        "match_status": result.status,
        "outcome": result.outcome,
        "result": seat.result,
        "reward": float(seat.reward),
    }


def _god_columns(
    result: MatchResult, truth: dict[str, Any], spectator: list[str]
) -> dict[str, Any]:
    return {
        "seed": result.seed,
        "ground_truth": json.dumps(truth, sort_keys=True, default=str),
        "spectator_view": "\n".join(spectator),
    }


def match_rows(
    events: Iterable[Event],
    result: MatchResult,
    keep: RowFilter = RowFilter(),
    god: bool = False,
) -> Iterator[dict[str, Any]]:
    """The rows of one match's decisions, in record order, for the seats ``keep`` admits."""
    seats = {s.seat: s for s in result.seats}
    kept = {s for s, r in seats.items() if keep.keeps_seat(r)}
    if not kept:
        return
    names: list[str] = []
    states = {s: _SeatState() for s in kept}
    knowledge = Knowledge()
    truth: dict[str, Any] = {}
    spectator: list[str] = []
    decisions = 0
    facts: dict[int, dict[str, Any]] = {}
    for e in events:
        if knowledge.feed(e):
            if e.type == GROUND_TRUTH_EVENT:
                truth = dict(e.payload)
            continue
        if e.type == "match_start":  # not part of any seat's observed events
            names = [str(n) for n in e.payload.get("names") or []]
            continue
        if god and e.text:
            spectator.append(transcript.line(e, None, names))
        for s in kept:  # what each kept seat was shown (runner records reach no seat)
            if e.delivered_to(s):
                st = states[s]
                st.delivered.append(e.seq)
                if e.text:
                    st.lines.append((e.seq, transcript.line(e, s, names)))
        if e.type == "decision":
            decisions += 1
        actor = e.actor
        if actor is None or actor not in kept:
            continue
        st = states[actor]
        if e.type == "invalid_action":
            st.invalid.append(str(e.payload.get("error") or ""))
        elif e.type == "llm_call":
            if isinstance(e.payload.get("memory"), dict):
                st.memory = e.payload["memory"]
            st.calls.append(e.payload)
        elif e.type == "fallback":
            st.fallback = e.payload
        elif e.type == "decision":
            row = _row(e, result, seats[actor], st, knowledge, decisions - 1, facts)
            # the kind behind the seat's entry ("werewolf.rule", "llm", "remote")
            row["agent_kind"] = str((truth.get("kinds") or {}).get(str(actor), ""))
            if god:
                row.update(_god_columns(result, truth, spectator))
            yield row
            st.step += 1
            st.invalid, st.calls, st.fallback = [], [], None
