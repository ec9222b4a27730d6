"""The async match runner: drives one match of any registered game with any agents.

For every step it asks the engine who owes a decision. All decisions of a simultaneous phase
are requested concurrently and then applied in seat order. A refused answer is re-asked with
the error; after ``policy.retries`` refusals the fallback applies. Agents that raise, hang past
their time limit (``policy.timeout_s``; a person's seat has its own: ``Agent.time_limit``) or
return garbage are treated as refused answers — never a crashed match.
Every match ends ``finished``, ``forfeited`` or ``errored`` with a reason, and its last event is
``match_end``.

This is the only code that plays a match: ``arena run``, the benches, the baselines and the
bot tests all come through :meth:`MatchRunner.run` (synchronous callers: :func:`play_match`).
"""

from __future__ import annotations

import asyncio
import time
import traceback
from typing import Any

from arena import registry, transcript
from arena.agents.base import Agent, AgentForfeit, KeepsCallRecords, timed_out
from arena.deadline import DecisionClock, current_clock
from arena.engine import RulesEngine, compose_view
from arena.events import Event
from arena.facts import FactTracker
from arena.health_count import HealthCount
from arena.match_agents import close_agents, reset_agents, seat_agents, tell_match_end
from arena.match_log import StampedLog
from arena.match_record import (
    MatchRecorder,
    SeatCounts,
    finish_record,
    meta_record,
    record_start,
    shown_record,
)
from arena.results import InvalidActionPolicy, MatchResult, MatchSpec
from arena.sinks import EventSink
from arena.types import Action, Decision, InvalidAction, Observation

MAX_DECISIONS = 200_000  # a guard against engines that never end


class MatchRunner:
    """Runs one :class:`MatchSpec` with one agent per seat."""

    def __init__(
        self,
        spec: MatchSpec,
        agents: list[Agent] | dict[str, Agent] | Any,
        sinks: list[EventSink] | None = None,
        policy: InvalidActionPolicy | None = None,
        engine: RulesEngine[Any] | None = None,
    ) -> None:
        self.spec = spec
        self.policy = policy or InvalidActionPolicy()
        self.engine = engine or registry.engine_class(spec.game)(spec.rules, seed=spec.seed)
        self.recorder = MatchRecorder(spec.run_id, spec.match_id, list(sinks or []))
        self.stamped = StampedLog(self.recorder)
        # per seat: the parts of its latest observation (what its next decision record says
        # it was shown) and the last briefing recorded, so a briefing is written when it changes
        self._shown: dict[int, dict[str, Any]] = {}
        self._briefed: dict[int, str] = {}
        self.spec, self.agents = seat_agents(self.spec, self.engine, agents)
        self.invalid = [0] * self.engine.n_seats
        self.fallbacks = [0] * self.engine.n_seats
        self.n_decisions = 0
        # harness health per seat: settled decisions, and those that were refused at least
        # once, re-asked, timed out (the flags of the decision being asked: ``_trouble``)
        self.health = [HealthCount() for _ in range(self.engine.n_seats)]
        self._trouble: list[set[str]] = [set() for _ in range(self.engine.n_seats)]
        # seats whose agent gave up (AgentForfeit), with its reason: forfeited at the fallback
        self._gone: dict[int, str] = {}

    # -- setup -------------------------------------------------------------------------
    def _sync_log(self) -> None:
        """Stamp engine events that are not yet in the record (see :class:`StampedLog`)."""
        self.stamped.sync(self.engine)

    @property
    def engine_records(self) -> list[Event]:
        """The record of every engine event stamped so far, by engine log position."""
        return list(self.stamped.records)

    # -- observation -------------------------------------------------------------------
    def seat_events(self, seat: int) -> list[Event]:
        """The records of the engine events delivered to ``seat``, in order (incremental)."""
        return self.stamped.seat_events(self.engine, seat)

    def observation(self, seat: int, error: str | None = None) -> Observation:
        engine = self.engine
        events = list(self.seat_events(seat))
        names = engine.names
        briefing = engine.briefing(seat)
        status = engine.status_line(seat)
        pending = engine.current_decision(seat) if seat in engine.current_pending() else None
        if pending is not None:
            self._shown[seat] = {
                "briefing": briefing,
                "status": status,
                "error": error,
                "decision": pending,
                "seen": len(events),
                "last_seq": events[-1].seq if events else -1,
            }

        def render() -> str:
            # The same layout and line renderer as RulesEngine.render, from this
            # observation's own events: the text is the view as of the ask.
            decision = None if pending is None else pending.describe()
            return compose_view(
                briefing, transcript.transcript(events, seat, names), decision, error, status
            )

        return Observation.lazy(
            render,
            game=self.spec.game,
            match_id=self.spec.match_id,
            seat=seat,
            name=names[seat],
            phase=engine.phase,
            names=names,
            events=events,
            private=engine.known_facts(seat),
            state=engine.state(seat),
            error=error,
        )

    # -- asking ------------------------------------------------------------------------
    async def _call(self, seat: int, obs: Observation, decision: Decision) -> Any:
        agent = self.agents[seat]
        limit = agent.time_limit(self.policy.timeout_s)
        if limit is None:
            return await agent.act(obs, decision)
        # asyncio.timeout, not wait_for: wait_for wraps every answer in a new task, so even a
        # bot that answers at once costs a trip through the event loop.
        # the limit counts computing only: a backend's queue waits stop it (arena.deadline)
        clock: DecisionClock | None = None
        try:
            async with asyncio.timeout(limit) as timeout:
                clock = DecisionClock(timeout, limit, self.policy.queue_limit())
                token = current_clock.set(clock)
                try:
                    return await agent.act(obs, decision)
                finally:
                    current_clock.reset(token)
        except TimeoutError:
            raise TimeoutError(clock.reason() if clock is not None else "") from None

    async def _ask(
        self, seat: int, error: str | None = None, attempt: int = 0
    ) -> tuple[Action | None, int, str | None]:
        """Ask until a parse-valid answer or the retries run out: (action, attempts, last error)."""
        decision = self.engine.current_decision(seat)
        if attempt == 0:  # a new decision: its troubles start empty
            self._trouble[seat] = set()
        while attempt <= self.policy.retries:
            if attempt > 0:
                self._trouble[seat].add("reasked")
            obs = self.observation(seat, error)
            started = time.perf_counter()
            try:
                raw = await self._call(seat, obs, decision)
                action = decision.parse(raw, seat)
                return action, attempt, None
            except InvalidAction as err:
                error = str(err)
            except AgentForfeit as err:
                error = self._gone[seat] = str(err) or "the agent gave up"
                attempt = self.policy.retries  # no more asking: this is the last attempt
            except TimeoutError as err:
                self._trouble[seat].add("timeout")
                limit = self.agents[seat].time_limit(self.policy.timeout_s)
                error = str(err) or f"no answer within {limit}s"
                gone = timed_out(self.agents[seat], error)
                if gone is not None:  # that time-out was one too many: the seat forfeits now
                    error = self._gone[seat] = gone
                    attempt = self.policy.retries
            except asyncio.CancelledError:
                raise
            except Exception as err:  # an agent bug must not crash the match
                error = f"agent raised {type(err).__name__}: {err}"
            self.invalid[seat] += 1
            self._trouble[seat].add("refused")
            self.recorder.note(
                "invalid_action",
                self.engine.phase,
                actor=seat,
                decision=decision.kind,
                attempt=attempt,
                error=error,
                latency_s=round(time.perf_counter() - started, 6),
            )
            attempt += 1
        return None, attempt, error

    def _note_llm_calls(self, seat: int) -> None:
        """Per-call accounting of agents that keep it (LLM agents): one god-only event each.

        Collected at apply time, so the events land in seat order, deterministically."""
        agent = self.agents[seat]
        if not isinstance(agent, KeepsCallRecords):
            return
        for record in agent.pop_call_records():
            self.recorder.note("llm_call", self.engine.phase, actor=seat, **record)

    def _apply_fallback(self, seat: int, error: str | None) -> bool:
        """Apply the policy's fallback; False when the match was forfeited."""
        self._note_llm_calls(seat)
        self.fallbacks[seat] += 1
        phase = self.engine.phase
        if seat in self._gone or self.policy.fallback == "forfeit":
            self.recorder.note("fallback", phase, actor=seat, policy="forfeit", error=error)
            why = ": " if seat in self._gone else " gave no valid answer: "
            self.engine.forfeit(seat, f"{self.engine.names[seat]} (seat {seat}){why}{error}")
            return False
        action = self.engine.fallback(seat, self.policy.fallback)
        note = {"policy": action.fallback, "error": error, "action": action.summary()}
        self.recorder.note("fallback", phase, actor=seat, **note)
        self._apply(seat, action)
        return True

    def _apply(self, seat: int, action: Action) -> None:
        kind = self.engine.current_decision(seat).kind
        phase = self.engine.phase
        self._note_llm_calls(seat)
        self.engine.apply(seat, action)
        self.n_decisions += 1
        self.recorder.note(
            "decision",
            phase,
            actor=seat,
            kind=kind,
            action=action.summary(),
            shown=shown_record(self._shown.get(seat), self._briefed, seat),
            **meta_record(action.meta),
        )
        if action.belief:
            self.recorder.note(
                "belief_report",
                self.engine.phase,
                actor=seat,
                decision=kind,
                beliefs=action.belief,
            )

    async def _settle(
        self, seat: int, action: Action | None, attempts: int, error: str | None
    ) -> bool:
        """Apply an answer in seat order; engine-level refusals are re-asked. False if forfeited.

        Counts the settled decision and its troubles in the seat's harness health."""
        fallback, ok = await self._settle_answer(seat, action, attempts, error)
        self.health[seat].add(self._trouble[seat], fallback=fallback, forfeited=not ok)
        return ok

    async def _settle_answer(
        self, seat: int, action: Action | None, attempts: int, error: str | None
    ) -> tuple[bool, bool]:
        """(settled by a fallback, the match goes on)."""
        while True:
            if action is None:
                return True, self._apply_fallback(seat, error)
            try:
                self._apply(seat, action)
                return False, True
            except InvalidAction as err:
                error = str(err)
                self.invalid[seat] += 1
                self._trouble[seat].add("refused")
                self.recorder.note(
                    "invalid_action",
                    self.engine.phase,
                    actor=seat,
                    decision=self.engine.current_decision(seat).kind,
                    attempt=attempts,
                    error=error,
                )
                attempts += 1
                if attempts > self.policy.retries:
                    action = None
                    continue
                action, attempts, error = await self._ask(seat, error, attempts)

    # -- the match ---------------------------------------------------------------------
    async def run(self) -> MatchResult:
        started = time.perf_counter()
        engine = self.engine
        status = "finished"
        reason: str | None = None
        cancelled = False
        # the kind of agent behind each entry ("llm", "werewolf.rule"): what a viewer needs to
        # tell which seat is the model; as secret as the seating itself
        kinds = {str(s): self.agents[s].kind for s in range(engine.n_seats)}
        self.stamped.facts = FactTracker(record_start(self.recorder, self.spec, engine, kinds))
        try:
            reset_agents(self.agents, self.spec, engine)
            self._sync_log()
            await self._loop()
        except asyncio.CancelledError:
            cancelled = True
            if not engine.is_over():
                engine.forfeit(None, "cancelled (run interrupted)", status="errored")
        except Exception as err:  # engine or runner bug: record it, never lose the match
            reason = f"{type(err).__name__}: {err}"
            self.recorder.note("error", engine.phase, traceback=traceback.format_exc(limit=8))
            if not engine.is_over():
                engine.forfeit(None, reason, status="errored")
            status = "errored"
        if not cancelled:
            await tell_match_end(self.agents, engine, self.observation, self.policy, self.recorder)
        await close_agents(self.agents, engine.phase, self.recorder)
        outcome = engine.outcome()
        if outcome is not None and outcome.status != "finished":
            status = outcome.status
            reason = outcome.reason
        result = self._finish_record(started, status, reason)
        if cancelled:
            raise asyncio.CancelledError
        return result

    async def _loop(self) -> None:
        """Ask and apply until the engine is over: the pending seats together, their answers
        applied in seat order."""
        engine = self.engine
        while not engine.is_over():
            if self.n_decisions > MAX_DECISIONS:
                engine.forfeit(None, f"decision limit {MAX_DECISIONS} exceeded", status="errored")
                break
            pending = engine.current_pending()
            if not pending:
                raise RuntimeError("engine is not over but no seat owes a decision")
            if len(pending) == 1:  # most decisions: no task, no trip through the loop
                answers = [await self._ask(pending[0])]
            else:
                answers = await asyncio.gather(*(self._ask(s) for s in pending))
            for seat, (action, attempts, error) in zip(pending, answers, strict=True):
                if engine.is_over() or seat not in engine.current_pending():
                    continue
                ok = await self._settle(seat, action, attempts, error)
                self._sync_log()
                if not ok:
                    break
            self._sync_log()

    def play(self) -> MatchResult:
        """Play the match from synchronous code (bot tests, baselines, benches): :meth:`run`.

        The same loop as ``arena run`` (same record, observations and seeding), on a fresh
        event loop of its own, so any agent works, an LLM agent too. With agents that answer
        at once (rule bots) the match is one pass through :meth:`run` and the loop costs about
        50 us, half of ``asyncio.run`` (no signal handlers, no loop policy). Afterwards
        ``engine``, ``agents`` and ``recorder.events`` hold the finished match. Inside a
        running event loop, ``await run()`` instead.
        """
        loop = asyncio.new_event_loop()
        try:
            return loop.run_until_complete(self.run())
        finally:
            try:
                loop.run_until_complete(loop.shutdown_asyncgens())
                loop.run_until_complete(loop.shutdown_default_executor())
            finally:
                loop.close()

    def _finish_record(self, started: float, status: str, reason: str | None) -> MatchResult:
        self._sync_log()
        counts = SeatCounts(self.invalid, self.fallbacks, self.n_decisions, self.health)
        elapsed = round(time.perf_counter() - started, 6)
        result = finish_record(
            self.recorder, self.spec, self.engine, counts, status, reason, elapsed
        )
        self.recorder.close()
        return result


async def run_match(
    spec: MatchSpec,
    agents: list[Agent] | Any,
    sinks: list[EventSink] | None = None,
    policy: InvalidActionPolicy | None = None,
) -> MatchResult:
    """Convenience: run one match and return its result."""
    return await MatchRunner(spec, agents, sinks, policy).run()


def play_match(
    spec: MatchSpec,
    agents: list[Agent] | Any,
    sinks: list[EventSink] | None = None,
    policy: InvalidActionPolicy | None = None,
) -> MatchResult:
    """Synchronous convenience: play one match (see :meth:`MatchRunner.play`)."""
    return MatchRunner(spec, agents, sinks, policy).play()
