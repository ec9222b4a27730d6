"""Malformed belief reports are invalid actions, in every game that asks for beliefs.

A belief answer that is not a mapping of player -> probability (a string, a list, numbers out
of [0, 1], names of nobody, a bare sentence, an empty report) is refused as an invalid action:
re-asked, then the configured fallback, each step an event. It never raises out of the engine
or the env (it used to raise a pydantic error, reported as "the agent raised") and is never
taken as a pass. Parametrised over every registered game and variant, with no per-game code.
"""

from __future__ import annotations

import json
from typing import Any

import pettingzoo
import pytest

from arena import registry
from arena.agents import factory
from arena.agents.base import Agent, MatchContext
from arena.results import InvalidActionPolicy, MatchSpec
from arena.runner import MatchRunner
from arena.types import Decision, InvalidAction, Observation

MALFORMED: list[Any] = [
    '{"belief": {"1": "very likely"}}',
    {"belief": {"1": [0.5]}},
    {"belief": {"1": {"p": 0.5}}},
    {"belief": {"1": True}},
    {"belief": {"1": 1.5}},
    {"belief": {"1": "nan"}},
    {"belief": "everyone is good"},
    {"belief": ["1", 0.5]},
    {"belief": {}},
    {"belief": {"nobody-at-all": 0.5}},
    '{"belief": {"²": 0.5}}',
    "I think seat 2 is suspicious",
    "{not json at all",
]

VARIANTS = [
    (game, name, rules)
    for game, info in registry.games().items()
    for name, rules in (info.variants or {"default": {}}).items()
]


class GarbageBeliefs(Agent):
    """The game's random bot, except that every belief report is malformed."""

    kind = "garbage_beliefs"

    def __init__(self, game: str, name: str | None = None) -> None:
        super().__init__(name)
        self.inner = factory.build("random", "random", game)
        self.sent = 0

    def reset(self, context: MatchContext) -> None:
        super().reset(context)
        self.inner.reset(context)

    async def act(self, observation: Observation, decision: Decision) -> Any:
        if decision.belief_only:
            self.sent += 1
            return MALFORMED[(self.sent - 1) % len(MALFORMED)]
        return await self.inner.act(observation, decision)


def play(game: str, rules: dict[str, Any], seed: int) -> tuple[Any, MatchRunner]:
    engine = registry.engine_class(game)(rules, seed=seed)
    n = engine.n_seats
    spec = MatchSpec(match_id=f"{game}-{seed}", game=game, rules=rules, seed=seed, seats=["g"] * n)
    agents = [GarbageBeliefs(game, f"g{s}") for s in range(n)]
    policy = InvalidActionPolicy(retries=10, fallback="random_legal")
    runner = MatchRunner(spec, agents, [], policy, engine=engine)
    import asyncio

    return asyncio.run(runner.run()), runner


def belief_variants() -> list[tuple[str, str, dict[str, Any]]]:
    """The games and variants whose matches ask for belief reports (found by playing one)."""
    out = []
    for game, name, rules in VARIANTS:
        _, runner = play(game, rules, seed=1)
        if any(a.sent for a in runner.agents if isinstance(a, GarbageBeliefs)):
            out.append((game, name, rules))
    return out


BELIEF_VARIANTS = belief_variants()


def test_the_belief_games_are_found() -> None:
    assert {"werewolf", "avalon"} <= {game for game, _, _ in BELIEF_VARIANTS}


@pytest.mark.parametrize(
    ("game", "variant", "rules"), BELIEF_VARIANTS, ids=[f"{g}-{v}" for g, v, _ in BELIEF_VARIANTS]
)
def test_malformed_beliefs_are_invalid_actions_under_the_runner(
    game: str, variant: str, rules: dict[str, Any]
) -> None:
    result, runner = play(game, rules, seed=2)
    assert result.status == "finished", result.reason
    events = runner.recorder.events
    kinds = {e.payload["kind"] for e in events if e.type == "decision"}
    refused = [
        e for e in events if e.type == "invalid_action" and e.payload["decision"] == "belief"
    ]
    fallbacks = [e for e in events if e.type == "fallback"]
    assert refused and fallbacks
    assert not [e for e in refused if "agent raised" in e.payload["error"]]
    sent = sum(a.sent for a in runner.agents if isinstance(a, GarbageBeliefs))
    assert len(refused) == sent  # every malformed report refused, none taken as a pass
    assert not [e for e in events if e.type == "belief_report"]
    assert "belief" in kinds  # the fallback answered each belief decision


@pytest.mark.parametrize(
    ("game", "variant", "rules"), BELIEF_VARIANTS, ids=[f"{g}-{v}" for g, v, _ in BELIEF_VARIANTS]
)
def test_malformed_beliefs_are_refused_by_the_engine_and_the_env(
    game: str, variant: str, rules: dict[str, Any]
) -> None:
    engine = registry.engine_class(game)(rules, seed=3)
    bots = [factory.build("random", "random", game) for _ in range(engine.n_seats)]
    from arena.runner import MatchRunner as Runner

    spec = MatchSpec(match_id="m", game=game, rules=rules, seed=3, seats=["r"] * engine.n_seats)
    runner = Runner(spec, bots, [], engine=engine)
    checked = 0
    steps = 0
    import asyncio

    for b, s in zip(bots, range(engine.n_seats), strict=True):
        b.reset(MatchContext(game=game, match_id="m", seat=s, name=f"r{s}",
                             names=engine.names, seed=s, team_seed=0, rules=rules))  # fmt: skip
    while not engine.is_over() and steps < 20_000:
        seat = engine.pending()[0]
        decision = engine.current_decision(seat)
        if decision.belief_only:
            before = json.dumps(engine.snapshot(), sort_keys=True, default=str)
            for raw in MALFORMED:
                with pytest.raises(InvalidAction):
                    engine.apply(seat, raw)
                assert json.dumps(engine.snapshot(), sort_keys=True, default=str) == before
            checked += 1
        answer = asyncio.run(bots[seat].act(runner.observation(seat), decision))
        engine.apply(seat, answer)
        steps += 1
    assert checked > 0


@pytest.mark.parametrize(
    ("game", "variant", "rules"), BELIEF_VARIANTS, ids=[f"{g}-{v}" for g, v, _ in BELIEF_VARIANTS]
)
def test_malformed_beliefs_never_raise_out_of_env_step(
    game: str, variant: str, rules: dict[str, Any]
) -> None:
    env = pettingzoo.make("aec", registry.get(game).env_id, **rules, invalid_retries=0)
    env.reset(seed=3)
    engine = env.unwrapped.engine
    sent = 0
    for _agent in env.agent_iter(max_iter=50_000):
        _, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = info["seat"]
        if info.get("pending") and engine.current_decision(seat).belief_only:
            raw = MALFORMED[sent % len(MALFORMED)]
            env.step(raw if isinstance(raw, str) else json.dumps(raw))  # refused: the fallback
            sent += 1
            continue
        env.step(",".join(info["legal"][: max(1, info["min_choices"])]))
    assert sent > 0
    refused = [f for f in env.unwrapped.fallbacks if f["error"]]
    assert len(refused) == sent
