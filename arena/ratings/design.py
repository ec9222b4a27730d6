"""Where a round of matches best tells the board's unsure neighbours apart: a sequential design
on a Bradley–Terry model of the pairs' records.

The planner (:func:`arena.ratings.planner.allocate`) hands this module the board's order, the
fitted gaps, the head-to-head records and which adjacent orders are not yet settled. The
question for every candidate pair is: if the next matches went there, how likely would the
unsettled neighbours still be in the wrong order? That risk is measured on a small model of
the data, not on the board's fit itself:

- each pair's win probability is its record shrunk toward the board's prediction,
  p̂ = (wins + K·q) / (matches + K) with q = logistic(θa − θb) from the fitted gaps and K =
  :data:`PRIOR_MATCHES`, so a pair seen a few times is neither 0 nor 1 nor pure noise, and a
  pair seen often speaks for itself — also when it disagrees with the model, as two entries
  close on the board often do by splitting their own games while their records against the
  field tell them apart;
- with the counts a plan would reach, the strengths θ that those probabilities imply (the
  Bradley–Terry fit to p̂ weighted by the counts) and their sandwich covariance (the model's
  curvature around the spread of the observed outcomes, so a pair that disagrees with the
  model does not pass for precise) give each unsettled neighbour pair a z of its order;
- the risk is Σ Φ(−z) over those pairs: the expected number of them still in the wrong order.

A round is built greedily, :data:`STEP` matches at a time, each step to the candidate pair
that lowers the risk most. Candidates are the pairs with at least one entry of an unsettled
neighbour pair: entries whose places are settled only ever play as the common opponents that
tell two unsure ones apart. Refitting with the plan's counts matters: adding matches of a pair
moves the fitted gap toward that pair's own record, so a head-to-head that splits evenly is
seen to shrink the very gap it was meant to confirm.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

PRIOR_MATCHES = 8.0  # K: how many matches' worth of weight the board's prediction keeps
STEP = 2  # matches per greedy step
_ITER = 30
_TOL = 1e-7


def _laplacian(n: int, i: np.ndarray, j: np.ndarray, w: np.ndarray) -> np.ndarray:
    out = np.zeros((n, n))
    np.add.at(out, (i, i), w)
    np.add.at(out, (j, j), w)
    np.add.at(out, (i, j), -w)
    np.add.at(out, (j, i), -w)
    return out


def _fit(
    i: np.ndarray, j: np.ndarray, n: np.ndarray, p: np.ndarray, theta: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """θ of the Bradley–Terry fit to probabilities ``p`` with weights ``n`` (Newton, warm start)
    and its sandwich covariance."""
    k = theta.size
    ridge = 1e-6 * np.eye(k)
    for _ in range(_ITER):
        q = 1.0 / (1.0 + np.exp(-(theta[i] - theta[j])))
        grad = np.zeros(k)
        np.add.at(grad, i, n * (p - q))
        np.add.at(grad, j, -n * (p - q))
        step = np.linalg.solve(_laplacian(k, i, j, n * q * (1 - q)) + ridge, grad)
        theta = theta + np.clip(step, -2.0, 2.0)
        if float(np.max(np.abs(step))) < _TOL:
            break
    q = 1.0 / (1.0 + np.exp(-(theta[i] - theta[j])))
    bread = np.linalg.pinv(_laplacian(k, i, j, n * q * (1 - q)))
    meat = _laplacian(k, i, j, n * p * (1 - p))
    return theta, bread @ meat @ bread


def risk(
    i: np.ndarray,
    j: np.ndarray,
    n: np.ndarray,
    p: np.ndarray,
    theta: np.ndarray,
    unsure: Sequence[int],
) -> float:
    """Σ Φ(−z) over the unsure neighbour pairs (k, k + 1) of the board's order."""
    fitted, cov = _fit(i, j, n, p, theta)
    total = 0.0
    for k in unsure:
        var = cov[k, k] + cov[k + 1, k + 1] - 2.0 * cov[k, k + 1]
        z = (fitted[k] - fitted[k + 1]) / math.sqrt(max(var, 1e-12))
        total += 0.5 * math.erfc(z / math.sqrt(2.0))
    return total


def greedy_round(
    names: Sequence[str],
    theta: Sequence[float],
    rec: Mapping[tuple[str, str], tuple[float, int]],
    unsure: Sequence[int],
    matches: int,
) -> dict[tuple[str, str], int]:
    """``matches`` of the round, per pair (names in board order, best first; ``theta`` their
    fitted strengths in logits; ``rec`` head-to-head records keyed by sorted names, (the first
    name's wins, matches); ``unsure`` the indices k of unsettled neighbours (k, k + 1))."""
    if matches <= 0 or not unsure:
        return {}
    th = np.asarray(theta, dtype=float)
    cand = [(a, b) for x, a in enumerate(names) for b in names[x + 1 :]]
    pos = {name: x for x, name in enumerate(names)}
    i = np.array([pos[a] for a, _ in cand])
    j = np.array([pos[b] for _, b in cand])
    n = np.zeros(len(cand))
    p = np.zeros(len(cand))
    for k, (a, b) in enumerate(cand):
        lo, hi = sorted((a, b))
        wins, count = rec.get((lo, hi), (0.0, 0))
        a_wins = wins if a == lo else count - wins
        q = 1.0 / (1.0 + math.exp(-(th[i[k]] - th[j[k]])))
        n[k] = count
        p[k] = (a_wins + PRIOR_MATCHES * q) / (count + PRIOR_MATCHES)
    touched = {x for k in unsure for x in (k, k + 1)}
    open_ = [k for k in range(len(cand)) if i[k] in touched or j[k] in touched]
    out: dict[tuple[str, str], int] = {}
    left = matches
    while left > 0:
        step = min(STEP, left)
        best, pick = math.inf, open_[0]
        for k in open_:
            trial = n.copy()
            trial[k] += step
            r = risk(i, j, trial, p, th, unsure)
            if r < best:
                best, pick = r, k
        n[pick] += step
        out[cand[pick]] = out.get(cand[pick], 0) + step
        left -= step
    return out
