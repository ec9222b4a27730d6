"""The planner: how sure each adjacent order is, and where more matches go."""

from __future__ import annotations

import random

import pytest

from arena.ratings import planner
from arena.results import MatchResult, SeatResult


def head_to_head(i: int, a: str, b: str, a_wins: bool) -> MatchResult:
    seats = [
        SeatResult(seat=0, name="P0", agent=a, team="x", role="r", reward=1.0 if a_wins else 0.0,
                   result="win" if a_wins else "loss"),
        SeatResult(seat=1, name="P1", agent=b, team="y", role="r", reward=0.0 if a_wins else 1.0,
                   result="loss" if a_wins else "win"),
    ]  # fmt: skip
    return MatchResult(match_id=f"m{i}", game="g", seed=i, index=i, status="finished",
                       outcome="x", seats=seats)  # fmt: skip


def ladder(per_pair: int, p_upper: float = 0.85, seed: int = 1) -> list[MatchResult]:
    """a > b > c: the better entry of each pair wins with ``p_upper``, sides alternating."""
    rng = random.Random(seed)
    out: list[MatchResult] = []
    for a, b in (("a", "b"), ("b", "c"), ("a", "c")):
        for k in range(per_pair):
            win = rng.random() < p_upper
            x, y = (a, b) if k % 2 == 0 else (b, a)
            out.append(head_to_head(len(out), x, y, win if x == a else not win))
    return out


def test_a_clear_order_is_settled_and_needs_no_more_matches() -> None:
    plan = planner.pairs(ladder(60), confidence=0.95, resamples=300)
    assert [(p["above"], p["below"]) for p in plan] == [("a", "b"), ("b", "c")]
    assert all(p["settled"] and p["p_order"] >= 0.95 for p in plan)
    assert all(p["more"] == 0 and p["mdd"] < p["gap"] for p in plan)
    assert planner.allocate(plan, ladder(60), 10) == []


def test_a_thin_sample_is_unsettled_and_the_unsure_entries_get_the_matches() -> None:
    results = ladder(3)
    plan = planner.pairs(results, confidence=0.95, resamples=300)
    assert not all(p["settled"] for p in plan)  # 6 matches per entry: below the minimum
    assert all(p["more"] is None or p["more"] > 0 for p in plan if not p["settled"])
    chosen = planner.allocate(plan, results, 12)
    assert len(chosen) == 12
    unsure = {e for p in plan if not p["settled"] for e in (p["above"], p["below"])}
    assert all(a in unsure or b in unsure for a, b in chosen)


def test_a_budget_buys_the_least_sure_pairs_first_at_their_recorded_cost() -> None:
    costs = {"a": (0.02, 1000.0), "b": (0.02, 1000.0), "c": (0.0, 0.0)}
    plan = planner.pairs(ladder(4), confidence=0.99, resamples=300, match_cost=costs)
    bought = planner.within_budget(plan, 0.5)
    assert sum(b["usd"] for b in bought) <= 0.5
    open_pairs = [p for p in plan if not p["settled"] and p["more"] is not None]
    if open_pairs:
        least = min(open_pairs, key=lambda p: p["p_order"])
        assert (bought[0]["above"], bought[0]["below"]) == (least["above"], least["below"])


def test_a_settled_pair_needs_no_more_matches_even_when_its_mdd_exceeds_its_gap() -> None:
    """The order is sure at the confidence (gap past z_c·se) while the MDD, which also asks
    for 80% power, is larger than the gap: settled means no more matches and nothing to pay."""
    costs = {"a": (0.02, 1000.0), "b": (0.02, 1000.0), "c": (0.0, 0.0)}
    plan = planner.pairs(ladder(12, 0.75, 1), confidence=0.95, resamples=300, match_cost=costs)
    settled = [p for p in plan if p["settled"]]
    assert any(p["mdd"] > p["gap"] for p in settled)  # the case a user met
    assert settled and all(p["more"] == 0 for p in settled)
    assert all(p["cost_usd"] == 0 and p["tokens"] == 0 for p in settled)
    bought = {(b["above"], b["below"]) for b in planner.within_budget(plan, 10.0)}
    assert not bought & {(p["above"], p["below"]) for p in settled}


def test_settled_pairs_hold_the_whole_order_at_the_confidence() -> None:
    """Each of m adjacent pairs is settled at 1 - (1 - c)/m, so that the whole order holds at c:
    here a pair sure at 0.96 is not settled on a board of two pairs at 0.95."""
    plan = planner.pairs(ladder(12, 0.75, 1), confidence=0.95, resamples=300)
    level = planner.pair_confidence(0.95, len(plan))
    assert level == pytest.approx(0.975)
    assert any(0.95 <= p["p_order"] < level for p in plan)  # the case: sure alone, not together
    assert all(p["settled"] == (p["p_order"] >= level) for p in plan)


def fixed(records: dict[tuple[str, str], tuple[int, int]]) -> list[MatchResult]:
    """Head-to-heads with exactly these records ((a, b) -> (a's wins, matches)), sides
    alternating."""
    out: list[MatchResult] = []
    for (a, b), (wins, n) in records.items():
        for k in range(n):
            x, y = (a, b) if k % 2 == 0 else (b, a)
            a_wins = k < wins
            out.append(head_to_head(len(out), x, y, a_wins if x == a else not a_wins))
    return out


# b and c split their head-to-head, while the field tells them apart (b beats d far more often
# than c does); a is far above and d far below both.
SPLIT = {("a", "b"): (16, 20), ("a", "c"): (19, 20), ("a", "d"): (20, 20), ("b", "c"): (10, 20),
         ("b", "d"): (19, 20), ("c", "d"): (14, 20)}  # fmt: skip


def test_neighbours_that_split_their_head_to_head_are_compared_on_the_field() -> None:
    results = fixed(SPLIT)
    plan = planner.pairs(results, confidence=0.9, resamples=300)
    assert [p["above"] for p in plan] == ["a", "b", "c"]
    unsure = [(p["above"], p["below"]) for p in plan if not p["settled"]]
    assert ("b", "c") in unsure
    chosen = planner.allocate(plan, results, 40, explore=0.0)
    count = {pair: chosen.count(pair) for pair in set(chosen)}
    assert count.get(("b", "c"), 0) == 0  # an even head-to-head cannot confirm the order
    # the common opponent that tells them apart does, and it plays both of them
    assert count.get(("b", "d"), 0) > 0 and count.get(("c", "d"), 0) > 0
    assert len(chosen) == 40


def test_every_pair_keeps_meeting_through_the_exploration_share() -> None:
    results = fixed({**SPLIT, ("a", "d"): (3, 3)})  # a and d met least
    plan = planner.pairs(results, confidence=0.9, resamples=300)
    chosen = planner.allocate(plan, results, 10)  # a tenth of 10: one match to explore
    assert chosen.count(("a", "d")) >= 1
    assert len(chosen) == 10


def test_two_keys_that_never_differ_are_too_close_not_settled() -> None:
    # per role in head-to-heads, two roles always held by the same entry fit the same: gap 0
    # and no spread; no number of matches tells them apart
    assert planner._more(20, 0.0, 0.0, 2.8) is None
    assert planner._more(20, 1.0, 0.0, 2.8) == 0
