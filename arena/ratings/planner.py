"""How many more matches settle a board's order: per adjacent pair of the batch fit.

For each pair of entries next to each other on the board (a above b):

- ``p_order``: the probability that their order is right, the share of bootstrap resamples
  (matches resampled, the batch fit refitted) in which a's μ is above b's;
- ``gap`` and ``se``: the fitted μ difference and its bootstrap standard error;
- ``mdd``: the minimum detectable difference at the current sample, (z_c + z_p)·se: the
  smallest true gap the data would show at confidence c (one-sided) with power p (0.8);
- ``more``: further matches, beyond the ``played`` ones that seat a or b, until the observed
  gap would be that minimum detectable difference: played·(se/se*)² − played with
  se* = |gap|/(z_c + z_p), as the standard error shrinks with the square root of the matches
  (None: the gap is too small to settle within :data:`MAX_MORE`);
- ``cost_usd`` / ``tokens``: those matches at the recorded mean cost and tokens per match of
  the pair's entries.

A pair is ``settled`` when ``p_order`` reaches the confidence and both entries played at least
:data:`MIN_PLAYED` matches. :func:`allocate` spends a round of matches on the entries whose
places are unsure (what rating-driven matchmaking with ``by: planner`` plans), and
:func:`within_budget` proposes how a budget in dollars is best spent (``arena plan
--budget-usd``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from statistics import NormalDist
from typing import Any

import numpy as np

from arena.ratings import batch as rating_batch
from arena.ratings.leaderboard import KEYS, By
from arena.results import MatchResult

POWER = 0.8
MAX_MORE = 1_000_000
# A pair is never settled before both entries played this many matches: a bootstrap of a
# handful of matches is overconfident (it cannot see the outcomes that have not happened yet).
MIN_PLAYED = 10


def _played(results: list[MatchResult], keyfn: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for r in results:
        if r.status == "errored":
            continue
        for key in {keyfn(r, s) for s in r.seats}:
            out[key] = out.get(key, 0) + 1
    return out


def pairs(
    results: list[MatchResult],
    by: By = "agent",
    confidence: float = 0.95,
    seed: int = 0,
    resamples: int = 500,
    freeze: Iterable[str] = (),
    match_cost: Mapping[str, tuple[float, float]] | None = None,
) -> list[dict[str, Any]]:
    """The adjacent pairs of the batch fit's order, best first (see the module doc).

    ``match_cost``: per entry, its mean (USD, tokens) per match, from the recorded calls."""
    keyfn = KEYS[by]
    fitted = rating_batch.fit(
        results, keyfn, freeze=list(freeze), rng=np.random.default_rng([seed, 7]),
        resamples=resamples,
    )  # fmt: skip
    names = sorted(
        (k for k in fitted.mu if not k.startswith(rating_batch.SIDE)),
        key=lambda k: (-fitted.mu[k], k),
    )
    samples = rating_batch.samples_of(fitted, names)
    played = _played(results, keyfn)
    z = NormalDist().inv_cdf(confidence) + NormalDist().inv_cdf(POWER)
    out = []
    for i in range(len(names) - 1):
        a, b = names[i], names[i + 1]
        gap = fitted.mu[a] - fitted.mu[b]
        if samples is not None:
            diff = samples[:, i] - samples[:, i + 1]
            p = float(np.mean(diff > 0) + 0.5 * np.mean(diff == 0))
            se = float(np.std(diff))
        else:  # no resamples: the Laplace errors, as if independent
            se = math.hypot(fitted.sigma[a], fitted.sigma[b])
            p = NormalDist().cdf(gap / se) if se > 0 else 1.0
        n = min(played.get(a, 0), played.get(b, 0))
        more = _more(n, gap, se, z)
        if more is not None and n < MIN_PLAYED:  # not settled before the minimum, whatever p
            more = max(more, MIN_PLAYED - n)
        cost = _cost(match_cost, a, b, more)
        out.append({
            "above": a, "below": b, "gap": round(gap, 3), "se": round(se, 3),
            "p_order": round(p, 4), "settled": p >= confidence and n >= MIN_PLAYED,
            "mdd": round(z * se, 3),
            "played": n, "more": more, **cost,
        })  # fmt: skip
    return out


def _more(n: int, gap: float, se: float, z: float) -> int | None:
    if se <= 0:
        return 0
    if abs(gap) < 1e-9 or n == 0:
        return None
    target = abs(gap) / z
    total = n * (se / target) ** 2
    more = max(0, math.ceil(total - n))
    return more if more <= MAX_MORE else None


def _cost(
    match_cost: Mapping[str, tuple[float, float]] | None, a: str, b: str, more: int | None
) -> dict[str, Any]:
    if match_cost is None:
        return {"cost_usd": None, "tokens": None}
    usd = (match_cost.get(a, (0.0, 0.0))[0] + match_cost.get(b, (0.0, 0.0))[0]) / 2
    tok = (match_cost.get(a, (0.0, 0.0))[1] + match_cost.get(b, (0.0, 0.0))[1]) / 2
    if more is None:
        return {"cost_usd": None, "tokens": None, "usd_per_match": usd, "tokens_per_match": tok}
    return {
        "cost_usd": round(more * usd, 4),
        "tokens": round(more * tok),
        "usd_per_match": usd,
        "tokens_per_match": tok,
    }


def within_budget(plan: list[dict[str, Any]], budget_usd: float) -> list[dict[str, Any]]:
    """The pairs to settle first (least sure first) and the matches each gets within
    ``budget_usd``, at each pair's recorded cost per match."""
    out, left = [], budget_usd
    for p in sorted(
        (p for p in plan if not p["settled"]), key=lambda p: (p["p_order"], p["above"])
    ):
        per = p.get("usd_per_match") or 0.0
        if p["more"] is None:  # too close to settle at any affordable size: not worth a cent
            continue
        want = p["more"]
        k = want if per <= 0 else min(want, int(left // per))
        if k <= 0:
            continue
        left -= k * per
        out.append(
            {"above": p["above"], "below": p["below"], "matches": k, "usd": round(k * per, 4)}
        )
    return out


def allocate(plan: list[dict[str, Any]], matches: int) -> list[tuple[str, str]]:
    """``matches`` spread over every pair of entries in proportion to how unsure the two
    entries' places are: an entry's weight is the sum of 1 − p_order over its unsettled
    adjacent pairs, a pair's the sum of its two entries' weights. An entry's place on the board
    is set by its results against everyone (a close pair may even split its head-to-heads while
    their records against the rest tell them apart), so an unsure entry plays the whole field;
    pairs of settled entries get nothing. [] when every adjacent pair is settled."""
    if not plan or all(p["settled"] for p in plan) or matches <= 0:
        return []
    names = [plan[0]["above"], *(p["below"] for p in plan)]
    weight = dict.fromkeys(names, 0.0)
    for p in plan:
        if not p["settled"]:
            weight[p["above"]] += 1.0 - p["p_order"]
            weight[p["below"]] += 1.0 - p["p_order"]
    cand = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    w = [weight[a] + weight[b] for a, b in cand]
    total = sum(w)
    exact = [x / total * matches for x in w]
    counts = [math.floor(x) for x in exact]
    order = sorted(range(len(exact)), key=lambda i: (-(exact[i] - counts[i]), i))
    for i in order[: matches - sum(counts)]:
        counts[i] += 1
    return [pair for pair, k in zip(cand, counts, strict=True) for _ in range(k)]
