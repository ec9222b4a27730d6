"""Harness health on the board: shares with Wilson intervals, flags, old records, clean fit."""

from __future__ import annotations

from arena.ratings.fold import RatingFold
from arena.ratings.health import compare_fits, entry_health, harness_decided, strict_problems
from arena.ratings.leaderboard import KEYS
from arena.results import MatchResult, SeatResult


def seat(i: int, agent: str, decisions: int | None, refused: int = 0, fallbacks: int = 0,
         forfeited: bool = False) -> SeatResult:  # fmt: skip
    return SeatResult(
        seat=i, name=f"P{i}", agent=agent, team=f"t{i}", role="r", reward=float(i),
        result="win" if i else "loss", fallbacks=fallbacks, decisions=decisions,
        refused=None if decisions is None else refused,
        reasked=None if decisions is None else refused, timeouts=None if decisions is None else 0,
        forfeited=None if decisions is None else forfeited,
    )  # fmt: skip


def match(i: int, *seats: SeatResult, status: str = "finished") -> MatchResult:
    return MatchResult(match_id=f"m{i}", game="g", seed=i, index=i, status=status,
                       outcome="x", seats=list(seats))  # fmt: skip


def test_shares_come_with_wilson_intervals_and_flags() -> None:
    results = [match(i, seat(0, "bad", 10, refused=5, fallbacks=1), seat(1, "ok", 10))
               for i in range(20)]  # fmt: skip
    health = entry_health(results, KEYS["agent"], threshold=0.05)
    bad, ok = health["bad"], health["ok"]
    assert bad["refused"]["share"] == 0.5 and bad["refused"]["of"] == 200
    assert bad["refused"]["low"] < 0.5 < bad["refused"]["high"]
    assert bad["fallback"]["share"] == 0.1
    assert bad["flag"] == "answers refused 50.0% > 5%"
    assert ok["flag"] is None and ok["refused"]["share"] == 0.0 and ok["refused"]["high"] > 0
    lines = strict_problems(health, 0.05)
    assert len(lines) == 1 and lines[0].startswith("bad: answers refused 50.0%")


def test_forfeits_are_a_share_of_matches_and_flagged() -> None:
    results = [match(0, seat(0, "quitter", 3, forfeited=True, fallbacks=1), seat(1, "ok", 3),
                     status="forfeited"),
               match(1, seat(0, "quitter", 3), seat(1, "ok", 3))]  # fmt: skip
    health = entry_health(results, KEYS["agent"])
    assert health["quitter"]["forfeit"]["share"] == 0.5
    assert "matches forfeited 50.0%" in (health["quitter"]["flag"] or "")
    assert [harness_decided(r) for r in results] == [True, False]


def test_an_entry_holding_several_seats_counts_each_match_once() -> None:
    # a team game: "side" holds three seats of each match and forfeits one of four matches
    results = [
        match(i, seat(0, "side", 2, forfeited=i == 0), seat(1, "side", 2),
              seat(2, "side", 2), seat(3, "other", 2),
              status="forfeited" if i == 0 else "finished")
        for i in range(4)
    ]  # fmt: skip
    side = entry_health(results, KEYS["agent"])["side"]
    assert side["matches"] == 4 and side["decisions"] == 24
    assert side["forfeit"]["share"] == 0.25 and side["forfeit"]["of"] == 4
    # the live fold counts the same
    fold = RatingFold()
    fold.add(results)
    row = next(r for r in fold.rows() if r.agent == "side")
    assert row.health is not None and row.health["forfeit"]["of"] == 4


def test_records_without_health_read_as_unknown_never_as_clean() -> None:
    results = [match(0, seat(0, "old", None), seat(1, "old2", None))]
    health = entry_health(results, KEYS["agent"])
    assert health["old"]["unknown_matches"] == 1 and health["old"]["decisions"] == 0
    assert health["old"]["refused"]["share"] is None and health["old"]["flag"] is None


def test_ranks_apart_beyond_both_intervals_are_flagged() -> None:
    main = [{"agent": "a", "rank": 1, "rank_low": 1, "rank_high": 1},
            {"agent": "b", "rank": 2, "rank_low": 2, "rank_high": 3}]  # fmt: skip
    clean = [{"agent": "b", "rank": 1, "rank_low": 1, "rank_high": 2},
             {"agent": "a", "rank": 3, "rank_low": 2, "rank_high": 3}]  # fmt: skip
    out = compare_fits(main, clean)
    assert out["a"]["flag"] is not None and out["a"]["rank"] == 3
    assert out["b"]["flag"] is None  # [2, 3] and [1, 2] overlap
    assert compare_fits(main, clean[:1])["a"]["flag"] == "not rated without harness-decided matches"
