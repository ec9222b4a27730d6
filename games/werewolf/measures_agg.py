"""Werewolf measures over many matches with 95% confidence intervals (metrics.md §C5).

Every figure of :func:`games.werewolf.measures.match_measures` is a per-match
``[numerator, denominator]`` pair; the pooled value is Σnum / Σden over the matches where the
denominator is positive. Intervals: a cluster bootstrap over **matches** (B resamples with
replacement, percentile [2.5, 97.5], :mod:`arena.stats`) from an own seeded ``numpy`` Generator;
win-rate figures without any draw use the closed-form Wilson interval instead. Derived figures: VA lift
(VA − VA_chance on the same resamples) and the side-balanced win rate ½(WR_village + WR_wolves).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from arena.stats import percentile_interval, ratio_samples, resample_sums, wilson

WIN_RATE_PREFIXES = ("wr|", "wr_role|", "village_win", "wolves_win")


def _pct(samples: np.ndarray) -> list[float | None]:
    ci = percentile_interval(samples)
    return [None, None] if ci is None else list(ci)


class _Pool:
    """Per-figure numerator/denominator arrays over matches plus one shared set of resamples:
    every figure (and every derived figure) is computed on the same resampled matches."""

    def __init__(self, matches: Sequence[dict[str, Any]], n_boot: int, seed: int) -> None:
        self.m = len(matches)
        keys = sorted({k for mm in matches for k in mm["counts"]})
        self.col = {k: i for i, k in enumerate(keys)}
        self.num = {k: np.zeros(self.m) for k in keys}
        self.den = {k: np.zeros(self.m) for k in keys}
        for i, mm in enumerate(matches):
            for k, (a, b) in mm["counts"].items():
                self.num[k][i] = a
                self.den[k][i] = b
        self.sums: np.ndarray | None = None
        if self.m:
            rows = np.column_stack([self.num[k] for k in keys] + [self.den[k] for k in keys])
            self.sums = resample_sums(rows, np.random.default_rng(seed), n_boot)

    def value(self, key: str) -> float | None:
        d = self.den[key].sum()
        return float(self.num[key].sum() / d) if d > 0 else None

    def boot(self, key: str) -> np.ndarray:
        assert self.sums is not None
        i = self.col[key]
        return ratio_samples(self.sums, i, len(self.col) + i)


def aggregate(
    matches: Sequence[dict[str, Any]], *, n_boot: int = 2000, seed: int = 0
) -> dict[str, Any]:
    """Pooled figures with 95% CIs over ``matches`` (outputs of ``match_measures``).

    Aborted matches are excluded and counted. Returns ``{"n_matches", "n_aborted", "seed",
    "n_boot", "figures": {name: {"value", "ci", "n", "method"}}}``; ``n`` is the number of
    matches that define the figure.
    """
    kept = [m for m in matches if not m.get("aborted")]
    pool = _Pool(kept, n_boot, seed)
    figures: dict[str, dict[str, Any]] = {}
    any_draw = {k: False for k in pool.num}
    for key in pool.num:
        if key.startswith(WIN_RATE_PREFIXES):
            any_draw[key] = any(m["draw"] for m, d in zip(kept, pool.den[key], strict=True) if d)
    for key in sorted(pool.num):
        value = pool.value(key)
        n = int((pool.den[key] > 0).sum())
        if value is None or pool.sums is None:
            figures[key] = {"value": value, "ci": [None, None], "n": n, "method": None}
            continue
        is_wr = key.startswith(WIN_RATE_PREFIXES)
        ci: list[float | None]
        if is_wr and not any_draw[key]:
            ci, method = list(wilson(pool.num[key].sum(), pool.den[key].sum())), "wilson"
        else:
            ci, method = _pct(pool.boot(key)), "bootstrap"
        figures[key] = {"value": value, "ci": ci, "n": n, "method": method}
    # derived: VA lift on the same resamples
    for key in [k for k in pool.num if k == "va" or k.startswith("va|")]:
        chance = "va_chance" + key[2:]
        if chance in pool.num and pool.sums is not None and pool.value(key) is not None:
            lift = pool.boot(key) - pool.boot(chance)
            figures["va_lift" + key[2:]] = {
                "value": pool.value(key) - pool.value(chance),  # type: ignore[operator]
                "ci": _pct(lift),
                "n": figures[key]["n"],
                "method": "bootstrap",
            }
    # derived: side-balanced win rate per agent
    agents = {k.split("|")[1] for k in pool.num if k.startswith("wr|")}
    for a in sorted(agents):
        v, w = f"wr|{a}|village", f"wr|{a}|wolves"
        if v in pool.num and w in pool.num and pool.sums is not None:
            if pool.value(v) is None or pool.value(w) is None:
                continue
            figures[f"wr_bal|{a}"] = {
                "value": 0.5 * (pool.value(v) + pool.value(w)),  # type: ignore[operator]
                "ci": _pct(0.5 * (pool.boot(v) + pool.boot(w))),
                "n": int(((pool.den[v] > 0) | (pool.den[w] > 0)).sum()),
                "method": "bootstrap",
            }
    return {
        "n_matches": len(kept),
        "n_aborted": len(matches) - len(kept),
        "seed": seed,
        "n_boot": n_boot,
        "figures": figures,
    }
