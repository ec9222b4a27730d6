"""The batch Bradley–Terry fit: order-free, finite on one-sided data, sides learned, intervals."""

from __future__ import annotations

import math
import random

import numpy as np

from arena.ratings.batch import MU0, SCALE, SIGMA0, fit, rank_intervals, samples_of
from arena.ratings.leaderboard import KEYS, leaderboard
from tests.arena.ratings.test_leaderboard import head_to_heads, match, team_match

AGENT = KEYS["agent"]


def ladder(n: int, seed: int) -> list:  # type: ignore[type-arg]
    """Four entries a > b > c > d (strength 3, 2, 1, 0 logits), random pairs, sides swapped."""
    rng = random.Random(seed)
    strength = {"a": 3.0, "b": 2.0, "c": 1.0, "d": 0.0}
    out = []
    for i in range(n):
        x, y = rng.sample(sorted(strength), 2)
        x_wins = rng.random() < 1 / (1 + math.exp(strength[y] - strength[x]))
        red, blue = ([x], [y]) if i % 2 else ([y], [x])
        out.append(team_match(i, red, blue, x_wins == (red == [x])))
    return out


def test_the_fit_is_the_same_whatever_the_order_of_the_results() -> None:
    results = ladder(200, 0)
    one = fit(results, AGENT)
    for seed in range(5):
        rng = random.Random(seed)
        idx = list(range(len(results)))
        rng.shuffle(idx)
        renumbered = [r.model_copy(update={"index": i}) for r, i in zip(results, idx, strict=True)]
        rng.shuffle(renumbered)
        other = fit(renumbered, AGENT)
        assert other.mu == one.mu and other.sigma == one.sigma  # bit for bit
    entries = [k for k in one.mu if not k.startswith("side:")]
    assert sorted(entries, key=lambda k: -one.mu[k]) == ["a", "b", "c", "d"]
    assert abs(sum(one.mu[k] for k in entries) / 4 - MU0) < 1e-9  # the entries' mean


def test_strength_gaps_are_recovered_on_the_trueskill_scale() -> None:
    results = ladder(3000, 1)
    f = fit(results, AGENT)
    gaps = [(f.mu[x] - f.mu[y]) / SCALE for x, y in (("a", "b"), ("b", "c"), ("c", "d"))]
    assert all(0.75 < g < 1.25 for g in gaps), gaps  # 1 logit each; the prior shrinks a little
    assert all(f.sigma[k] / SCALE < 0.2 for k in "abcd")  # standard errors in logits


def test_an_entry_that_never_lost_gets_a_finite_rating_and_one_game_stays_near_the_prior() -> None:
    results = [match(i, "w", "l") for i in range(30)]  # w always wins
    f = fit(results, AGENT)
    assert math.isfinite(f.mu["w"]) and f.mu["w"] > f.mu["l"] and f.sigma["w"] > 0
    one = fit([match(0, "w", "l")], AGENT)
    assert abs(one.mu["w"] - MU0) < 5 and one.sigma["w"] > 0.5 * SIGMA0


def test_the_hidden_side_player_takes_the_side_advantage_not_the_entries() -> None:
    """Equal entries, the red side wins 80%: the entries stay level, the side is rated up."""
    rng = random.Random(2)
    results = []
    for i in range(400):
        red, blue = (["a"], ["b"]) if i % 2 else (["b"], ["a"])
        results.append(team_match(i, red, blue, rng.random() < 0.8))
    f = fit(results, AGENT)
    assert abs(f.mu["a"] - f.mu["b"]) < 1.5
    side_gap = (f.mu["side:g:red"] - f.mu["side:g:blue"]) / SCALE
    assert 1.1 < side_gap < 1.7  # logit(0.8) = 1.39


def test_draws_count_half_and_frozen_entries_stay_at_the_prior() -> None:
    draws = [match(i, "a", "b", draw=True) for i in range(20)]
    f = fit(draws, AGENT)
    assert abs(f.mu["a"] - f.mu["b"]) < 1e-9
    frozen = fit(head_to_heads(40, 0.8), AGENT, freeze=["b"])
    assert frozen.mu["b"] == MU0 and frozen.sigma["b"] == SIGMA0 and frozen.mu["a"] > MU0


def test_bootstrap_refits_are_seeded_and_their_intervals_cover_the_fit() -> None:
    results = ladder(300, 3)
    one = fit(results, AGENT, rng=np.random.default_rng(7), resamples=300)
    two = fit(results, AGENT, rng=np.random.default_rng(7), resamples=300)
    assert one.samples is not None and two.samples is not None
    assert np.array_equal(one.samples, two.samples)
    names = ["a", "b", "c", "d"]
    s = samples_of(one, names)
    assert s is not None and s.shape == (300, 4)
    for i, name in enumerate(names):
        lo, hi = np.percentile(s[:, i], [2.5, 97.5])
        assert lo < one.mu[name] < hi
    ranks = rank_intervals(s)
    assert all(lo <= i + 1 <= hi for i, (lo, hi) in enumerate(ranks))
    assert ranks[0][0] == 1 and ranks[-1][1] == 4


def test_leaderboard_rows_carry_rank_mu_side_balanced_and_role_intervals() -> None:
    results = head_to_heads(80, 0.75)
    rows = leaderboard(results, detail=True, seed=1, bootstrap=400)
    assert [r.agent for r in rows] == ["a", "b"] and [r.rank for r in rows] == [1, 2]
    a = rows[0]
    assert a.fit == "batch" and a.mu_low is not None and a.mu_high is not None
    assert a.mu_low < a.mu < a.mu_high
    assert a.rank_low == 1 and a.rank_high in (1, 2)
    assert a.side_balanced_low is not None and a.side_balanced_high is not None
    assert a.side_balanced_wr is not None
    assert a.side_balanced_low <= a.side_balanced_wr <= a.side_balanced_high
    assert set(a.roles) == set(a.roles_ci) == {"captain", "crew"}
    for role, (lo, hi) in a.roles_ci.items():
        assert lo <= a.roles[role] <= hi
    assert leaderboard(results, detail=True, seed=1, bootstrap=400) == rows
