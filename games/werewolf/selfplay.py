"""A lean driver that plays Werewolf matches between in-process agents (bots, tests, benches).

It does what :mod:`arena.runner` does for one match, minus sinks, timeouts and rendering: seeds
every agent with a :class:`MatchContext` (own seed from (match seed, seat, agent name), team seed
from (match seed, team)), builds each seat's :class:`Observation` from ``engine.visible_log``
and ``engine.state``, collects simultaneous decisions before applying any of them (in seat
order), and stamps every engine event once. ``strict`` turns any refused answer into an error,
which is how tests prove the bots always answer legally.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from arena.agents.base import Agent, MatchContext
from arena.events import Event
from arena.seeding import derive_seed
from arena.types import Decision, InvalidAction, Observation

MAX_STEPS = 20_000


@dataclass
class PlayedMatch:
    engine: Any
    events: list[Event]
    agents: list[Agent]
    decisions: list[tuple[int, Decision, Any]] = field(default_factory=list)
    invalid: int = 0


def engine_class() -> type:
    from games.werewolf.rules import WerewolfEngine

    return WerewolfEngine


class _Stamper:
    def __init__(self, engine: Any, match_id: str) -> None:
        self.engine = engine
        self.match_id = match_id
        self.stamped: dict[int, Event] = {}
        self.events: list[Event] = []

    def sync(self) -> None:
        log = self.engine.log
        while len(self.events) < len(log):
            draft = log[len(self.events)]
            event = Event.stamp(
                draft, run_id="selfplay", match_id=self.match_id, seq=len(self.events)
            )
            self.stamped[id(draft)] = event
            self.events.append(event)

    def view(self, seat: int) -> list[Event]:
        return [self.stamped[id(e)] for e in self.engine.visible_log(seat) if id(e) in self.stamped]


def observation(engine: Any, stamper: _Stamper, seat: int, render: bool) -> Observation:
    return Observation.model_construct(
        game="werewolf",
        match_id=stamper.match_id,
        seat=seat,
        name=engine.names[seat],
        phase=engine.phase,
        text=engine.render(seat) if render else "",
        events=stamper.view(seat),
        private=[],
        state=engine.state(seat),
        error=None,
    )


async def play_match(
    rules: dict[str, Any] | Any,
    seed: int,
    make_agent: Callable[[int, str], Agent],
    *,
    strict: bool = True,
    render: bool = False,
    record_decisions: bool = False,
) -> PlayedMatch:
    """Play one match. ``make_agent(seat, team)`` builds the agent of each seat."""
    engine = engine_class()(rules, seed=seed)
    match_id = f"selfplay-{seed}"
    teams = engine.teams()
    agents = [make_agent(s, teams[s]) for s in range(engine.n_seats)]
    rules_dump = engine.rules.model_dump(mode="json")
    for s, agent in enumerate(agents):
        agent.reset(
            MatchContext(
                game="werewolf", match_id=match_id, seat=s, name=engine.names[s],
                names=list(engine.names), seed=derive_seed(seed, "seat", s, agent.name),
                team_seed=derive_seed(seed, "team", teams[s]), rules=rules_dump,
            )
        )  # fmt: skip
    stamper = _Stamper(engine, match_id)
    played = PlayedMatch(engine=engine, events=stamper.events, agents=agents)
    for _ in range(MAX_STEPS):
        if engine.is_over():
            break
        stamper.sync()
        pending = engine.pending()
        asks = [(s, engine.decision(s), observation(engine, stamper, s, render)) for s in pending]
        answers = [await agents[s].act(obs, d) for s, d, obs in asks]
        for (s, d, _), answer in zip(asks, answers, strict=True):
            if record_decisions:
                played.decisions.append((s, d, answer))
            try:
                engine.apply(s, answer)
            except InvalidAction as err:
                if strict:
                    raise InvalidAction(f"seat {s} {d.kind}: {err} (answer {answer!r})") from err
                played.invalid += 1
                engine.apply(s, engine.fallback(s))
    else:
        raise RuntimeError(f"match {seed} did not end within {MAX_STEPS} steps")
    stamper.sync()
    return played


def play(
    rules: dict[str, Any] | Any, seed: int, make_agent: Callable[[int, str], Agent], **kw: Any
) -> PlayedMatch:
    """Synchronous wrapper of :func:`play_match`."""
    return asyncio.run(play_match(rules, seed, make_agent, **kw))
