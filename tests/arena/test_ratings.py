"""TrueSkill leaderboard: factions as teams, deterministic folding."""

from __future__ import annotations

import random

from arena.ratings import leaderboard
from arena.results import MatchResult, SeatResult


def match(i: int, winner_agent: str, loser_agent: str, draw: bool = False) -> MatchResult:
    seats = [
        SeatResult(
            seat=0,
            name="A",
            agent=winner_agent,
            team="red",
            role="r",
            reward=0.0 if draw else 1.0,
            result="draw" if draw else "win",
        ),
        SeatResult(
            seat=1,
            name="B",
            agent=loser_agent,
            team="blue",
            role="b",
            reward=0.0 if draw else -1.0,
            result="draw" if draw else "loss",
        ),
    ]
    return MatchResult(
        match_id=f"m{i:03d}",
        game="g",
        seed=i,
        index=i,
        status="finished",
        outcome="x",
        winners=[] if draw else ["red"],
        seats=seats,
    )


def test_the_stronger_entry_ranks_first_with_shrinking_sigma() -> None:
    rng = random.Random(0)
    results = []
    for i in range(60):
        strong_wins = rng.random() < 0.8
        results.append(match(i, "strong", "weak") if strong_wins else match(i, "weak", "strong"))
    rows = leaderboard(results)
    assert [r.agent for r in rows] == ["strong", "weak"]
    assert rows[0].mu > 25 > rows[1].mu and rows[0].sigma < 25 / 3
    assert rows[0].games == 60 and abs(rows[0].win_rate - rows[0].wins / 60) < 1e-4


def test_folding_order_is_by_match_not_by_completion() -> None:
    results = [match(i, "a" if i % 3 else "b", "b" if i % 3 else "a") for i in range(30)]
    shuffled = results[:]
    random.Random(1).shuffle(shuffled)
    assert leaderboard(results) == leaderboard(shuffled)


def test_draws_count_half_and_errored_matches_are_ignored() -> None:
    results = [match(0, "a", "b", draw=True), match(1, "a", "b")]
    results.append(
        results[1].model_copy(update={"match_id": "m999", "index": 999, "status": "errored"})
    )
    rows = {r.agent: r for r in leaderboard(results)}
    assert rows["a"].games == 2 and rows["a"].draws == 1 and rows["a"].win_rate == 0.75


def test_a_forfeit_is_a_loss_for_the_forfeiting_team() -> None:
    forfeit = match(0, "a", "b").model_copy(update={"status": "forfeited", "winners": []})
    forfeit.seats[0].reward, forfeit.seats[1].reward = -1.0, 0.0  # seat 0 (a) forfeited
    rows = {r.agent: r for r in leaderboard([forfeit])}
    assert rows["a"].losses == 1 and rows["b"].wins == 1 and rows["b"].mu > rows["a"].mu


def test_unequal_factions_do_not_drag_equal_entries_down() -> None:
    """Six villagers vs two wolves, wolves winning 60%: equal entries stay near the prior."""
    from arena.ratings import rate

    rng = random.Random(3)
    results = []
    for i in range(300):
        agents = ["a", "b"] * 4
        rng.shuffle(agents)
        wolves_win = rng.random() < 0.6
        seats = []
        for seat, agent in enumerate(agents):
            team = "wolves" if seat < 2 else "village"
            won = (team == "wolves") == wolves_win
            seats.append(
                SeatResult(
                    seat=seat,
                    name=f"P{seat}",
                    agent=agent,
                    team=team,
                    role=team,
                    reward=1.0 if won else -1.0,
                    result="win" if won else "loss",
                )
            )
        results.append(
            MatchResult(
                match_id=f"m{i:03d}",
                game="ww",
                seed=i,
                index=i,
                status="finished",
                outcome="x",
                winners=["wolves" if wolves_win else "village"],
                seats=seats,
            )
        )
    ratings = rate(results)
    assert abs(ratings["a"].mu - 25) < 3 and abs(ratings["b"].mu - 25) < 3
    assert ratings["side:ww:wolves"].mu > ratings["side:ww:village"].mu
    assert {r.agent for r in leaderboard(results)} == {"a", "b"}  # sides are hidden
