"""Bot matches for the game tests, played by the one match loop (``arena.runner``).

Bots see what they see under ``arena run``: the same observations, private facts and seeds.
``strict`` (the default) lets no answer be refused: the first refusal falls back at once and
the helper fails with the runner's own error text, which is how the tests prove a bot legal.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from arena import registry
from arena.agents.base import Agent
from arena.engine import RulesEngine
from arena.events import Event
from arena.results import InvalidActionPolicy, MatchResult, MatchSpec
from arena.runner import MatchRunner
from arena.sinks import EventSink
from arena.types import Action

STRICT = InvalidActionPolicy(retries=0, timeout_s=None)
LENIENT = InvalidActionPolicy(timeout_s=None)

# (entry name, seat) -> agent, as MatchRunner takes it
SeatAgent = Callable[[str, int], Agent]


@dataclass
class Played:
    """A finished match: the runner (engine, agents, record) and its result."""

    runner: MatchRunner
    result: MatchResult

    @property
    def engine(self) -> Any:
        return self.runner.engine

    @property
    def agents(self) -> list[Agent]:
        return self.runner.agents

    @property
    def events(self) -> list[Event]:
        """The whole record: engine events and the runner's god-only notes."""
        return self.runner.recorder.events

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [e.payload for e in self.events if e.type == kind]

    def decisions(self) -> list[dict[str, Any]]:
        """Every applied answer: ``{"kind", "action", "actor"}`` in the order applied."""
        return [{**e.payload, "actor": e.actor} for e in self.events if e.type == "decision"]

    def refusals(self) -> list[dict[str, Any]]:
        return self.of_type("invalid_action") + self.of_type("fallback")

    def actions(self) -> list[tuple[int, Action]]:
        """The applied actions rebuilt from the record, to replay the match on an engine."""
        return [
            (
                e.actor,
                Action(
                    seat=e.actor,
                    choices=tuple(e.payload["action"].get("choices", ())),
                    text=e.payload["action"].get("text"),
                    belief=e.payload["action"].get("belief"),
                    fallback=e.payload["action"].get("fallback"),
                ),
            )
            for e in self.events
            if e.type == "decision" and e.actor is not None
        ]


def play(
    game: str,
    rules: dict[str, Any],
    seed: int,
    agents: SeatAgent | list[Agent],
    *,
    by_team: dict[str, str] | None = None,
    seats: list[str] | None = None,
    strict: bool = True,
    sinks: list[EventSink] | None = None,
    engine: RulesEngine[Any] | None = None,
) -> Played:
    """Play one match of ``game`` through ``MatchRunner.play``.

    ``agents``: a list (one per seat) or ``(entry, seat) -> Agent``; entries come from
    ``seats`` or, with ``by_team`` (team -> entry), from the dealt teams."""
    # built as the runner would build it; made here to know the seat count
    engine = engine or registry.engine_class(game)(rules, seed=seed)
    if seats is None and isinstance(agents, list):
        seats = [a.name for a in agents]
    if seats is None and by_team is None:  # a factory that ignores the entry name
        seats = [f"seat{s}" for s in range(engine.n_seats)]
    spec = MatchSpec(
        match_id=f"{game}-{seed}",
        game=game,
        rules=rules,
        seed=seed,
        seats=seats or [],
        by_team=by_team,
    )
    runner = MatchRunner(spec, agents, sinks, STRICT if strict else LENIENT, engine)
    result = runner.play()
    played = Played(runner, result)
    if strict:
        assert result.status == "finished", (game, rules, seed, result.status, result.reason)
        assert not played.refusals(), (game, rules, seed, played.refusals()[:3])
    return played


def play_engine(
    engine: RulesEngine[Any], agents: SeatAgent | list[Agent], seed: int, **kw: Any
) -> Played:
    """:func:`play` on an engine built by the caller (its rules; ``seed`` seeds the agents)."""
    rules = engine.rules.model_dump(mode="json")
    return play(engine.game, rules, seed, agents, engine=engine, **kw)
