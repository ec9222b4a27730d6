"""Fallbacks of the negotiation games honour the invalid-action policy (negotiation.md §6).

A turn with a silent option becomes the spec's no-op turn, ``fallback_pass``, under either
policy; in a simultaneous step ``abstain`` takes the step's no-op (``reject``, ``no_bid``,
``drop``, ``no_agreement``) and ``random_legal`` a uniform legal choice, as the base engine does.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import pytest

from arena.results import InvalidActionPolicy, MatchSpec
from arena.runner import run_match
from tests.arena.toygame import StubbornAgent
from tests.games.negotiation.helpers import (
    auction_engine,
    mover,
    pie_engine,
    price_engine,
    split_engine,
)


def _to_vote(e: Any) -> Any:
    e.apply(mover(e), "allocate: 34, 33, 33")
    while e.decision(mover(e)).kind == "discuss":
        e.apply(mover(e), "pass")
    return e


def _to_selection(e: Any) -> Any:
    e.apply(mover(e), "end_dialogue")
    return e


# (engine at a simultaneous step, the step's no-op, its label)
SIMULTANEOUS = [
    (lambda s: _to_vote(pie_engine(s)), "reject", "reject"),
    (lambda s: auction_engine(s, pre_bid_talk_rounds=0), "no_bid", "no_bid"),
    (lambda s: auction_engine(s, pre_bid_talk_rounds=0, format="ascending"), "drop", "drop"),
    (
        lambda s: _to_selection(split_engine(s, protocol="selection")),
        "no_agreement",
        "no_agreement",
    ),
]


@pytest.mark.parametrize(("make", "noop", "label"), SIMULTANEOUS)
def test_abstain_takes_the_steps_no_op_and_random_legal_a_random_legal_option(
    make: Any, noop: str, label: str
) -> None:
    picks: Counter[str] = Counter()
    for seed in range(30):
        e = make(seed)
        seat = e.pending()[0]
        assert e.decision(seat).simultaneous
        fb = e.fallback(seat, "abstain")
        assert (fb.choices, fb.fallback) == ((noop,), label)
        rnd = e.fallback(seat, "random_legal")
        assert rnd.fallback == "random_legal"
        assert rnd.choices[0] in e.decision(seat).option_ids
        assert rnd == make(seed).fallback(seat, "random_legal")  # seeded: replays match
        picks[rnd.choices[0]] += 1
        e.apply(seat, rnd)
    assert len(picks) > 1 and picks[noop] < 30  # not the no-op in disguise


SEQUENTIAL = [
    (lambda s: price_engine(s), "negotiate"),
    (lambda s: pie_engine(s), "propose_allocation"),
    (lambda s: auction_engine(s), "talk"),
    (lambda s: split_engine(s), "negotiate"),
    (lambda s: split_engine(s, protocol="selection"), "dialogue"),
]


@pytest.mark.parametrize(("make", "kind"), SEQUENTIAL)
@pytest.mark.parametrize("policy", ["abstain", "random_legal"])
def test_a_turn_becomes_the_no_op_fallback_pass_under_either_policy(
    make: Any, kind: str, policy: str
) -> None:
    e = make(3)
    seat = mover(e)
    assert e.decision(seat).kind == kind
    fb = e.fallback(seat, policy)
    assert (fb.choices, fb.fallback) == (("pass",), "fallback_pass")
    events = e.apply(seat, fb)
    assert [ev.type for ev in events][:1] == ["fallback_pass"]
    assert not any(ev.type == "message" for ev in events)


def test_the_price_fallback_pass_uses_up_the_turn() -> None:
    e = price_engine(1)
    seller = mover(e)
    e.apply(seller, e.fallback(seller, "random_legal"))
    assert e.turn == 2 and mover(e) == 1 - seller
    assert e.log[-1].type == "fallback_pass"


def _auction_with_stubborn_bidders(policy: str) -> list[str]:
    outcomes = []
    for seed in range(8):
        spec = MatchSpec(match_id=f"fb-{seed}", game="auction", seed=seed, seats=["a", "b", "c"])
        agents = [StubbornAgent(f"s{i}", answer="bid:99999") for i in range(3)]
        policy_ = InvalidActionPolicy(retries=0, fallback=policy)  # type: ignore[arg-type]
        result = asyncio.run(run_match(spec, agents, policy=policy_))
        assert result.status == "finished" and all(s.fallbacks > 0 for s in result.seats)
        outcomes.append(result.outcome)
    return outcomes


def test_the_runner_passes_the_users_policy_to_the_auction() -> None:
    assert set(_auction_with_stubborn_bidders("abstain")) == {"no_sale"}
    assert "sale" in _auction_with_stubborn_bidders("random_legal")
