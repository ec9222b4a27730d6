"""The incremental fold gives exactly the from-scratch ratings, whatever order results arrive in."""

from __future__ import annotations

import random

import pytest

from arena.live.status import history_cuts, leaderboard_doc
from arena.ratings.fold import RatingFold
from arena.ratings.leaderboard import SIDE, fold_order, rate, trueskill_rows
from arena.results import MatchResult, SeatResult

AGENTS = ["rule", "random", "llm", "cautious"]


def werewolf_like(i: int, rng: random.Random) -> MatchResult:
    """Eight seats, two wolves against six villagers; agents mixed, some matches not rated."""
    agents = [rng.choice(AGENTS) for _ in range(8)]
    wolves = set(rng.sample(range(8), 2))
    status = rng.choices(["finished", "forfeited", "errored"], [0.85, 0.08, 0.07])[0]
    wolves_win = rng.random() < 0.4
    seats = []
    for s in range(8):
        team = "wolves" if s in wolves else "village"
        won = (team == "wolves") == wolves_win
        seats.append(
            SeatResult(
                seat=s,
                name=f"P{s}",
                agent=agents[s],
                team=team,
                role="werewolf" if s in wolves else rng.choice(["villager", "seer", "doctor"]),
                reward=1.0 if won else -1.0,
                result="win" if won else "loss",
            )
        )
    return MatchResult(
        match_id=f"werewolf-m{i:05d}",
        game="werewolf",
        seed=i,
        index=i,
        status=status,  # type: ignore[arg-type]
        outcome="wolves" if wolves_win else "village",
        seats=seats if status != "errored" else [],
    )


def free_for_all(i: int, rng: random.Random) -> MatchResult:
    """Three players each on its own team, real-valued rewards and ties (a negotiation)."""
    agents = rng.sample(AGENTS, 3)
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


def from_scratch(results: list[MatchResult]) -> dict:
    """The live leaderboard document as defined: re-rate every prefix from nothing."""
    ordered = fold_order(results)
    history: dict[str, list[float]] = {}
    for cut in history_cuts(len(ordered)):
        for agent, rating in rate(ordered[:cut]).items():
            if not agent.startswith(SIDE):
                history.setdefault(agent, []).append(round(rating.mu, 3))
    rows = [r.model_dump() for r in trueskill_rows(ordered)]
    return {"rows": rows, "history": history, "n_results": len(ordered)}


def without_ts(doc: dict) -> dict:
    return {k: v for k, v in doc.items() if k != "ts"}


def completion_order(results: list[MatchResult], window: int, rng: random.Random) -> list:
    """Plan order perturbed as a run with ``window`` concurrent matches finishes them."""
    return sorted(results, key=lambda r: r.index + rng.uniform(0, window))


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
    assert [r.match_id for r in fold.folded] == [r.match_id for r in fold_order(results)]
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
