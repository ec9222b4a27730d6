"""The held-out gate: promote a challenger only if the one-sided lower confidence bound of its
paired improvement over the incumbent, on the frozen gate units, is above zero.

The bound is a percentile bootstrap over units (the same resampling as
:func:`arena.stats.resample_sums`): ``LB = percentile_{100·α'}`` of the resampled mean paired
difference, with ``α' = α / G`` under the Bonferroni correction (G = the run's planned gate
tests), so that a run whose contexts have no effect promotes a challenger with probability
at most α overall. All differences zero gives ``LB = 0``: no promotion.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from arena.stats import resample_sums


@dataclass(frozen=True)
class GateDecision:
    challenger: str
    incumbent: str
    n: int
    mean_delta: float
    lower: float  # the one-sided lower bound at level 1 - alpha
    alpha: float
    promoted: bool

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def lower_bound(
    deltas: Sequence[float], alpha: float, rng: np.random.Generator, resamples: int = 2000
) -> float:
    """One-sided (1 − alpha) bootstrap lower bound of the mean of ``deltas``."""
    d = np.asarray([x for x in deltas if math.isfinite(x)], dtype=float)
    if d.size < 2:
        return -math.inf
    if np.all(d == d[0]):
        return float(d[0])
    means = resample_sums(d.reshape(-1, 1), rng, resamples)[:, 0] / d.size
    return float(np.percentile(means, 100 * alpha))


def decide(
    challenger: str,
    incumbent: str,
    challenger_scores: Sequence[float],
    incumbent_scores: Sequence[float],
    alpha: float,
    rng: np.random.Generator,
    resamples: int = 2000,
) -> GateDecision:
    if len(challenger_scores) != len(incumbent_scores):
        raise ValueError("gate: both sides must be scored on the same units")
    deltas = [a - b for a, b in zip(challenger_scores, incumbent_scores, strict=True)]
    lb = lower_bound(deltas, alpha, rng, resamples)
    mean = float(np.mean(deltas)) if deltas else 0.0
    return GateDecision(challenger, incumbent, len(deltas), mean, lb, alpha, lb > 0)
