"""``slip`` on every game's rule bot: a random legal move instead, from the bot's own streams."""

from __future__ import annotations

from typing import Any

import pytest

from arena import registry
from arena.agents import factory
from arena.agents.base import Agent
from arena.agents.random_agent import RandomAgent
from arena.agents.slip import Slip, slip_probability
from arena.types import Decision, Option
from games import catalog
from tests.games.played import play

GAMES = sorted(info.game for info in catalog.GAMES)  # the shipped games, not test-only ones


def rule_kind(game: str) -> str:
    return "rule" if "rule" in registry.bots(game) else "card_reader"


def first_variant(game: str) -> dict[str, Any]:
    return next(iter((registry.games()[game].variants or {"default": {}}).values()))


def bots(game: str, slip: float | None) -> list[Agent]:
    n = registry.engine_class(game)(first_variant(game), seed=0).n_seats
    params = {} if slip is None else {"slip": slip}
    return [factory.build(f"b{s}", rule_kind(game), game, params) for s in range(n)]


def record(game: str, slip: float | None, seed: int) -> list[tuple[Any, ...]]:
    played = play(game, first_variant(game), seed, bots(game, slip))  # strict: none refused
    return [(d["actor"], d["kind"], str(d["action"])) for d in played.decisions()]


@pytest.mark.parametrize("game", GAMES)
def test_slip_zero_plays_exactly_as_before_and_slips_play_legal_seeded_moves(game: str) -> None:
    default = record(game, None, 3)
    assert record(game, 0.0, 3) == default  # the rule play's RNG stream is untouched
    slipped = record(game, 0.5, 3)
    assert slipped == record(game, 0.5, 3)  # seeded: the same match twice alike
    assert any(record(game, 0.5, seed) != record(game, None, seed) for seed in (3, 4, 5))


@pytest.mark.parametrize("bad", [-0.1, 1.5, float("nan"), "half", True, None])
def test_slip_must_be_a_probability(bad: Any) -> None:
    with pytest.raises(ValueError, match="slip must be a probability"):
        slip_probability(bad)
    with pytest.raises(ValueError, match="slip must be a probability"):
        factory.build("x", "rule", "werewolf", {"slip": bad})


async def test_slip_one_always_moves_randomly_and_never_slips_a_belief_or_exempt_kind() -> None:
    from arena.agents.base import MatchContext
    from arena.types import Observation

    context = MatchContext(
        game="g", match_id="m", seat=0, name="a", names=["a"], seed=5, team_seed=1
    )
    always = Slip(1.0, RandomAgent, "a", exempt=("probe",))
    always.reset(context)
    obs = Observation(game="g", seat=0, name="a", phase="p")
    vote = Decision(kind="vote", options=[Option(id=str(i)) for i in range(4)])
    moves = [await always.move(obs, vote) for _ in range(50)]
    assert all(m is not None for m in moves)
    assert len({str(m) for m in moves}) > 1  # uniform over the options, not a fixed one
    belief = Decision(kind="belief", belief_only=True, free_text=True)
    assert await always.move(obs, belief) is None
    assert await always.move(obs, Decision(kind="probe", free_text=True)) is None
    never = Slip(0.0, RandomAgent, "a")
    never.reset(context)
    assert [await never.move(obs, vote) for _ in range(20)] == [None] * 20
    # a quarter of decisions slip, seeded by the context: the same draws for the same seed
    quarter = [Slip(0.25, RandomAgent, "a") for _ in range(2)]
    for s in quarter:
        s.reset(context)
    draws = [[s.now(vote) for _ in range(400)] for s in quarter]
    assert draws[0] == draws[1] and 60 < sum(draws[0]) < 140
