"""How many more matches settle a board's order: per adjacent pair of the batch fit.

For each pair of entries next to each other on the board (a above b):

- ``p_order``: the probability that their order is right, the share of bootstrap resamples
  (matches resampled, the batch fit refitted) in which a's μ is above b's;
- ``gap`` and ``se``: the fitted μ difference and its bootstrap standard error;
- ``mdd``: the minimum detectable difference at the current sample, (z_c + z_p)·se (c: the
  pair's share of the confidence, below): the
  smallest true gap the data would show at confidence c (one-sided) with power p (0.8);
- ``more``: further matches, beyond the ``played`` ones that seat a or b, until the observed
  gap would be that minimum detectable difference: played·(se/se*)² − played with
  se* = |gap|/(z_c + z_p), as the standard error shrinks with the square root of the matches
  (None: the gap is too small to settle within :data:`MAX_MORE`);
- ``cost_usd`` / ``tokens``: those matches at the recorded mean cost and tokens per match of
  the pair's entries.

A pair is ``settled`` when ``p_order`` reaches the pair's share of the confidence and both
entries played at least :data:`MIN_PLAYED` matches; a settled pair needs no more matches
(``more`` 0, no cost). The share is 1 − (1 − confidence)/m over the board's m adjacent pairs (a
union bound): when every pair is settled, the *whole* order is right with probability at least
the confidence, where settling each pair at the confidence itself would leave a five-entry
board's order wrong up to four times as often. Its
``mdd`` may still exceed its gap: the order is sure at the confidence (the gap is past z_c·se),
while ``mdd`` also asks for 80% power, (z_c + z_p)·se — the gap a *new* sample of this size
would detect four times in five. :func:`allocate` spends a round of matches on the comparisons
that tell unsure neighbours apart (what rating-driven matchmaking with ``by: planner`` plans), and
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
from arena.ratings import design
from arena.ratings.leaderboard import KEYS, By
from arena.results import MatchResult

POWER = 0.8
MAX_MORE = 1_000_000
# A pair is never settled before both entries played this many matches: a bootstrap of a
# handful of matches is overconfident (it cannot see the outcomes that have not happened yet).
MIN_PLAYED = 10
# The share of a planned round that goes to the pairs that met least (every pair keeps meeting).
EXPLORE = 0.1


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
    level = pair_confidence(confidence, len(names) - 1)
    z = NormalDist().inv_cdf(level) + NormalDist().inv_cdf(POWER)
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
        settled = p >= level and n >= MIN_PLAYED
        if settled:  # nothing more to play, whatever the power-based estimate would ask
            more = 0
        cost = _cost(match_cost, a, b, more)
        out.append({
            "above": a, "below": b, "gap": round(gap, 3), "se": round(se, 3),
            "p_order": round(p, 4), "settled": settled,
            "mdd": round(z * se, 3),
            "played": n, "more": more, **cost,
        })  # fmt: skip
    return out


def pair_confidence(confidence: float, pairs: int) -> float:
    """The confidence each of ``pairs`` adjacent orders needs for the whole order to hold at
    ``confidence`` (Bonferroni: the chances of a wrong pair add up at most)."""
    return 1.0 - (1.0 - confidence) / max(1, pairs)


def _more(n: int, gap: float, se: float, z: float) -> int | None:
    # no gap: no number of matches shows its direction, even where the two keys never differ
    # in any resample (two roles always held by the same entry: se 0 as well)
    if abs(gap) < 1e-9 or n == 0:
        return None
    if se <= 0:
        return 0
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


def records(results: list[MatchResult]) -> dict[tuple[str, str], tuple[float, int]]:
    """Head-to-head records of the two-entry matches: (a, b) with a < b -> (a's wins, matches);
    a draw is half a win each. Errored matches are not rated and do not count."""
    out: dict[tuple[str, str], tuple[float, int]] = {}
    for r in results:
        ranks = rating_batch.team_ranks(r)
        entries = {s.agent for s in r.seats}
        if ranks is None or len(entries) != 2:
            continue
        a, b = sorted(entries)
        rank = {s.agent: ranks[s.team] for s in r.seats}
        won = 1.0 if rank[a] < rank[b] else 0.5 if rank[a] == rank[b] else 0.0
        wins, n = out.get((a, b), (0.0, 0))
        out[(a, b)] = (wins + won, n + 1)
    return out


def allocate(
    plan: list[dict[str, Any]],
    results: list[MatchResult],
    matches: int,
    explore: float = EXPLORE,
) -> list[tuple[str, str]]:
    """``matches`` spent where they tell unsure neighbours apart ([] when every adjacent pair
    is settled).

    The round is a sequential design (:mod:`arena.ratings.design`): matches go, a few at a time,
    to the pair that most lowers the expected number of unsettled neighbours still in the
    wrong order, on a Bradley–Terry model of the records with the counts the round would
    reach. Close entries that split their own games are then compared through common
    opponents whose records tell them apart, and an entry settled far above or below the rest
    plays only as such an opponent. A share ``explore`` of the round (rounded up) goes to the
    pairs of the whole field that met least, so every pair keeps meeting and a record that
    looked empty by chance is measured again."""
    if not plan or all(p["settled"] for p in plan) or matches <= 0:
        return []
    names = [plan[0]["above"], *(p["below"] for p in plan)]
    theta = [0.0]
    for p in plan:  # the fitted gaps, μ units, back to logits
        theta.append(theta[-1] - p["gap"] / rating_batch.SCALE)
    rec = records(results)
    unsure = [k for k, p in enumerate(plan) if not p["settled"]]
    floor = min(matches, math.ceil(explore * matches))
    counts = design.greedy_round(names, theta, rec, unsure, matches - floor)
    cand = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    met = {pair: rec.get(pair if pair[0] < pair[1] else (pair[1], pair[0]), (0.0, 0))[1]
           for pair in cand}  # fmt: skip
    for _ in range(floor):
        pair = min(cand, key=lambda c: (met[c] + counts.get(c, 0), cand.index(c)))
        counts[pair] = counts.get(pair, 0) + 1
    return [pair for pair in cand for _ in range(counts.get(pair, 0))]
