"""The record of one match: the recorder that stamps events for the sinks, and the records the
runner writes at the start (``match_start``, ``ground_truth``), per decision (what the seat was
shown) and at the end (``match_end`` and the :class:`MatchResult`).

Functions here take values (the spec, the rules engine, the counts), never the runner.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arena.engine import RulesEngine
from arena.events import Event, GameEvent, Visibility
from arena.facts import FACTS_EVENT, GROUND_TRUTH_EVENT
from arena.health_count import HealthCount
from arena.results import MatchResult, MatchSpec, SeatResult, seat_results
from arena.sinks import EventSink
from arena.types import Decision, PrivateFact

# Every event type the core writes into a match record: the runner's own records, plus
# "match_aborted" from RulesEngine.forfeit. Games declare theirs in their GameInfo.
RUNNER_EVENT_TYPES = frozenset(
    {
        "match_start", GROUND_TRUTH_EVENT, FACTS_EVENT, "decision", "invalid_action", "fallback",
        "belief_report", "llm_call", "error", "agent_close_error", "match_end", "match_aborted",
    }
)  # fmt: skip


class MatchRecorder:
    """Stamps events with run id, match id and sequence number and sends them to sinks."""

    def __init__(self, run_id: str, match_id: str, sinks: list[EventSink]) -> None:
        self.run_id = run_id
        self.match_id = match_id
        self.sinks = sinks
        self.events: list[Event] = []

    def record(self, draft: GameEvent) -> Event:
        event = Event.stamp(draft, run_id=self.run_id, match_id=self.match_id, seq=len(self.events))
        self.events.append(event)
        for sink in self.sinks:
            sink.write(event)
        return event

    def note(self, type: str, phase: str, actor: int | None = None, **payload: Any) -> Event:
        """A runner event (decisions, refusals, fallbacks): god-only."""
        return self.record(
            GameEvent(
                type=type, phase=phase, actor=actor, payload=payload, visibility=Visibility.god()
            )
        )

    def close(self) -> None:
        for sink in self.sinks:
            sink.close()


def record_start(
    recorder: MatchRecorder, spec: MatchSpec, engine: RulesEngine[Any], kinds: dict[str, str]
) -> list[PrivateFact]:
    """``match_start`` and the god-only ``ground_truth``; returns the facts at the start."""
    seating = {str(s): spec.seats[s] for s in range(engine.n_seats)}
    # With by-team seating the agent entry of a seat reveals its team: then the seating is
    # recorded for spectators only (in ground_truth), never in the public match_start.
    public_seating = spec.by_team is None and spec.public_seating
    recorder.record(
        GameEvent(
            type="match_start",
            phase="setup",
            payload={
                "game": spec.game,
                "match_id": spec.match_id,
                "rules": engine.rules.model_dump(mode="json"),
                "seats": seating if public_seating else {},
                "kinds": kinds if public_seating else {},
                "names": engine.names,
            },
            text=f"Match {spec.match_id}: {spec.game} with "
            + ", ".join(
                f"{engine.names[s]}" + (f" ({spec.seats[s]})" if public_seating else "")
                for s in range(engine.n_seats)
            ),
        )
    )
    facts = engine.current_facts()
    recorder.note(
        GROUND_TRUTH_EVENT,
        "setup",
        seats=seating,
        kinds=kinds,
        teams={str(k): v for k, v in engine.teams().items()},
        roles={str(k): v for k, v in engine.roles().items()},
        facts=[f.model_dump(mode="json") for f in facts],
    )
    return facts


def shown_record(
    shown: dict[str, Any] | None, briefed: dict[int, str], seat: int
) -> dict[str, Any] | None:
    """What the seat was shown when it was last asked, compactly: enough to rebuild the
    exact observation text from the record (the delivered events up to ``last_seq``, then
    :func:`arena.engine.compose_view`) for ``arena export``. The briefing is written only
    when it differs from the seat's previous record (``briefed``, updated here); the decision
    without its ``meta``."""
    if shown is None:
        return None
    decision: Decision = shown["decision"]
    out: dict[str, Any] = {
        "seen": shown["seen"],
        "last_seq": shown["last_seq"],
        "decision": decision.model_dump(mode="json", exclude={"meta"}, exclude_defaults=True),
    }
    if briefed.get(seat) != shown["briefing"]:
        out["briefing"] = briefed[seat] = shown["briefing"]
    if shown["status"]:
        out["status"] = shown["status"]
    if shown["error"]:
        out["error"] = shown["error"]
    return out


@dataclass(frozen=True)
class SeatCounts:
    """The runner's tallies of a match: refusals and fallbacks per seat, decisions applied."""

    invalid: list[int]
    fallbacks: list[int]
    decisions: int
    health: list[HealthCount]  # per seat: settled decisions and their troubles


def seat_rows(
    spec: MatchSpec, engine: RulesEngine[Any], counts: SeatCounts, status: str
) -> tuple[list[SeatResult], list[str]]:
    """Each seat's result as rated (a forfeit too: the board, `show` and exports read one
    notion), and the winners."""
    outcome = engine.outcome()
    teams = engine.teams()
    roles = engine.roles()
    winners = list(outcome.winners) if outcome else []
    rewards = {s: float(outcome.rewards.get(s, 0.0)) if outcome else 0.0 for s in teams}
    results = seat_results(status, teams, rewards, winners)
    seats = [
        SeatResult(
            seat=s,
            name=engine.names[s],
            agent=spec.seats[s],
            team=teams[s],
            role=roles[s],
            reward=rewards.get(s, 0.0),
            result=results.get(s, "none"),
            invalid=counts.invalid[s],
            fallbacks=counts.fallbacks[s],
            **counts.health[s].fields(),
        )
        for s in range(engine.n_seats)
    ]
    return seats, winners


def finish_record(
    recorder: MatchRecorder,
    spec: MatchSpec,
    engine: RulesEngine[Any],
    counts: SeatCounts,
    status: str,
    reason: str | None,
    elapsed_s: float,
) -> MatchResult:
    """The match's result, and its last record: ``match_end``."""
    outcome = engine.outcome()
    seats, winners = seat_rows(spec, engine, counts, status)
    label = outcome.label if outcome else "aborted"
    result = MatchResult(
        match_id=spec.match_id,
        run_id=spec.run_id,
        game=spec.game,
        seed=spec.seed,
        index=spec.index,
        repeat=spec.repeat,
        status=status,
        outcome=label,
        reason=reason,
        winners=winners,
        seats=seats,
        n_events=len(recorder.events) + 1,
        n_decisions=counts.decisions,
        duration_s=elapsed_s,
    )
    recorder.record(
        GameEvent(
            type="match_end",
            phase="end",
            payload={
                "status": status,
                "outcome": label,
                "reason": reason,
                "winners": winners,
                "rewards": {str(s.seat): s.reward for s in seats},
                "invalid": counts.invalid,
                "fallbacks": counts.fallbacks,
                "elapsed_s": result.duration_s,
            },
            visibility=Visibility.god(),
            text=f"Match over: {label}" + (f" ({reason})" if reason else ""),
        )
    )
    return result
