"""A fast synchronous driver for rule bots (tests and benchmarks; the real runner is async).

Bots see exactly what :class:`arena.runner.MatchRunner` gives them (state, private facts, and —
with ``with_text`` — the rendered view and stamped events); their coroutines never await, so
they are stepped without an event loop.
"""

from __future__ import annotations

from collections.abc import Coroutine, Sequence
from typing import Any

from arena.agents.base import Agent, MatchContext
from arena.engine import RulesEngine
from arena.events import Event
from arena.seeding import derive_seed
from arena.types import Action, InvalidAction, Observation


def run_sync(coro: Coroutine[Any, Any, Any]) -> Any:
    """Run a coroutine that never suspends (rule bots)."""
    try:
        coro.send(None)
    except StopIteration as stop:
        return stop.value
    coro.close()
    raise RuntimeError("the agent awaited something; use the async MatchRunner")


def observation(engine: RulesEngine[Any], seat: int, with_text: bool = False) -> Observation:
    events = []
    if with_text:
        events = [
            Event.stamp(e, run_id="", match_id="", seq=i)
            for i, e in enumerate(engine.visible_log(seat))
        ]
    return Observation.model_construct(
        game=engine.game,
        match_id="",
        seat=seat,
        name=engine.names[seat],
        phase=engine.phase,
        text=engine.render(seat) if with_text else "",
        events=events,
        private=engine.known_facts(seat),
        state=engine.state(seat),
        error=None,
    )


def play(
    engine: RulesEngine[Any],
    agents: Sequence[Agent],
    match_seed: int,
    *,
    with_text: bool = False,
    invalid: list[int] | None = None,
) -> list[tuple[int, Action]]:
    """Play ``engine`` (already reset) to the end; returns the applied (seat, action) list.

    An answer the engine refuses is counted in ``invalid`` and replaced by the engine fallback.
    """
    names = engine.names
    rules = engine.rules.model_dump(mode="json")
    for seat, agent in enumerate(agents):
        agent.reset(
            MatchContext(
                game=engine.game,
                match_id=str(match_seed),
                seat=seat,
                name=names[seat],
                names=names,
                seed=derive_seed(match_seed, "seat", seat, agent.name),
                team_seed=derive_seed(match_seed, "team", f"p{seat}"),
                rules=rules,
            )
        )
    applied: list[tuple[int, Action]] = []
    while not engine.is_over():
        pending = engine.pending()
        answers = []
        for seat in pending:
            decision = engine.decision(seat)
            obs = observation(engine, seat, with_text)
            answers.append((seat, run_sync(agents[seat].act(obs, decision))))
        for seat, raw in answers:
            try:
                engine.apply(seat, raw)
                action = raw
            except InvalidAction:
                if invalid is not None:
                    invalid[seat] += 1
                action = engine.fallback(seat)
                engine.apply(seat, action)
            applied.append(
                (seat, action if isinstance(action, Action) else Action(raw=str(action)))
            )
    return applied
