"""Population measures over head-to-head results (metrics.md §C8): cross-table R(x, y),
population return, within-population exploitability and the aggregate score, with CIs.

Resampling goes through :mod:`arena.stats` (the games of every cell independently, a seeded
``numpy.random.Generator`` from the caller).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arena.stats import percentile_interval, resample_sums


def _interval(samples: np.ndarray) -> tuple[float, float]:
    ci = percentile_interval(samples)
    assert ci is not None  # every cell has at least one game: its resamples are finite
    return ci


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
    point, boot, table = _cross_table(cells, entries, rng, b)
    return {"entries": entries, "table": table, "scores": _scores(entries, point, boot)}


def _cross_table(
    cells: dict[tuple[str, str], list[tuple[float, float]]],
    entries: list[str],
    rng: np.random.Generator,
    b: int,
) -> tuple[np.ndarray, np.ndarray, dict[str, dict[str, dict[str, float | int]]]]:
    """R(x, y) per ordered pair: the point matrix, its ``b`` bootstrap copies (every cell's
    games resampled independently) and the table with a 95% interval per cell."""
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
            lo, hi = _interval(sums[:, k])
            table.setdefault(a, {})[c] = {
                "mean": round(float(arr[:, k].mean()), 4),
                "low": round(float(lo), 4),
                "high": round(float(hi), 4),
                "games": n,
            }
    return point, boot, table


def _scores(
    entries: list[str], point: np.ndarray, boot: np.ndarray
) -> dict[str, dict[str, object]]:
    """Per entry with an opponent: PR, WPE with its exploiter, and PR - WPE, with intervals."""

    def ci(v: np.ndarray) -> list[float]:
        return [round(q, 4) for q in _interval(v)]

    m = len(entries)
    scores: dict[str, dict[str, object]] = {}
    for i, e in enumerate(entries):
        others = [j for j in range(m) if j != i and not np.isnan(point[i, j])]
        if not others:
            continue
        pr = point[i, others].mean()
        col = point[others, i]
        k = int(np.argmax(col))
        wpe = col[k]
        pr_b = boot[:, i, others].mean(axis=1)
        wpe_b = boot[:, others, i].max(axis=1)
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
    return scores
