"""The arena's one statistics module: intervals, bootstraps, repeat stability, paired differences.

Used by the ratings, the metrics columns, the per-game measures and the benches, so that every
figure a user reads is computed one way (metrics.md §C5, §C6).

Conventions, the same everywhere:

- **95% intervals.** ``Z95 = 1.96``; bootstrap intervals are percentile intervals
  ``[2.5, 97.5]`` (``numpy.percentile``, linear interpolation) over the finite resampled values.
- **The cluster is the match.** Seats of one match are dependent, so a bootstrap resamples whole
  matches (rows) with replacement; a caller passes one row per match.
- **Randomness is explicit.** Every resampling takes a ``numpy.random.Generator`` from the
  caller (``numpy.random.default_rng(seed)``, with the seed reported beside the figure); nothing
  here touches global random state.
- **Too little data gives ``None``, never a made-up interval.** A bootstrap interval needs at
  least two clusters that define the figure; with fewer it is ``None`` (the point estimate
  stays). The Wilson interval is closed-form and defined at ``n = 0``: it is ``(0.0, 1.0)``,
  "nothing is known", which callers may show or replace with ``None``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from itertools import combinations
from typing import Any, Literal

import numpy as np

Z95 = 1.96
PERCENTILES = (2.5, 97.5)
DEFAULT_RESAMPLES = 2000
Method = Literal["wilson", "bootstrap"]


@dataclass(frozen=True)
class Estimate:
    """A figure with its 95% interval: ``low``/``high`` are ``None`` when no interval exists.

    ``n`` is the number of clusters (matches) that define the figure; ``method`` says how the
    interval was computed.
    """

    value: float | None
    low: float | None = None
    high: float | None = None
    n: int = 0
    method: Method | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


# -- proportions -------------------------------------------------------------------------------
def wilson(successes: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Closed-form Wilson score interval of a proportion ``successes / n`` (independent trials).

    At ``n == 0`` the interval is the whole unit interval ``(0.0, 1.0)``: no trial, no
    information. Raises ``ValueError`` for ``n < 0`` or ``successes`` outside ``[0, n]``.
    """
    if n < 0 or successes < 0 or successes > n:
        raise ValueError(f"wilson: need 0 <= successes <= n, got {successes} of {n}")
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # At p = 0 or 1 the bound is exactly 0 or 1; the subtraction alone rounds it off by 1 ulp.
    lo = 0.0 if successes == 0 else max(0.0, centre - half)
    hi = 1.0 if successes == n else min(1.0, centre + half)
    return (lo, hi)


# -- bootstrap ---------------------------------------------------------------------------------
def percentile_interval(samples: np.ndarray) -> tuple[float, float] | None:
    """The 95% percentile interval of the finite values of ``samples`` (None when there are none)."""
    finite = samples[np.isfinite(samples)]
    if finite.size == 0:
        return None
    lo, hi = np.percentile(finite, PERCENTILES)
    return (float(lo), float(hi))


def resample_sums(rows: np.ndarray, rng: np.random.Generator, b: int) -> np.ndarray:
    """Column sums of ``b`` bootstrap resamples of the rows (clusters) of ``rows`` (n x k): b x k.

    Identical rows are pooled and drawn with one multinomial, the same distribution as drawing
    n rows with replacement but O(b x distinct rows) instead of O(b x n) — win/loss rows of
    thousands of matches have a handful of distinct values. Resampling all columns at once
    keeps figures derived from several columns (a lift, a balanced mean) on the same resamples.
    """
    rows = np.asarray(rows, dtype=float)
    if rows.ndim != 2:
        raise ValueError("resample_sums: rows must be a 2-d array (clusters x columns)")
    n = rows.shape[0]
    if n == 0:
        return np.zeros((b, rows.shape[1]))
    uniq, counts = np.unique(rows, axis=0, return_counts=True)
    if len(uniq) <= 512:
        draws = rng.multinomial(n, counts / n, size=b)  # b x distinct
        return np.asarray(draws @ uniq, dtype=float)
    k = rows.shape[1]
    out = np.empty((b, k))
    chunk = max(1, 4_000_000 // (n * max(k, 2)))  # bounds the gathered (chunk, n, k) block
    for start in range(0, b, chunk):
        stop = min(b, start + chunk)
        idx = rng.integers(0, n, size=(stop - start, n))
        out[start:stop] = rows[idx].sum(axis=1)
    return out


def ratio_samples(sums: np.ndarray, num: int, den: int) -> np.ndarray:
    """Σnum / Σden of every resample (columns ``num`` and ``den`` of ``resample_sums``); NaN
    where a resample's denominator is 0."""
    with np.errstate(invalid="ignore", divide="ignore"):
        d = sums[:, den]
        return np.where(d > 0, sums[:, num] / np.where(d > 0, d, 1.0), np.nan)


def ratio_ci(
    num: Sequence[float],
    den: Sequence[float],
    rng: np.random.Generator,
    b: int = DEFAULT_RESAMPLES,
) -> tuple[float, float] | None:
    """95% cluster-bootstrap interval of Σnum / Σden, one (num, den) pair per cluster.

    Clusters with ``den == 0`` do not define the ratio and are left out; None with fewer than
    two clusters left.
    """
    rows = np.column_stack([np.asarray(num, float), np.asarray(den, float)])
    rows = rows[rows[:, 1] != 0]
    if rows.shape[0] < 2:
        return None
    return percentile_interval(ratio_samples(resample_sums(rows, rng, b), 0, 1))


def mean_ci(
    values: Sequence[float], rng: np.random.Generator, b: int = DEFAULT_RESAMPLES
) -> tuple[float, float] | None:
    """95% cluster-bootstrap interval of the mean of ``values`` (one value per cluster).

    None with fewer than two values.
    """
    x = np.asarray(values, dtype=float)
    if x.size < 2:
        return None
    return percentile_interval(resample_sums(x[:, None], rng, b)[:, 0] / x.size)


def mean_estimate(
    values: Sequence[float], rng: np.random.Generator, b: int = DEFAULT_RESAMPLES
) -> Estimate:
    """The mean of ``values`` (one per cluster) with its bootstrap interval."""
    if not values:
        return Estimate(None)
    ci = mean_ci(values, rng, b)
    lo, hi = ci if ci is not None else (None, None)
    method: Method | None = "bootstrap" if ci is not None else None
    return Estimate(float(np.mean(values)), lo, hi, len(values), method)


def ratio_estimate(
    num: Sequence[float],
    den: Sequence[float],
    rng: np.random.Generator,
    b: int = DEFAULT_RESAMPLES,
    *,
    binary: bool = False,
) -> Estimate:
    """Σnum / Σden over the clusters with ``den > 0``, with its 95% interval.

    ``binary`` says the figure is a share of yes/no outcomes (a win rate, an agreement rate).
    When it is and every defining cluster is a single 0/1 trial (``den == 1``, ``num`` in
    {0, 1}), the clusters are independent Bernoulli trials and the closed-form Wilson interval
    is used; otherwise the cluster bootstrap (:func:`ratio_ci`). A count or a mean that happens
    to be 0 or 1 is not a trial, hence the flag.
    """
    pairs = [(float(a), float(d)) for a, d in zip(num, den, strict=True) if d > 0]
    if not pairs:
        return Estimate(None)
    total_num, total_den = sum(a for a, _ in pairs), sum(d for _, d in pairs)
    value = total_num / total_den
    if binary and all(d == 1 and a in (0.0, 1.0) for a, d in pairs):
        lo, hi = wilson(total_num, total_den)
        return Estimate(value, lo, hi, len(pairs), "wilson")
    ci = ratio_ci([a for a, _ in pairs], [d for _, d in pairs], rng, b)
    if ci is None:
        return Estimate(value, None, None, len(pairs), None)
    return Estimate(value, ci[0], ci[1], len(pairs), "bootstrap")


# -- paired differences ------------------------------------------------------------------------
def paired_difference(
    a: Sequence[float],
    b: Sequence[float],
    rng: np.random.Generator,
    resamples: int = DEFAULT_RESAMPLES,
) -> Estimate:
    """Mean paired difference Δ = mean(a_i − b_i) with a bootstrap interval over the pairs.

    ``a[i]`` and ``b[i]`` are one pair: the same seed (deal) played by two agents, or one agent
    with and without a memory bank. Pairing removes the deal's variance from the comparison.
    Pairs with a missing side (``None``/NaN) are dropped. Raises ``ValueError`` when the
    sequences differ in length.
    """
    if len(a) != len(b):
        raise ValueError(f"paired_difference: {len(a)} values against {len(b)}")
    diffs = [
        float(x) - float(y)
        for x, y in zip(a, b, strict=True)
        if x is not None and y is not None and math.isfinite(x) and math.isfinite(y)
    ]
    return mean_estimate(diffs, rng, resamples)


# -- repeats and rankings ----------------------------------------------------------------------
def rse(values: Sequence[float]) -> float | None:
    """Relative standard error over repeats in percent: s / (sqrt(R) * mean) * 100 (§C6).

    None with fewer than two repeats or a zero mean.
    """
    if len(values) < 2:
        return None
    mean = float(np.mean(values))
    if mean == 0:
        return None
    return float(np.std(values, ddof=1) / (math.sqrt(len(values)) * mean) * 100)


def kendall_tau(a: Sequence[str], b: Sequence[str]) -> float | None:
    """Kendall tau-a between two rankings (best first) over their common items."""
    common = [x for x in a if x in set(b)]
    if len(common) < 2:
        return None
    pos_b = {x: i for i, x in enumerate(b)}
    pos_a = {x: i for i, x in enumerate(common)}
    concordant = discordant = 0
    for x, y in combinations(common, 2):
        s = (pos_a[x] - pos_a[y]) * (pos_b[x] - pos_b[y])
        concordant += s > 0
        discordant += s < 0
    pairs = len(common) * (len(common) - 1) / 2
    return (concordant - discordant) / pairs


def mean_pairwise_tau(rankings: Sequence[Sequence[str]]) -> float | None:
    """Mean Kendall tau over every pair of rankings (ranking stability across repeats)."""
    taus = [kendall_tau(x, y) for x, y in combinations(rankings, 2)]
    present = [t for t in taus if t is not None]
    return float(np.mean(present)) if present else None
