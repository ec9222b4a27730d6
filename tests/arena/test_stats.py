"""arena.stats: hand-computed values and properties of every interval the arena reports."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from arena import stats


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


# -- Wilson ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("k", "n", "lo", "hi"),
    [
        (8, 10, 0.4902, 0.9433),  # textbook values (z = 1.96)
        (5, 10, 0.2366, 0.7634),
        (0, 10, 0.0, 0.2775),
        (10, 10, 0.7225, 1.0),
        (38, 100, 0.2910, 0.4779),
    ],
)
def test_wilson_matches_hand_computed_bounds(k: int, n: int, lo: float, hi: float) -> None:
    got = stats.wilson(k, n)
    assert got[0] == pytest.approx(lo, abs=1e-4) and got[1] == pytest.approx(hi, abs=1e-4)


def test_wilson_matches_the_closed_form() -> None:
    lo, hi = stats.wilson(8, 10)
    assert abs(lo - 0.4902) < 1e-3 and abs(hi - 0.9433) < 1e-3
    # one defined behaviour without trials: the whole unit interval
    assert stats.wilson(0, 0) == (0.0, 1.0)


def test_wilson_refuses_impossible_counts() -> None:
    with pytest.raises(ValueError):
        stats.wilson(11, 10)
    with pytest.raises(ValueError):
        stats.wilson(-1, 10)


@given(hs.integers(1, 500), hs.data())
def test_wilson_contains_the_proportion_and_is_symmetric(n: int, data: hs.DataObject) -> None:
    k = data.draw(hs.integers(0, n))
    lo, hi = stats.wilson(k, n)
    assert 0.0 <= lo <= k / n <= hi <= 1.0
    mlo, mhi = stats.wilson(n - k, n)
    assert lo == pytest.approx(1 - mhi, abs=1e-12) and hi == pytest.approx(1 - mlo, abs=1e-12)


def test_wilson_narrows_with_more_trials() -> None:
    widths = [hi - lo for lo, hi in (stats.wilson(3 * m, 10 * m) for m in (1, 4, 16))]
    assert widths[0] > widths[1] > widths[2]


# -- bootstrap primitives ----------------------------------------------------------------------
def test_percentile_interval_of_a_known_sample_and_of_nothing() -> None:
    assert stats.percentile_interval(np.arange(101.0)) == (2.5, 97.5)
    with_nan = np.concatenate([np.arange(101.0), [np.nan, np.inf]])
    assert stats.percentile_interval(with_nan) == (2.5, 97.5)  # non-finite values ignored
    assert stats.percentile_interval(np.array([np.nan])) is None


@pytest.mark.parametrize("distinct", [3, 600])  # pooled multinomial path and direct path
def test_resample_sums_draws_n_clusters_per_resample(distinct: int) -> None:
    n = 1000
    values = np.arange(n) % distinct
    rows = np.column_stack([np.ones(n), values])
    sums = stats.resample_sums(rows, rng(1), 400)
    assert sums.shape == (400, 2)
    assert np.all(sums[:, 0] == n)  # every resample holds exactly n matches
    # unbiased: the mean resampled total is close to the observed total
    assert abs(sums[:, 1].mean() / values.sum() - 1) < 0.01
    again = stats.resample_sums(rows, rng(1), 400)
    assert np.array_equal(sums, again)  # the caller's seed decides everything


def test_ratio_ci_skips_undefined_clusters_and_needs_two() -> None:
    num, den = [3.0, 1.0, 2.0, 4.0], [4.0, 2.0, 2.0, 5.0]
    ci = stats.ratio_ci(num, den, rng(7))
    assert ci is not None and ci[0] <= sum(num) / sum(den) <= ci[1]
    # a cluster with den = 0 does not define the ratio: same interval with or without it
    assert stats.ratio_ci([*num, 9.0], [*den, 0.0], rng(7)) == ci
    assert stats.ratio_ci([1.0], [2.0], rng(7)) is None
    assert stats.ratio_ci([], [], rng(7)) is None


def test_mean_ci_of_constant_values_is_a_point_and_needs_two_values() -> None:
    assert stats.mean_ci([0.25] * 5, rng()) == (0.25, 0.25)
    assert stats.mean_ci([0.25], rng()) is None
    lo, hi = stats.mean_ci([0.0, 1.0] * 50, rng())  # type: ignore[misc]
    # the bootstrap SE of a mean of 100 fair coins is 0.05: the interval is about ±1.96 SE
    assert 0.38 < lo < 0.42 and 0.58 < hi < 0.62


def test_ratio_estimate_uses_wilson_for_independent_trials_else_the_bootstrap() -> None:
    trials = stats.ratio_estimate([1, 0, 1, 1], [1, 1, 1, 1], rng(), binary=True)
    assert trials.method == "wilson" and trials.value == 0.75 and trials.n == 4
    assert (trials.low, trials.high) == stats.wilson(3, 4)
    # the same numbers as a count per match (not yes/no outcomes): the bootstrap
    counts = stats.ratio_estimate([1, 0, 1, 1], [1, 1, 1, 1], rng())
    assert counts.method == "bootstrap" and counts.value == 0.75
    # a draw (½) is not a 0/1 trial either
    assert stats.ratio_estimate([1, 0.5, 0], [1, 1, 1], rng(), binary=True).method == "bootstrap"
    pooled = stats.ratio_estimate([2, 0, 1, 3], [2, 1, 2, 3], rng())
    assert pooled.method == "bootstrap" and pooled.value == pytest.approx(6 / 8)
    assert pooled.low is not None and pooled.low <= 0.75 <= pooled.high  # type: ignore[operator]
    assert stats.ratio_estimate([1], [0], rng()) == stats.Estimate(None)
    single = stats.ratio_estimate([1.0], [2.0], rng())
    assert single.value == 0.5 and single.low is None and single.n == 1


# -- paired differences ------------------------------------------------------------------------
def test_paired_difference_of_a_constant_shift_is_that_shift() -> None:
    base = [0.1, 0.9, 0.4, 0.7, 0.2]
    d = stats.paired_difference([x + 0.5 for x in base], base, rng())
    assert d.value == pytest.approx(0.5)
    assert d.low == pytest.approx(0.5) and d.high == pytest.approx(0.5) and d.n == 5


def test_pairing_removes_the_deal_variance() -> None:
    g = np.random.default_rng(3)
    deal = g.normal(0, 1, 200)  # the seed's difficulty, shared by both arms
    a, b = deal + 0.2 + g.normal(0, 0.1, 200), deal + g.normal(0, 0.1, 200)
    paired = stats.paired_difference(list(a), list(b), rng(1))
    assert paired.low is not None and paired.high is not None
    assert 0 < paired.low < 0.2 < paired.high  # the shift is found and is significant
    # unpaired, the deal's spread swamps it
    lo_a, hi_a = stats.mean_ci(list(a), rng(1))  # type: ignore[misc]
    lo_b, hi_b = stats.mean_ci(list(b), rng(1))  # type: ignore[misc]
    assert paired.high - paired.low < 0.2 * ((hi_a - lo_a) + (hi_b - lo_b))


def test_paired_difference_drops_missing_pairs_and_refuses_unequal_lengths() -> None:
    d = stats.paired_difference([1.0, None, 3.0, math.nan], [0.0, 1.0, 1.0, 0.0], rng())  # type: ignore[list-item]
    assert d.value == pytest.approx(1.5) and d.n == 2
    with pytest.raises(ValueError):
        stats.paired_difference([1.0], [1.0, 2.0], rng())
    assert stats.paired_difference([], [], rng()) == stats.Estimate(None)


# -- repeats -----------------------------------------------------------------------------------
def test_rse_by_hand() -> None:
    # s = 0.1414, R = 2, mean = 0.6
    assert stats.rse([0.5, 0.7]) == pytest.approx(0.141421 / (math.sqrt(2) * 0.6) * 100, rel=1e-4)
    assert stats.rse([0.0, 0.0]) is None and stats.rse([0.4]) is None


@settings(max_examples=50)
@given(hs.lists(hs.floats(0.01, 1.0), min_size=2, max_size=20), hs.floats(0.1, 10.0))
def test_rse_is_scale_free(values: list[float], scale: float) -> None:
    one, scaled = stats.rse(values), stats.rse([v * scale for v in values])
    assert one is not None and scaled == pytest.approx(one, rel=1e-6, abs=1e-9)
