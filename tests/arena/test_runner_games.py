"""Every registered game runs through the async runner with its bots: ends, deterministic,
interleaving-safe, and every observation holds only events its seat may see."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from arena import registry
from arena.agents import factory
from arena.agents.base import Agent
from arena.results import MatchSpec
from arena.runner import MatchRunner
from arena.sinks import MemorySink

GAMES = list(registry.games())  # every registered game, the toy game too


def bot_kinds(game: str) -> list[str]:
    bots = registry.bots(game)
    preferred = [k for k in ("rule", "random") if k in bots]
    return preferred or sorted(bots)[:2]


class Checked(Agent):
    """Wraps a bot and checks the observation contract on every decision (a failed check is
    kept and asserted after the match: the runner turns an agent's exception into a refusal)."""

    def __init__(self, inner: Agent) -> None:
        super().__init__(inner.name)
        self.inner = inner
        self.broken: list[int] = []

    def reset(self, context: Any) -> None:
        super().reset(context)
        self.inner.reset(context)

    async def act(self, observation: Any, decision: Any) -> Any:
        seat = observation.seat
        if not (
            all(e.delivered_to(seat) for e in observation.events)
            and all(f.known_by(seat) for f in observation.private)
        ):
            self.broken.append(seat)
        return await self.inner.act(observation, decision)


async def play(game: str, seed: int) -> tuple[str, list[dict[str, Any]]]:
    n = registry.engine_class(game)({}, seed=0).n_seats
    kinds = bot_kinds(game)
    seats = [kinds[s % len(kinds)] for s in range(n)]
    spec = MatchSpec(match_id=f"{game}-{seed}", game=game, seed=seed, seats=seats)
    sink = MemorySink()

    made: list[Checked] = []

    def make(entry: str, seat: int) -> Agent:
        made.append(Checked(factory.build(entry, entry, game)))
        return made[-1]

    result = await MatchRunner(spec, make, [sink]).run()
    assert result.status == "finished", result.reason
    assert not [s for a in made for s in a.broken]
    return result.outcome, [e.comparable() for e in sink.events]


@pytest.mark.parametrize("game", GAMES)
async def test_bots_finish_deterministic_and_interleaving_safe(game: str) -> None:
    seeds = [1, 2, 3]
    alone = [await play(game, s) for s in seeds]
    again = [await play(game, s) for s in seeds]
    together = await asyncio.gather(*(play(game, s) for s in seeds))
    assert alone == again == list(together)
    assert alone[0][1] != alone[1][1]  # different seeds, different games
