"""The planner: how sure each adjacent order is, and where more matches go."""

from __future__ import annotations

import random

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
    assert planner.allocate(plan, 10) == []


def test_a_thin_sample_is_unsettled_and_the_unsure_entries_get_the_matches() -> None:
    plan = planner.pairs(ladder(3), confidence=0.95, resamples=300)
    assert not all(p["settled"] for p in plan)  # 6 matches per entry: below the minimum
    assert all(p["more"] is None or p["more"] > 0 for p in plan if not p["settled"])
    chosen = planner.allocate(plan, 12)
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
