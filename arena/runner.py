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
from arena.agents.base import (
    Agent,
    AgentForfeit,
    HearsMatchEnd,
    KeepsCallRecords,
    MatchContext,
    NotesTimeouts,
)
from arena.engine import RulesEngine, compose_view
from arena.events import Event, GameEvent, Visibility
from arena.facts import FACTS_EVENT, GROUND_TRUTH_EVENT, FactTracker
from arena.ratings.batch import seat_results
from arena.results import InvalidActionPolicy, MatchResult, MatchSpec, SeatResult
from arena.seeding import derive_seed
from arena.sinks import EventSink
from arena.types import Action, Decision, InvalidAction, Observation

MAX_DECISIONS = 200_000  # a guard against engines that never end

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
        # _stamped[i] is the record of engine.log[i]; _drafts[i] the engine event it stamped.
        self._stamped: list[Event] = []
        self._drafts: list[GameEvent] = []
        self._log: list[GameEvent] | None = None
        self._views: dict[int, tuple[int, list[Event]]] = {}
        self._facts = FactTracker()
        # per seat: the parts of its latest observation (what its next decision record says
        # it was shown) and the last briefing recorded, so a briefing is written when it changes
        self._shown: dict[int, dict[str, Any]] = {}
        self._briefed: dict[int, str] = {}
        self.agents = self._seat_agents(agents)
        self.invalid = [0] * self.engine.n_seats
        self.fallbacks = [0] * self.engine.n_seats
        self.n_decisions = 0
        # seats whose agent gave up (AgentForfeit), with its reason: forfeited at the fallback
        self._gone: dict[int, str] = {}

    # -- setup -------------------------------------------------------------------------
    def _seat_agents(self, agents: Any) -> list[Agent]:
        """Agents per seat: a list, or a callable(entry_name, seat) -> Agent for by-team seating."""
        n = self.engine.n_seats
        if self.spec.by_team is not None:
            teams = self.engine.teams()
            missing = sorted({t for t in teams.values()} - set(self.spec.by_team))
            if missing:
                raise ValueError(f"by_team seating names no entry for team(s) {missing}")
            self.spec = self.spec.model_copy(
                update={"seats": [self.spec.by_team[teams[s]] for s in range(n)]}
            )
        if callable(agents) and not isinstance(agents, list | dict):
            return [agents(self.spec.seats[s], s) for s in range(n)]
        if isinstance(agents, dict):
            return [agents[self.spec.seats[s]] for s in range(n)]
        if len(agents) != n:
            raise ValueError(f"{self.spec.game} needs {n} agents, got {len(agents)}")
        return list(agents)

    def _sync_log(self) -> None:
        """Stamp engine events that are not yet in the record.

        Records are matched to engine events by log position. A ``restore()`` replaces the
        engine's log: the records of the prefix it shares with the old one are kept, the rest
        of the new log is stamped as new events (the record itself is append-only)."""
        log = self.engine.log
        if log is not self._log:
            keep = 0
            limit = min(len(log), len(self._drafts))
            while keep < limit and log[keep] == self._drafts[keep]:
                keep += 1
            del self._stamped[keep:], self._drafts[keep:]
            self._views = {}
            self._log = log
        while len(self._stamped) < len(log):
            draft = log[len(self._stamped)]
            self._stamped.append(self.recorder.record(draft))
            self._drafts.append(draft)
        self._note_facts()

    def _note_facts(self) -> None:
        """A god-only ``facts`` event when the engine's facts changed (a fact was born, its
        audience grew, it became public): ground truth as a timeline, right after the engine
        events that changed it."""
        changed = self._facts.changes(self.engine.current_facts())
        if changed:
            self.recorder.note(
                FACTS_EVENT, self.engine.phase, facts=[f.model_dump(mode="json") for f in changed]
            )

    @property
    def engine_records(self) -> list[Event]:
        """The record of every engine event stamped so far, by engine log position."""
        return list(self._stamped)

    # -- observation -------------------------------------------------------------------
    def seat_events(self, seat: int) -> list[Event]:
        """The records of the engine events delivered to ``seat``, in order (incremental).

        Only events already stamped count (the runner stamps after each applied answer, so
        the record's order does not depend on when agents were asked)."""
        if self.engine.log is not self._log:
            self._sync_log()
        done, seen = self._views.get(seat, (0, []))
        stamped = self._stamped
        if done < len(stamped):
            seen.extend(e for e in stamped[done:] if e.delivered_to(seat))
            self._views[seat] = (len(stamped), seen)
        return seen

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
        async with asyncio.timeout(limit):
            return await agent.act(obs, decision)

    async def _ask(
        self, seat: int, error: str | None = None, attempt: int = 0
    ) -> tuple[Action | None, int, str | None]:
        """Ask until a parse-valid answer or the retries run out: (action, attempts, last error)."""
        decision = self.engine.current_decision(seat)
        while attempt <= self.policy.retries:
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
            except TimeoutError:
                limit = self.agents[seat].time_limit(self.policy.timeout_s)
                error = f"no answer within {limit}s"
                agent = self.agents[seat]
                if isinstance(agent, NotesTimeouts):  # its cancelled call record says why
                    agent.mark_timed_out()
            except asyncio.CancelledError:
                raise
            except Exception as err:  # an agent bug must not crash the match
                error = f"agent raised {type(err).__name__}: {err}"
            self.invalid[seat] += 1
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
        if seat in self._gone:
            self.recorder.note("fallback", phase, actor=seat, policy="forfeit", error=error)
            self.engine.forfeit(seat, f"{self.engine.names[seat]} (seat {seat}): {error}")
            return False
        if self.policy.fallback == "forfeit":
            self.recorder.note("fallback", phase, actor=seat, policy="forfeit", error=error)
            self.engine.forfeit(
                seat, f"{self.engine.names[seat]} (seat {seat}) gave no valid answer: {error}"
            )
            return False
        action = self.engine.fallback(seat, self.policy.fallback)
        self.recorder.note(
            "fallback",
            phase,
            actor=seat,
            policy=action.fallback,
            error=error,
            action=action.summary(),
        )
        self._apply(seat, action)
        return True

    def _shown_record(self, seat: int) -> dict[str, Any] | None:
        """What the seat was shown when it was last asked, compactly: enough to rebuild the
        exact observation text from the record (the delivered events up to ``last_seq``, then
        :func:`arena.engine.compose_view`) for ``arena export``. The briefing is written only
        when it differs from the seat's previous record; the decision without its ``meta``."""
        shown = self._shown.get(seat)
        if shown is None:
            return None
        decision: Decision = shown["decision"]
        out: dict[str, Any] = {
            "seen": shown["seen"],
            "last_seq": shown["last_seq"],
            "decision": decision.model_dump(mode="json", exclude={"meta"}, exclude_defaults=True),
        }
        if self._briefed.get(seat) != shown["briefing"]:
            out["briefing"] = self._briefed[seat] = shown["briefing"]
        if shown["status"]:
            out["status"] = shown["status"]
        if shown["error"]:
            out["error"] = shown["error"]
        return out

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
            shown=self._shown_record(seat),
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
        """Apply an answer in seat order; engine-level refusals are re-asked. False if forfeited."""
        while True:
            if action is None:
                return self._apply_fallback(seat, error)
            try:
                self._apply(seat, action)
                return True
            except InvalidAction as err:
                error = str(err)
                self.invalid[seat] += 1
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
        seating = {str(s): self.spec.seats[s] for s in range(engine.n_seats)}
        # the kind of agent behind each entry ("llm", "werewolf.rule"): what a viewer needs to
        # tell which seat is the model; as secret as the seating itself
        kinds = {str(s): self.agents[s].kind for s in range(engine.n_seats)}
        # With by-team seating the agent entry of a seat reveals its team: then the seating is
        # recorded for spectators only (in ground_truth), never in the public match_start.
        public_seating = self.spec.by_team is None and self.spec.public_seating
        self.recorder.record(
            GameEvent(
                type="match_start",
                phase="setup",
                payload={
                    "game": self.spec.game,
                    "match_id": self.spec.match_id,
                    "rules": engine.rules.model_dump(mode="json"),
                    "seats": seating if public_seating else {},
                    "kinds": kinds if public_seating else {},
                    "names": engine.names,
                },
                text=f"Match {self.spec.match_id}: {self.spec.game} with "
                + ", ".join(
                    f"{engine.names[s]}" + (f" ({self.spec.seats[s]})" if public_seating else "")
                    for s in range(engine.n_seats)
                ),
            )
        )
        facts = engine.current_facts()
        self._facts = FactTracker(facts)
        self.recorder.note(
            GROUND_TRUTH_EVENT,
            "setup",
            seats=seating,
            kinds=kinds,
            teams={str(k): v for k, v in engine.teams().items()},
            roles={str(k): v for k, v in engine.roles().items()},
            facts=[f.model_dump(mode="json") for f in facts],
        )
        try:
            self._reset_agents()
            self._sync_log()
            while not engine.is_over():
                if self.n_decisions > MAX_DECISIONS:
                    engine.forfeit(
                        None, f"decision limit {MAX_DECISIONS} exceeded", status="errored"
                    )
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
            await self._tell_match_end()
        await self._close_agents()
        outcome = engine.outcome()
        if outcome is not None and outcome.status != "finished":
            status = outcome.status
            reason = outcome.reason
        result = self._finish_record(started, status, reason)
        if cancelled:
            raise asyncio.CancelledError
        return result

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

    def _reset_agents(self) -> None:
        teams = self.engine.teams()
        names = self.engine.names
        salt: tuple[object, ...] = ("replicate", self.spec.replicate) if self.spec.replicate else ()
        for seat, agent in enumerate(self.agents):
            agent.reset(
                MatchContext(
                    game=self.spec.game,
                    match_id=self.spec.match_id,
                    seat=seat,
                    name=names[seat],
                    names=names,
                    seed=derive_seed(self.spec.seed, "seat", seat, agent.name, *salt),
                    team_seed=derive_seed(self.spec.seed, "team", teams[seat], *salt),
                    rules=self.engine.rules.model_dump(mode="json"),
                    briefing=self.engine.briefing(seat),
                )
            )

    async def _tell_match_end(self) -> None:
        """The outcome and each seat's final view, to the agents that want them (remote agents
        keep their own memory), each call bounded by the seat's time limit."""
        outcome = self.engine.outcome()
        if outcome is None:
            return
        for seat, agent in enumerate(self.agents):
            if not isinstance(agent, HearsMatchEnd):
                continue
            told = {
                "status": outcome.status,
                "label": outcome.label,
                "winners": list(outcome.winners),
                "reward": float(outcome.rewards.get(seat, 0.0)),
                "reason": outcome.reason,
            }
            try:
                async with asyncio.timeout(agent.time_limit(self.policy.timeout_s)):
                    await agent.match_over(self.observation(seat), told)
            except asyncio.CancelledError:
                raise
            except Exception as err:  # the end of a match is the agent's news, not the record's
                self.recorder.note("agent_close_error", self.engine.phase, error=repr(err))

    async def _close_agents(self) -> None:
        for agent in self.agents:
            try:
                await agent.close()
            except Exception as err:
                self.recorder.note("agent_close_error", self.engine.phase, error=repr(err))

    def _finish_record(self, started: float, status: str, reason: str | None) -> MatchResult:
        self._sync_log()
        engine = self.engine
        outcome = engine.outcome()
        teams = engine.teams()
        roles = engine.roles()
        winners = list(outcome.winners) if outcome else []
        rewards = {s: float(outcome.rewards.get(s, 0.0)) if outcome else 0.0 for s in teams}
        # recorded as rated (a forfeit too): the board, `show` and exports read one notion
        results = seat_results(status, teams, rewards, winners)
        seats: list[SeatResult] = []
        for s in range(engine.n_seats):
            reward = rewards.get(s, 0.0)
            result = results.get(s, "none")
            seats.append(
                SeatResult(
                    seat=s,
                    name=engine.names[s],
                    agent=self.spec.seats[s],
                    team=teams[s],
                    role=roles[s],
                    reward=reward,
                    result=result,
                    invalid=self.invalid[s],
                    fallbacks=self.fallbacks[s],
                )
            )
        label = outcome.label if outcome else "aborted"
        result_obj = MatchResult(
            match_id=self.spec.match_id,
            run_id=self.spec.run_id,
            game=self.spec.game,
            seed=self.spec.seed,
            index=self.spec.index,
            repeat=self.spec.repeat,
            status=status,
            outcome=label,
            reason=reason,
            winners=winners,
            seats=seats,
            n_events=len(self.recorder.events) + 1,
            n_decisions=self.n_decisions,
            duration_s=round(time.perf_counter() - started, 6),
        )
        self.recorder.record(
            GameEvent(
                type="match_end",
                phase="end",
                payload={
                    "status": status,
                    "outcome": label,
                    "reason": reason,
                    "winners": winners,
                    "rewards": {str(s.seat): s.reward for s in seats},
                    "invalid": self.invalid,
                    "fallbacks": self.fallbacks,
                    "elapsed_s": result_obj.duration_s,
                },
                visibility=Visibility.god(),
                text=f"Match over: {label}" + (f" ({reason})" if reason else ""),
            )
        )
        self.recorder.close()
        return result_obj


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
