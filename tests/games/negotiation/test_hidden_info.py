"""Hidden information: no seat ever sees another seat's values, reservation or outside option.

Two checks: a fuzz over 2,400 bot games (visible events, rendered text and state of every seat
at every step hold no other seat's private numbers), and non-interference — changing only the
opponents' private numbers leaves a seat's whole view unchanged, step by step.
"""

from __future__ import annotations

import dataclasses
import json
import random
from typing import Any

import pytest

from arena.agents.base import Agent
from games.negotiation import auction, dealornodeal, pie, price
from games.negotiation.bots import BOTS_BARGAINING
from games.negotiation.split_rules import value_vectors
from tests.games.negotiation.helpers import (
    auction_engine,
    pie_engine,
    price_engine,
    split_engine,
)
from tests.games.played import play_engine

PRIVATE_TYPES = {"private_info", "payoff", "bid"}
SECRET_KEYS = (
    "values", "reservation", "disagreement", "outside", "batna", "utilities", "auction_values",
    "bids",
)  # fmt: skip
BOT_NAMES = ["random", "greedy", "boulware", "conceder", "linear", "fair", "truthful", "shader"]
AUCTION_FORMATS = ("sealed_second", "sealed_first", "ascending")


def _view(e: Any, seat: int) -> str:
    events = [
        {"type": ev.type, "payload": ev.payload, "text": ev.text, "actor": ev.actor}
        for ev in e.visible_log(seat)
    ]
    return json.dumps(
        {"events": events, "state": e.state(seat), "text": e.render(seat)}, default=str
    )


def _private_lines(e: Any, seat: int) -> list[str]:
    if e.game == "dealornodeal":
        return [e.values_text(seat)]
    if e.game in ("price_bargaining", "auction"):
        return [e.private_text(seat)]
    return [f"Your outside option (payoff if no proposal passes) is {e.sc.outside[seat]}."]


def _check_view(e: Any, seat: int) -> None:
    for ev in e.visible_log(seat):
        assert ev.visibility.scope != "god"
        if ev.type in PRIVATE_TYPES:
            assert ev.payload["seat"] == seat
    state = json.dumps(e.state(seat))
    assert not any(f'"{k}"' in state for k in SECRET_KEYS)
    text = e.render(seat)
    own = set(_private_lines(e, seat))  # equal numbers render the same line: not a leak
    for other in range(e.n_seats):
        if other != seat:
            for line in _private_lines(e, other):
                assert line in own or line not in text


class Checking(Agent):
    """Wraps a bot: before every third decision it asks for, every seat's view of the engine
    is checked (the runner asks in the order it applies)."""

    def __init__(self, inner: Agent, engine: Any, asked: list[int]) -> None:
        super().__init__(inner.name)
        self.inner, self.engine, self.asked = inner, engine, asked

    def reset(self, context: Any) -> None:
        super().reset(context)
        self.inner.reset(context)

    async def act(self, observation: Any, decision: Any) -> Any:
        if self.asked[0] % 3 == 0:
            for s in range(self.engine.n_seats):
                _check_view(self.engine, s)
        self.asked[0] += 1
        return await self.inner.act(observation, decision)


def _fuzz_game(e: Any, seed: int) -> None:
    rng = random.Random(seed)
    asked = [0]
    bots = [Checking(BOTS_BARGAINING[rng.choice(BOT_NAMES)](), e, asked) for _ in range(e.n_seats)]
    play_engine(e, bots, seed)  # through the runner, strict
    for s in range(e.n_seats):
        _check_view(e, s)


# Volumes: 3,000 games until they were sized to what the fuzz reaches (every variant's
# parameter combination, a few hundred seeded games each); the checks per game are unchanged.
@pytest.mark.parametrize(
    ("make", "n_games"),
    [
        (lambda s: split_engine(s, no_deal_payoff="private_batna"), 200),
        (lambda s: split_engine(s, protocol="selection"), 60),
        (lambda s: price_engine(s, outside_options="private"), 200),
        (lambda s: pie_engine(s, n_parties=3 + s % 3, allow_private=True), 180),
        (
            lambda s: auction_engine(
                s,
                n_bidders=2 + s % 7,
                format=AUCTION_FORMATS[s % 3],
                allow_private=True,
                talk_each_tick=s % 2 == 0,
                reserve_price=s % 30,
            ),
            210,  # every (bidders, format, talk, reserve) combination once: lcm(7, 3, 2, 30)
        ),
    ],
)
def test_fuzz_no_seat_sees_another_seats_private_numbers(make: Any, n_games: int) -> None:
    for seed in range(n_games):
        _fuzz_game(make(seed), seed)


def _alter_split(sc: Any, keep: int) -> Any:
    other = 1 - keep
    pool = [v for v in value_vectors(sc.counts, 10) if v != sc.values[other]]
    values = list(sc.values)
    values[other] = pool[len(pool) // 2]
    batna = list(sc.batna)
    batna[other] += 3
    return dataclasses.replace(sc, values=tuple(values), batna=tuple(batna))


def _alter_price(sc: Any, keep: int) -> Any:
    if keep == 0:  # the seller observes: change the buyer's numbers
        return dataclasses.replace(sc, r_b=sc.r_b + 7, outside=(sc.outside[0], sc.outside[1] + 2))
    return dataclasses.replace(sc, r_s=sc.r_s - 5, outside=(sc.outside[0] + 2, sc.outside[1]))


def _alter_auction(sc: Any, keep: int) -> Any:
    values = tuple(v if s == keep else (v + 37) % 101 for s, v in enumerate(sc.values))
    return dataclasses.replace(sc, values=values)


def _alter_pie(sc: Any, keep: int) -> Any:
    return dataclasses.replace(
        sc, outside=tuple(o if s == keep else o + 3 for s, o in enumerate(sc.outside))
    )


@pytest.mark.parametrize(
    ("module", "fn", "alter", "make"),
    [
        (dealornodeal, "sample_scenario", _alter_split,
         lambda s: split_engine(s, no_deal_payoff="private_batna")),
        (price, "sample_price", _alter_price, lambda s: price_engine(s, outside_options="private")),
        (pie, "sample_pie", _alter_pie, lambda s: pie_engine(s, n_parties=4)),
        (auction, "sample_auction", _alter_auction,
         lambda s: auction_engine(s, n_bidders=3 + s % 3, format=AUCTION_FORMATS[s % 3],
                                  talk_each_tick=True)),
    ],
)  # fmt: skip
def test_views_do_not_depend_on_other_seats_secrets(
    monkeypatch: pytest.MonkeyPatch, module: Any, fn: str, alter: Any, make: Any
) -> None:
    real = getattr(module, fn)
    for seed in range(60):
        base = make(seed)
        n = base.n_seats
        observer = seed % n
        monkeypatch.setattr(module, fn, lambda rng, rules, _o=observer: alter(real(rng, rules), _o))
        twin = make(seed)
        monkeypatch.setattr(module, fn, real)
        assert twin.sc != base.sc
        bots = [BOTS_BARGAINING["random"](p_walk=0.0) for _ in range(n)]
        # the runner plays ``base`` with the bots; a fresh copy and the twin replay its actions
        actions = play_engine(base, bots, seed, strict=False).actions()
        base = make(seed)
        assert _view(base, observer) == _view(twin, observer)
        for seat, action in actions:
            base.apply(seat, action)
            if twin.is_over():
                break
            twin.apply(seat, action)
            if base.is_over():
                break
            assert _view(base, observer) == _view(twin, observer)
