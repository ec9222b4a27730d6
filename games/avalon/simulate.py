"""A small synchronous driver for bot-only Avalon games (tests and bench; no I/O).

The arena's MatchRunner is the general driver; this one exists so that thousands of bot games
run fast. Agents see exactly what the runner would give them: their stamped visible events,
their known facts and ``engine.state(seat)``. Simultaneous answers are collected before any
is applied, then applied in seat order.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from arena.agents.base import Agent, MatchContext
from arena.events import Event
from arena.seeding import derive_seed
from arena.types import Action, Observation
from games.avalon.rules import AvalonEngine

AgentFactory = Callable[[int, str, str], Agent]  # (seat, role, side) -> agent


def _answer(agent: Agent, obs: Observation, decision: Any) -> Any:
    decide = getattr(agent, "decide", None)
    if decide is not None:
        return decide(obs, decision)
    return asyncio.run(agent.act(obs, decision))  # type: ignore[arg-type]


def play(
    rules: dict[str, Any] | None,
    seed: int,
    factory: AgentFactory,
    *,
    match_id: str = "m",
    with_events: bool = True,
) -> tuple[AvalonEngine, list[Agent]]:
    """Play one game; ``factory`` picks each seat's agent (it may look at the dealt role,
    which only the harness sees). Returns the finished engine and the agents."""
    eng = AvalonEngine(rules or {}, seed=seed)
    n = eng.n_seats
    roles, teams = eng.roles(), eng.teams()
    agents = [factory(s, roles[s], teams[s]) for s in range(n)]
    for s, a in enumerate(agents):
        a.reset(
            MatchContext(
                game="avalon",
                match_id=match_id,
                seat=s,
                name=eng.names[s],
                names=eng.names,
                seed=derive_seed(seed, s, a.name),
                team_seed=derive_seed(seed, "team", teams[s]),
                rules=eng.rules.model_dump(mode="json"),
            )
        )
    views: list[list[Event]] = [[] for _ in range(n)]
    stamped = 0
    while not eng.is_over():
        if with_events:
            for e in eng.log[stamped:]:
                ev = Event.stamp(e, run_id="sim", match_id=match_id, seq=stamped)
                stamped += 1
                for s in range(n):
                    if e.visibility.visible_to(s):
                        views[s].append(ev)
        pending = eng.pending()
        answers: list[tuple[int, Action]] = []
        for s in pending:
            d = eng.decision(s)
            obs = Observation.model_construct(
                game="avalon", match_id=match_id, seat=s, name=eng.names[s], phase=eng.phase,
                text="", events=list(views[s]), private=[], state=eng.state(s), error=None,
            )  # fmt: skip
            answers.append((s, _answer(agents[s], obs, d)))
            if not d.simultaneous:
                break
        for s, act in answers:
            eng.apply(s, act)
    return eng, agents
