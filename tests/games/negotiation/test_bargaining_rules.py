"""Rules and payoffs of the price bargain and the pie division."""

from __future__ import annotations

import pytest

from arena.types import InvalidAction
from games.negotiation.bargaining import BargainingRules
from games.negotiation.pie_rules import PieRules
from games.negotiation.price_rules import BUYER, SELLER, PriceRules
from tests.games.negotiation.helpers import god, mover, pie_engine, price_engine


def test_reservations_follow_the_zopa_prior() -> None:
    zopas = []
    for seed in range(400):
        sc = price_engine(seed).sc
        assert 40 <= sc.r_s <= 120 and 0 <= sc.r_b <= 200
        assert sc.zopa >= 10 or -30 <= sc.zopa <= -1
        zopas.append(sc.zopa > 0)
    assert 0.7 < sum(zopas) / len(zopas) < 0.9


def test_seller_moves_first_and_a_deal_pays_the_surplus_split() -> None:
    e = price_engine(1)
    assert mover(e) == SELLER
    e.apply(SELLER, {"choice": "offer:150", "text": "Fine item."})
    e.apply(BUYER, "accept")
    out = e.outcome()
    assert out.label == "agreement"
    assert out.rewards == {SELLER: 150 - e.sc.r_s, BUYER: e.sc.r_b - 150}


def test_discount_shrinks_payoffs_per_round() -> None:
    e = price_engine(2, discount=0.5)
    e.apply(SELLER, "offer:100")
    e.apply(BUYER, "offer:90")  # round 1
    e.apply(SELLER, "offer:95")  # turn 3: round 2
    e.apply(BUYER, "accept")  # turn 4: round 2
    out = e.outcome()
    assert god(e, "result")["round"] == 2
    assert out.rewards[SELLER] == pytest.approx((95 - e.sc.r_s) * 0.5)
    assert out.rewards[BUYER] == pytest.approx((e.sc.r_b - 95) * 0.5)


def test_walk_away_and_turn_cap_pay_the_outside_options() -> None:
    e = price_engine(3, outside_options="private")
    e.apply(SELLER, "walk_away")
    assert e.outcome().label == "walk_away"
    assert e.outcome().rewards == {0: e.sc.outside[0], 1: e.sc.outside[1]}
    e = price_engine(3, max_turns=3)
    for _ in range(3):
        e.apply(mover(e), "offer:100")
    assert e.outcome().label == "no_deal" and e.outcome().reason == "turn_cap"


@pytest.mark.parametrize(
    "answer", ["accept", "offer:-5", "offer:201", '{"choice": "offer:-1"}', "offer: 12.5"]
)
def test_bad_offers_are_refused(answer: str) -> None:
    e = price_engine(4)
    before = e.snapshot()
    with pytest.raises(InvalidAction):
        e.apply(SELLER, answer)
    assert e.snapshot() == before


def test_block_irrational_accept_refuses_a_losing_accept() -> None:
    e = price_engine(5, block_irrational_accept=True)
    e.apply(SELLER, f"offer:{e.sc.r_b + 1}")  # the buyer would lose 1
    assert "accept" not in e.decision(BUYER).option_ids
    with pytest.raises(InvalidAction):
        e.apply(BUYER, "accept")
    e2 = price_engine(5)
    e2.apply(SELLER, f"offer:{e2.sc.r_b + 1}")
    e2.apply(BUYER, "accept")  # allowed without the flag: negative payoff
    assert e2.outcome().rewards[BUYER] == -1


def test_price_flags_are_checked_and_named() -> None:
    with pytest.raises(ValueError, match="n_parties"):
        PriceRules(n_parties=4)
    with pytest.raises(ValueError, match="max_turns"):
        PieRules(max_turns=4)
    with pytest.raises(ValueError, match="price_range"):
        PriceRules(price_range=(-10, 10))
    with pytest.raises(ValueError, match="discount"):
        PriceRules(discount=0)
    # the old id checks the flags with the rule set of the game its mode names
    with pytest.raises(ValueError, match="n_parties"):
        BargainingRules(n_parties=4)
    with pytest.raises(ValueError, match="max_turns"):
        BargainingRules(mode="pie", max_turns=4)
    with pytest.raises(ValueError, match="price_range"):
        BargainingRules(price_range=(-10, 10))
    with pytest.raises(ValueError, match="discount"):
        BargainingRules(discount=0)


def _vote_all(e, vote: str) -> None:  # type: ignore[no-untyped-def]
    while e.pending() and e.decision(e.pending()[0]).kind == "discuss":
        e.apply(e.pending()[0], "pass")
    for s in e.pending():
        e.apply(s, vote)


def test_pie_proposal_passes_with_unanimity_and_pays_the_shares() -> None:
    e = pie_engine(1)
    p = mover(e)
    e.apply(p, "allocate: 50, 25, 25\nLet us be quick.")
    assert e.decision(mover(e)).kind == "discuss"
    _vote_all(e, "accept")
    out = e.outcome()
    assert out.label == "agreement" and out.rewards == {0: 50, 1: 25, 2: 25}


def test_pie_failed_rounds_rotate_the_proposer_and_end_with_outside_options() -> None:
    e = pie_engine(2, max_rounds=2, discussion_passes=0, discount=0.9)
    first = mover(e)
    e.apply(first, "allocate: 34 33 33")
    e.apply(e.pending()[0], "reject")
    e.apply(e.pending()[0], "accept")
    assert e.round == 2 and mover(e) == (first + 1) % 3
    e.apply(mover(e), "pass")
    out = e.outcome()
    assert out.label == "no_deal"
    assert out.rewards == {s: float(o) for s, o in enumerate(e.sc.outside)}


def test_pie_majority_quota_and_discount() -> None:
    e = pie_engine(3, n_parties=5, quota="majority", discussion_passes=0, discount=0.5)
    e.apply(mover(e), "pass")  # round 1 wasted
    p = mover(e)
    e.apply(p, "allocate: 20, 20, 20, 20, 20")
    votes = iter(["accept", "accept", "reject", "reject"])
    for s in list(e.pending()):
        e.apply(s, next(votes))
    out = e.outcome()
    assert out.label == "agreement" and all(v == 10.0 for v in out.rewards.values())


@pytest.mark.parametrize(
    "answer",
    [
        "allocate: 50, 50",
        "allocate: 120, -10, -10",
        "allocate: 40, 40, 40",
        "I want more",
        "allocate: a, b, c",
    ],
)
def test_pie_malformed_allocations_are_refused(answer: str) -> None:
    e = pie_engine(4)
    with pytest.raises(InvalidAction):
        e.apply(mover(e), answer)


def test_pie_private_messages_reach_only_the_recipient() -> None:
    e = pie_engine(5, allow_private=True)
    e.apply(mover(e), "allocate: 34, 33, 33")
    speaker = mover(e)
    target = next(s for s in range(3) if s != speaker)
    outsider = 3 - speaker - target
    e.apply(speaker, {"choice": f"to:{target}", "text": "Vote no with me."})
    msg = e.log[-1]
    assert msg.visibility.visible_to(target) and msg.visibility.visible_to(speaker)
    assert not msg.visibility.visible_to(outsider)
    assert "Vote no" not in e.render(outsider)
    with pytest.raises(InvalidAction):
        e.apply(mover(e), {"choice": f"to:{speaker}"})
