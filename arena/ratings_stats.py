"""Uncertainty and population measures over match results (metrics.md §C5, §C6, §C8).

Every resampling uses a ``numpy.random.Generator`` seeded by the caller (the seed is reported);
the match is the resampling unit (seats of one match are dependent).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import combinations
from typing import Any

import numpy as np

Z95 = 1.96


def wilson(wins: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Closed-form Wilson 95% interval of a proportion (no draws)."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def resample_sums(rows: np.ndarray, rng: np.random.Generator, b: int) -> np.ndarray:
    """``b`` bootstrap resamples of the rows (matches) of ``rows`` (n x k): column sums (b x k).

    Identical rows are pooled and drawn with one multinomial, which is the same distribution as
    drawing n rows with replacement but costs O(b x distinct rows) instead of O(b x n).
    """
    n = rows.shape[0]
    uniq, counts = np.unique(rows, axis=0, return_counts=True)
    if len(uniq) <= 512:
        draws = rng.multinomial(n, counts / n, size=b)  # b x distinct
        return draws @ uniq
    out = np.empty((b, rows.shape[1]))
    chunk = max(1, 2_000_000 // n)
    for start in range(0, b, chunk):
        stop = min(b, start + chunk)
        idx = rng.integers(0, n, size=(stop - start, n))
        out[start:stop] = rows[idx].sum(axis=1)
    return out


def ratio_ci(
    num: Sequence[float], den: Sequence[float], rng: np.random.Generator, b: int
) -> tuple[float, float]:
    """Percentile 95% interval of sum(num)/sum(den) resampling matches."""
    rows = np.column_stack([np.asarray(num, float), np.asarray(den, float)])
    sums = resample_sums(rows, rng, b)
    with np.errstate(invalid="ignore", divide="ignore"):
        values = sums[:, 0] / sums[:, 1]
    values = values[np.isfinite(values)]
    lo, hi = np.percentile(values, [2.5, 97.5])
    return (float(lo), float(hi))


def rse(values: Sequence[float]) -> float | None:
    """Relative standard error over repeats in percent: s / (sqrt(R) * mean) * 100 (§C6)."""
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
    taus = [kendall_tau(x, y) for x, y in combinations(rankings, 2)]
    present = [t for t in taus if t is not None]
    return float(np.mean(present)) if present else None


def population(
    cells: dict[tuple[str, str], list[tuple[float, float]]],
    rng: np.random.Generator,
    b: int,
) -> dict[str, Any]:
    """Cross-table R(x, y), population return, within-population exploitability (§C8).

    ``cells[(x, y)]`` holds, per head-to-head match of x and y (x < y), the pair (return of x,
    return of y). Returns the table with 95% CIs per cell and per-entry PR, WPE (with the
    exploiting entry) and AggregateScore = PR - WPE, each with a bootstrap CI that resamples
    the games of every cell independently.
    """
    entries = sorted({e for pair in cells for e in pair})
    if len(entries) < 2:
        return {"entries": entries, "table": {}, "scores": {}}
    idx = {e: i for i, e in enumerate(entries)}
    m = len(entries)
    point = np.full((m, m), np.nan)
    boot = np.full((b, m, m), np.nan)
    table: dict[str, dict[str, dict[str, float | int]]] = {}
    for (x, y), games in sorted(cells.items()):
        arr = np.asarray(games, float)
        n = len(arr)
        sums = resample_sums(arr, rng, b) / n
        i, j = idx[x], idx[y]
        point[i, j], point[j, i] = arr[:, 0].mean(), arr[:, 1].mean()
        boot[:, i, j], boot[:, j, i] = sums[:, 0], sums[:, 1]
        for a, c, k in ((x, y, 0), (y, x, 1)):
            lo, hi = np.percentile(sums[:, k], [2.5, 97.5])
            table.setdefault(a, {})[c] = {
                "mean": round(float(arr[:, k].mean()), 4),
                "low": round(float(lo), 4),
                "high": round(float(hi), 4),
                "games": n,
            }
    scores: dict[str, dict[str, object]] = {}
    for e, i in idx.items():
        others = [j for j in range(m) if j != i and not np.isnan(point[i, j])]
        if not others:
            continue
        pr = point[i, others].mean()
        col = point[others, i]
        k = int(np.argmax(col))
        wpe = col[k]
        pr_b = boot[:, i, others].mean(axis=1)
        wpe_b = boot[:, others, i].max(axis=1)

        def ci(v: np.ndarray) -> list[float]:
            return [round(float(q), 4) for q in np.percentile(v, [2.5, 97.5])]

        scores[e] = {
            "pr": round(float(pr), 4),
            "pr_ci": ci(pr_b),
            "wpe": round(float(wpe), 4),
            "wpe_ci": ci(wpe_b),
            "exploiter": entries[others[k]],
            "aggregate": round(float(pr - wpe), 4),
            "aggregate_ci": ci(pr_b - wpe_b),
            "opponents": len(others),
        }
    return {"entries": entries, "table": table, "scores": scores}
