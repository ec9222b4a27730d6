"""Rules and payoffs of the item split, one test per termination path and refusal."""

from __future__ import annotations

import pytest

from arena.types import InvalidAction
from games.negotiation.split_rules import (
    SplitRules,
    complement,
    count_vectors,
    sample_scenario,
    utility,
)
from tests.games.negotiation.helpers import god, mover, split_engine


def test_scenarios_respect_the_generation_constraints() -> None:
    rules = SplitRules()
    for seed in range(300):
        e = split_engine(seed)
        c, (va, vb) = e.sc.counts, e.sc.values
        assert all(1 <= k <= 4 for k in c) and 5 <= sum(c) <= 7
        assert utility(va, c) == utility(vb, c) == rules.value_total
        assert all(a + b > 0 for a, b in zip(va, vb, strict=True))
        assert any(a > 0 and b > 0 for a, b in zip(va, vb, strict=True))
        assert va != vb


def test_scenario_is_a_pure_function_of_the_seed() -> None:
    import random

    rules = SplitRules()
    assert sample_scenario(random.Random(7), rules) == sample_scenario(random.Random(7), rules)
    assert len({split_engine(s).sc for s in range(50)}) > 40


def test_accepting_a_proposal_pays_each_side_its_values() -> None:
    e = split_engine(1)
    a = mover(e)
    e.apply(a, {"choice": "propose:" + "-".join(map(str, e.sc.counts)), "text": "All mine."})
    b = mover(e)
    assert b == 1 - a
    e.apply(b, "accept")
    out = e.outcome()
    assert out is not None and out.label == "agreement"
    assert out.rewards[a] == e.rules.value_total and out.rewards[b] == 0
    assert god(e, "result")["allocation"][b] == [0] * len(e.sc.counts)


def test_walk_away_ends_with_the_no_deal_payoff() -> None:
    e = split_engine(2, no_deal_payoff="private_batna")
    a = mover(e)
    e.apply(a, "walk_away")
    out = e.outcome()
    assert out.label == "walk_away" and out.reason == "walk_away"
    assert out.rewards == {0: e.sc.batna[0], 1: e.sc.batna[1]}
    assert all(1 <= d <= 5 for d in e.sc.batna)


def test_turn_cap_ends_with_no_deal_and_last_proposal_cannot_be_accepted() -> None:
    e = split_engine(3, max_turns=4)
    for _ in range(4):
        assert not e.is_over()
        e.apply(mover(e), "propose:" + "-".join("1" for _ in e.sc.counts))
    out = e.outcome()
    assert out.label == "no_deal" and out.reason == "turn_cap"
    assert out.rewards == {0: 0.0, 1: 0.0}


def test_counter_offer_clears_the_opponent_standing_offer() -> None:
    e = split_engine(4)
    a = mover(e)
    e.apply(a, "propose:0-0-0")
    b = mover(e)
    e.apply(b, "propose:1-1-1")
    assert e.standing[a] is None and e.standing[b] == (1, 1, 1)
    assert "accept" in e.decision(a).option_ids
    e.apply(a, "reject")
    assert e.standing[b] is None
    assert "accept" not in e.decision(b).option_ids


@pytest.mark.parametrize(
    "answer",
    [
        "accept",  # nothing on the table
        "reject",
        "propose:9-9-9",  # more items than exist
        '{"choice": "propose:9-0-0", "text": "greedy"}',
        "propose:-1-0-0",
        '{"choice": "accept"}',
    ],
)
def test_illegal_actions_are_refused_and_leave_the_state_unchanged(answer: str) -> None:
    e = split_engine(5)
    before = e.snapshot()
    n_log = len(e.log)
    with pytest.raises(InvalidAction):
        e.apply(mover(e), answer)
    assert len(e.log) == n_log
    assert e.snapshot() == before


def test_plain_text_is_talk_and_uses_up_the_turn() -> None:
    e = split_engine(6)
    a = mover(e)
    e.apply(a, "Hello, I mostly care about getting a fair deal.")
    assert mover(e) == 1 - a and e.turn == 2
    msg = [ev for ev in e.log if ev.type == "message"][-1]
    assert msg.payload["message"].startswith("Hello") and msg.actor == a


def test_talk_can_be_disabled() -> None:
    e = split_engine(6, allow_talk=False)
    with pytest.raises(InvalidAction):
        e.apply(mover(e), "just chatting")


def test_fallback_is_a_recorded_pass() -> None:
    e = split_engine(7)
    a = mover(e)
    e.apply(a, e.fallback(a))
    assert e.log[-1].type == "fallback_pass" and e.turn == 2


def test_selection_protocol_deals_only_when_selections_add_up() -> None:
    for matching in (True, False):
        e = split_engine(8, protocol="selection")
        e.apply(mover(e), {"choice": "end_dialogue", "text": "Let's select."})
        assert e.pending() == [0, 1] and e.decision(0).simultaneous
        x = tuple(1 for _ in e.sc.counts)
        y = complement(e.sc.counts, x) if matching else x
        e.apply(0, "keep:" + "-".join(map(str, x)))
        assert not e.is_over()
        e.apply(1, "keep:" + "-".join(map(str, y)))
        out = e.outcome()
        if matching:
            assert out.label == "agreement"
            assert out.rewards[0] == utility(e.sc.values[0], x)
        else:
            assert out.label == "selection_mismatch" and out.rewards == {0: 0.0, 1: 0.0}


def test_selection_starts_after_the_turn_cap() -> None:
    e = split_engine(9, protocol="selection", max_turns=2)
    e.apply(mover(e), "hi")
    e.apply(mover(e), "hello")
    assert e.stage == "selection"
    e.apply(0, "no_agreement")
    e.apply(1, e.fallback(1))
    assert e.outcome().label == "selection_mismatch"


def test_rule_errors_name_the_field() -> None:
    with pytest.raises(ValueError, match="max_turns"):
        SplitRules(max_turns=1)
    with pytest.raises(ValueError, match="item_types"):
        SplitRules(item_types=("book",))
    with pytest.raises(ValueError, match="total_items_range"):
        SplitRules(count_range=(1, 1), total_items_range=(9, 9))
    with pytest.raises(ValueError, match="bogus"):
        SplitRules(bogus=1)  # type: ignore[call-arg]


def test_five_item_variant_enumerates_all_keep_vectors() -> None:
    e = split_engine(10, item_types=("book", "hat", "ball", "pen", "cup"))
    opts = [o for o in e.decision(mover(e)).option_ids if o.startswith("propose:")]
    assert len(opts) == len(set(opts)) == __import__("math").prod(c + 1 for c in e.sc.counts)
    assert len(e.decision(mover(e)).options) <= e.max_options()
    assert count_vectors(5, (1, 4), (5, 7))
