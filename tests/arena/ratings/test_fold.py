"""The incremental fold gives exactly the from-scratch ratings, whatever order results arrive in."""

from __future__ import annotations

import gc
import random
import types

import pytest

from arena.live.status import leaderboard_doc
from arena.ratings.fold import RatingFold, key_of
from arena.ratings.leaderboard import SIDE, rate
from arena.results import MatchResult, SeatResult
from tests.builders import FOLD_AGENTS, completion_order, from_scratch, werewolf_like, without_ts


def free_for_all(i: int, rng: random.Random) -> MatchResult:
    """Three players each on its own team, real-valued rewards and ties (a negotiation)."""
    agents = rng.sample(FOLD_AGENTS, 3)
    rewards = [round(rng.uniform(-1, 1), 6) for _ in agents]
    if rng.random() < 0.15:
        rewards = [0.25, 0.25, 0.25]  # everyone ties: a draw
    best = max(rewards)
    seats = [
        SeatResult(
            seat=s,
            name=f"P{s}",
            agent=a,
            team=f"p{s}",
            role="player",
            reward=r,
            result="draw" if len(set(rewards)) == 1 else ("win" if r == best else "loss"),
        )
        for s, (a, r) in enumerate(zip(agents, rewards, strict=True))
    ]
    return MatchResult(
        match_id=f"bargain-m{i:05d}",
        game="bargaining",
        seed=i,
        index=i,
        status="finished",
        outcome="deal",
        seats=seats,
    )


@pytest.mark.parametrize("make", [werewolf_like, free_for_all])
@pytest.mark.parametrize("seed", [0, 1])
def test_folding_batches_as_they_finish_equals_rating_from_scratch(make, seed: int) -> None:  # type: ignore[no-untyped-def]
    rng = random.Random(seed)
    results = [make(i, rng) for i in range(150)]
    arrivals = completion_order(results, window=16, rng=rng)
    fold = RatingFold()
    seen: list[MatchResult] = []
    at = checks = 0
    while at < len(arrivals):
        batch = arrivals[at : at + rng.randint(1, 9)]
        at += len(batch)
        seen.extend(batch)
        assert fold.add(batch) == len(batch)
        if len(seen) >= 30 * checks or at == len(arrivals):  # from scratch is the slow part
            checks += 1
            assert without_ts(leaderboard_doc(fold)) == from_scratch(seen)
    assert checks >= 5
    assert len(fold) == len(results)
    assert fold.ratings_at(len(results)) == {
        k: v for k, v in rate(results).items() if not k.startswith(SIDE)
    }


def test_any_arrival_order_and_repeats_give_the_same_numbers() -> None:
    rng = random.Random(7)
    results = [werewolf_like(i, rng) for i in range(100)]
    shuffled = results[:]
    rng.shuffle(shuffled)
    fold = RatingFold()
    for i in range(0, len(shuffled), 13):
        fold.add(shuffled[i : i + 13])
        fold.add(shuffled[: i + 13])  # results already folded are ignored
    assert len(fold) == len(results)
    assert without_ts(leaderboard_doc(fold)) == from_scratch(results)


def test_an_empty_fold_has_no_rows_and_no_history() -> None:
    assert without_ts(leaderboard_doc(RatingFold())) == from_scratch([])


def fold_as_a_run(results: list[MatchResult], seed: int) -> RatingFold:
    """Fold ``results`` as a run with 16 concurrent matches finishes them, settling after each
    batch everything before the first match not finished yet (what a live poll does)."""
    rng = random.Random(seed)
    arrivals = completion_order(results, window=16, rng=rng)
    fold = RatingFold()
    at = 0
    while at < len(arrivals):
        batch = arrivals[at : at + rng.randint(1, 9)]
        at += len(batch)
        fold.add(batch)
        pending = [key_of(r) for r in arrivals[at:]]
        fold.settle(min(pending) if pending else (len(results), ""))
    return fold


@pytest.mark.parametrize("make", [werewolf_like, free_for_all])
def test_a_settled_fold_gives_the_same_board_and_history(make) -> None:  # type: ignore[no-untyped-def]
    rng = random.Random(5)
    results = [make(i, rng) for i in range(300)]
    fold = fold_as_a_run(results, seed=5)
    assert without_ts(leaderboard_doc(fold)) == from_scratch(results)


def test_the_fold_holds_per_entry_state_not_per_match() -> None:
    """Its size does not grow with the run: after 50 and after 500 results, the same."""
    rng = random.Random(11)
    results = [werewolf_like(i, rng) for i in range(500)]
    small, large = fold_as_a_run(results[:50], seed=1), fold_as_a_run(results, seed=1)
    assert len(small) == 50 and len(large) == 500
    held = [reachable(small), reachable(large)]
    assert held[1] < 1.5 * held[0], held  # a few results in flight and 48 snapshots at most
    assert sum(isinstance(o, MatchResult) for o in walk(large)) <= 16


def walk(root: object) -> list[object]:
    """Every object the fold holds (not classes, modules or functions, shared by all)."""
    seen: dict[int, object] = {}
    todo = [root]
    while todo:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, (type, types.ModuleType, types.FunctionType)):
            continue
        seen[id(obj)] = obj
        todo.extend(gc.get_referents(obj))
    return list(seen.values())


def reachable(root: object) -> int:
    return len(walk(root))


def test_a_result_before_the_settled_point_is_taken_as_folded() -> None:
    rng = random.Random(2)
    results = [werewolf_like(i, rng) for i in range(20)]
    fold = RatingFold()
    fold.add(results[:10])
    fold.settle(key_of(results[10]))
    assert not fold.wants(key_of(results[3])) and fold.wants(key_of(results[10]))
    assert fold.add(results) == 10
    assert without_ts(leaderboard_doc(fold)) == from_scratch(results)
