"""Ratings recover a known strength order; rating-driven matchmaking is adaptive yet deterministic."""

from __future__ import annotations

import asyncio
from pathlib import Path

from arena.ratings.leaderboard import leaderboard, rate
from arena.stats import kendall_tau
from tests.tournaments.strength import P_RANDOM, population, register
from tournaments import config as tconfig
from tournaments.executor import Tournament
from tournaments.matchmaking import Matchmaker

register()
TRUE_ORDER = [f"p{int(p * 100):03d}" for p in P_RANDOM]  # p_random 0 is the strongest


def duel(tmp_path: Path, **over: object) -> tconfig.RunConfig:
    raw = {
        "game": "duel",
        "rules": {"noise": 2.0},
        "agents": population(),
        "concurrency": 8,
        "master_seed": 5,
        "output_dir": str(tmp_path),
        **over,
    }
    return tconfig.parse(raw)


def test_trueskill_recovers_the_strength_order_within_200_matches(tmp_path: Path) -> None:
    """Five entries (random move with p = 0, .25, .5, .75, 1, else the rule bot), every pair
    20 times head to head with sides swapped: 200 matches give Kendall tau >= 0.9."""
    cfg = duel(tmp_path, lineups="pairs", matches=20)
    results = asyncio.run(Tournament(cfg, tmp_path / "rr", "rr").run())
    assert len(results) == 200
    order = [r.agent for r in leaderboard(results)]
    assert kendall_tau(order, TRUE_ORDER) >= 0.9, order
    ratings = rate(results)  # TrueSkill in plan order (the live board, matchmaking)
    ts_order = sorted(TRUE_ORDER, key=lambda a: -(ratings[a].mu - 3 * ratings[a].sigma))
    assert kendall_tau(ts_order, TRUE_ORDER) >= 0.9, ts_order


def test_rating_driven_stops_at_the_budget_and_ranks_the_population(tmp_path: Path) -> None:
    cfg = duel(
        tmp_path,
        format="rating_driven",
        rating_driven={"sigma_threshold": 0.5, "budget": 120, "batch": 8},
    )
    results = asyncio.run(Tournament(cfg, tmp_path / "rd", "rd").run())
    assert len(results) == 120  # sigma 0.5 is out of reach: the budget ends it
    order = [r.agent for r in leaderboard(results)]
    assert kendall_tau(order, TRUE_ORDER) >= 0.8, order
    # informative pairs first: neighbours in strength meet more often than the extremes
    pairs = [tuple(sorted({s.agent for s in m.seats})) for m in results]
    assert pairs.count(("p000", "p100")) < pairs.count(("p000", "p025"))


def test_rating_driven_stops_once_every_sigma_is_below_the_threshold(tmp_path: Path) -> None:
    cfg = duel(
        tmp_path,
        agents=population()[:2],
        format="rating_driven",
        rating_driven={"sigma_threshold": 4.0, "budget": 500, "batch": 4},
    )
    results = asyncio.run(Tournament(cfg, tmp_path / "s", "s").run())
    assert 0 < len(results) < 500
    assert all(r.sigma < 4.0 for k, r in rate(results).items() if not k.startswith("side:"))
    # the stop came as soon as it could: one round fewer would not have been enough
    shorter = [r for r in results if r.index < len(results) - 4]
    assert any(r.sigma >= 4.0 for k, r in rate(shorter).items() if not k.startswith("side:"))


def test_rating_driven_plans_depend_only_on_results_not_on_their_order(tmp_path: Path) -> None:
    cfg = duel(tmp_path, format="rating_driven", rating_driven={"budget": 40, "batch": 8})
    results = asyncio.run(Tournament(cfg, tmp_path / "a", "a").run())
    maker = Matchmaker(cfg, 0)
    planned = sorted({r.match_id for r in results})
    specs_a = maker.next_batch(results[:16], [])
    specs_b = maker.next_batch(list(reversed(results[:16])), [])
    assert specs_a == specs_b and len(planned) == 40
    again = asyncio.run(Tournament(cfg, tmp_path / "b", "b").run())
    assert [(r.match_id, r.seed, [s.agent for s in r.seats]) for r in again] == [
        (r.match_id, r.seed, [s.agent for s in r.seats]) for r in results
    ]


def test_rating_driven_resume_finishes_the_budget_with_the_same_matches(tmp_path: Path) -> None:
    cfg = duel(tmp_path, format="rating_driven", rating_driven={"budget": 32, "batch": 8})
    full = asyncio.run(Tournament(cfg, tmp_path / "full", "x").run())
    # a crash after the first round was planned and half of it played
    t = Tournament(cfg, tmp_path / "part", "x")
    store = t.prepare()
    first = Matchmaker(cfg, 0, "x").next_batch([], [])
    store.plan(first)
    for spec in first[:4]:
        asyncio.run(t.run_one(spec, store))
    store.close()
    resumed = asyncio.run(Tournament(cfg, tmp_path / "part", "x").run())
    key = [(r.match_id, r.seed, r.outcome, [s.agent for s in r.seats]) for r in full]
    assert [(r.match_id, r.seed, r.outcome, [s.agent for s in r.seats]) for r in resumed] == key
