"""The agents of one match: who sits where, what each is told when the match starts and ends,
and closing them. Functions of values (the spec, the rules engine, the agents), not the runner.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from arena.agents.base import Agent, HearsMatchEnd, MatchContext
from arena.engine import RulesEngine
from arena.match_record import MatchRecorder
from arena.results import InvalidActionPolicy, MatchSpec
from arena.seeding import derive_seed
from arena.types import Observation


def seat_agents(
    spec: MatchSpec, engine: RulesEngine[Any], agents: Any
) -> tuple[MatchSpec, list[Agent]]:
    """Agents per seat: a list, a mapping of entry names, or a callable(entry_name, seat) ->
    Agent. With by-team seating the spec's seats are filled from the teams (the spec returned)."""
    n = engine.n_seats
    if spec.by_team is not None:
        teams = engine.teams()
        missing = sorted({t for t in teams.values()} - set(spec.by_team))
        if missing:
            raise ValueError(f"by_team seating names no entry for team(s) {missing}")
        spec = spec.model_copy(update={"seats": [spec.by_team[teams[s]] for s in range(n)]})
    if callable(agents) and not isinstance(agents, list | dict):
        return spec, [agents(spec.seats[s], s) for s in range(n)]
    if isinstance(agents, dict):
        return spec, [agents[spec.seats[s]] for s in range(n)]
    if len(agents) != n:
        raise ValueError(f"{spec.game} needs {n} agents, got {len(agents)}")
    return spec, list(agents)


def reset_agents(agents: list[Agent], spec: MatchSpec, engine: RulesEngine[Any]) -> None:
    """Each agent's match context: its seat, the names, its seeds, the rules and its briefing."""
    teams = engine.teams()
    names = engine.names
    salt: tuple[object, ...] = ("replicate", spec.replicate) if spec.replicate else ()
    for seat, agent in enumerate(agents):
        agent.reset(
            MatchContext(
                game=spec.game,
                match_id=spec.match_id,
                seat=seat,
                name=names[seat],
                names=names,
                seed=derive_seed(spec.seed, "seat", seat, agent.name, *salt),
                team_seed=derive_seed(spec.seed, "team", teams[seat], *salt),
                rules=engine.rules.model_dump(mode="json"),
                briefing=engine.briefing(seat),
            )
        )


async def tell_match_end(
    agents: list[Agent],
    engine: RulesEngine[Any],
    observe: Callable[[int], Observation],
    policy: InvalidActionPolicy,
    recorder: MatchRecorder,
) -> None:
    """The outcome and each seat's final view (``observe(seat)``), to the agents that want
    them (remote agents keep their own memory), each call bounded by the seat's time limit."""
    outcome = engine.outcome()
    if outcome is None:
        return
    for seat, agent in enumerate(agents):
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
            async with asyncio.timeout(agent.time_limit(policy.timeout_s)):
                await agent.match_over(observe(seat), told)
        except asyncio.CancelledError:
            raise
        except Exception as err:  # the end of a match is the agent's news, not the record's
            recorder.note("agent_close_error", engine.phase, error=repr(err))


async def close_agents(agents: list[Agent], phase: str, recorder: MatchRecorder) -> None:
    for agent in agents:
        try:
            await agent.close()
        except Exception as err:
            recorder.note("agent_close_error", phase, error=repr(err))
