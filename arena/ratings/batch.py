"""The leaderboard's rating: one Bradley–Terry fit over all results, whatever order they came in.

TrueSkill (:mod:`arena.ratings.leaderboard`) folds results one at a time, so its numbers depend on the fold
order: on a five-level known-strength Werewolf population only 55–65% of the orders of the same
results gave the right ranking. The leaderboard's sort key is this batch fit instead
(docs/ratings.md). Its model, per rated match and pair of teams (a, b):

    P(a beats b) = logistic(s_a - s_b),   s_t = mean of θ over t's seats + δ(game, t)

θ is the strength of each rated key (an entry, ``entry@role``, ``entry@faction``, ``game/entry``)
and δ a hidden per-(game, faction) advantage, as TrueSkill's ``side:`` players (six villagers
against two wolves are not an equal fight). A draw counts a half win each way; a match of K
teams counts each of its K(K-1)/2 pairs with weight 1/(K-1). The estimate is the posterior mode
under a normal prior on every θ and δ (TrueSkill's prior, σ₀ = 25/3 on the μ scale): it exists
when an entry never lost, and shrinks entries with few games toward the mean. Results only say
how entries differ, so the entries' mean μ is 25 and σ (from the posterior's curvature, the
Laplace approximation) is the standard error relative to that mean. Frozen entries are held at
the prior mean instead (they anchor the scale, and σ is relative to them).

The fit is a function of the multiset of results: matches are pooled by their content (sorted),
so neither the plan order nor the arrival order changes a bit of it. Reported on TrueSkill's scale,
μ = 25 + S·θ with S = √2·β/1.702 (β = 25/6): a gap Δμ wins with probability ≈ Φ(Δμ / (√2 β)),
as in TrueSkill. Intervals come from the cluster bootstrap over matches: multinomial weights on
the pooled matches, each resample refitted (vectorised Newton steps, warm-started at the fit).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from arena import stats as st
from arena.results import RATED, MatchResult, SeatResult, ranks_by_reward

MU0 = 25.0
SIGMA0 = 25.0 / 3
BETA = 25.0 / 6
SCALE = math.sqrt(2.0) * BETA / 1.702  # μ units per logit
PRIOR_SD = SIGMA0 / SCALE  # the prior's sd in logits
MAX_STEP = 4.0
TOL = 1e-9  # logits: the fit has converged when no step moves a strength more
SIDE = "side:"
KeyFn = Callable[[MatchResult, SeatResult], str]


def seats_by_team(result: MatchResult) -> dict[str, list[SeatResult]]:
    """The match's seats grouped by team, in seat order within a team."""
    teams: dict[str, list[SeatResult]] = defaultdict(list)
    for s in result.seats:
        teams[s.team].append(s)
    return teams


def team_ranks(result: MatchResult) -> dict[str, int] | None:
    """Rank per team (0 best, ties share) or None when the match is not rated.

    Finished and forfeited matches are rated: a forfeit is the forfeiting seat's failure (its
    reward is -1, everyone else's 0), so its team loses and the others win; not rating it would
    let an entry that is losing escape the loss by giving no valid answer. Errored matches (the
    harness failed, not an agent) are not rated."""
    if result.status not in RATED or not result.seats:
        return None
    ranks = ranks_by_reward((s.team, s.reward) for s in result.seats)
    return ranks if len(ranks) >= 2 else None


# A comparison: ((player, weight) on a's side, minus b's), outcome for a, pair weight.
_Row = tuple[tuple[tuple[str, float], ...], float, float]


def _rows(result: MatchResult, keyfn: KeyFn) -> tuple[_Row, ...] | None:
    ranks = team_ranks(result)
    if ranks is None:
        return None
    teams = seats_by_team(result)
    order = sorted(teams)
    pair_weight = 1.0 / (len(order) - 1)
    rows: list[_Row] = []
    for i, a in enumerate(order):
        for b in order[i + 1 :]:
            x: dict[str, float] = defaultdict(float)
            for t, sign in ((a, 1.0), (b, -1.0)):
                for s in teams[t]:
                    x[keyfn(result, s)] += sign / len(teams[t])
                x[f"{SIDE}{result.game}:{t}"] += sign
            y = 0.5 if ranks[a] == ranks[b] else float(ranks[a] < ranks[b])
            coefs = tuple(sorted((k, v) for k, v in x.items() if v != 0.0))
            rows.append((coefs, y, pair_weight))
    return tuple(sorted(rows))


@dataclass(frozen=True)
class Design:
    """The pooled comparisons of a set of results, ready for the fit.

    ``x`` (rows x players) and ``y``/``w`` per row; ``row_match`` is each row's distinct match and
    ``counts`` says how many matches had that content.
    """

    players: list[str]  # fitted players (entries and sides, frozen ones left out)
    x: np.ndarray
    y: np.ndarray
    w: np.ndarray
    row_match: np.ndarray
    counts: np.ndarray

    @property
    def matches(self) -> int:
        return int(self.counts.sum())


def design(results: Iterable[MatchResult], keyfn: KeyFn, frozen: Iterable[str] = ()) -> Design:
    fixed = set(frozen)
    pooled: dict[tuple[_Row, ...], int] = defaultdict(int)
    for result in results:
        rows = _rows(result, keyfn)
        if rows:
            pooled[rows] += 1
    distinct = sorted(pooled)
    players = sorted({k for rows in distinct for coefs, _, _ in rows for k, _ in coefs} - fixed)
    col = {p: j for j, p in enumerate(players)}
    flat = [(m, row) for m, rows in enumerate(distinct) for row in rows]
    x = np.zeros((len(flat), len(players)))
    y = np.zeros(len(flat))
    w = np.zeros(len(flat))
    row_match = np.asarray([m for m, _ in flat], dtype=np.intp)
    for r, (_, (coefs, out, weight)) in enumerate(flat):
        for k, v in coefs:
            if k in col:
                x[r, col[k]] = v
        y[r], w[r] = out, weight
    counts = np.asarray([pooled[rows] for rows in distinct], dtype=float)
    return Design(players, x, y, w, row_match, counts)


def _capped(step: np.ndarray) -> np.ndarray:
    # A long first step on nearly separated data can overshoot; the loss is convex, so capping
    # each step at MAX_STEP logits only slows the first iterations.
    big = np.max(np.abs(step), axis=1, keepdims=True)
    return np.asarray(step * np.minimum(1.0, MAX_STEP / np.maximum(big, 1e-300)))


def _gradient(d: Design, rw: np.ndarray, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    prob = 1.0 / (1.0 + np.exp(-(theta @ d.x.T)))
    return (rw * (prob - d.y)) @ d.x + theta / PRIOR_SD**2, prob


def _newton(d: Design, match_weights: np.ndarray, start: np.ndarray | None = None) -> np.ndarray:
    """Posterior modes of θ for each row of ``match_weights`` (resamples x distinct matches)."""
    b, p = match_weights.shape[0], len(d.players)
    theta = np.zeros((b, p)) if start is None else np.array(np.broadcast_to(start, (b, p)))
    if p == 0:
        return theta
    rw = match_weights[:, d.row_match] * d.w  # resamples x rows
    xx = (d.x[:, :, None] * d.x[:, None, :]).reshape(len(d.y), p * p)
    ridge = np.eye(p) / PRIOR_SD**2
    for _ in range(100):
        grad, prob = _gradient(d, rw, theta)
        hess = ((rw * prob * (1.0 - prob)) @ xx).reshape(b, p, p) + ridge
        step = _capped(np.linalg.solve(hess, grad[:, :, None])[:, :, 0])
        theta = theta - step
        if float(np.max(np.abs(step))) < TOL:
            break
    return theta


def _refit(d: Design, match_weights: np.ndarray, start: np.ndarray, hess: np.ndarray) -> np.ndarray:
    """:func:`_newton` for bootstrap resamples, warm-started at the fit: steps preconditioned by
    the fit's own Hessian (a resample's differs little, and building one per resample costs
    rows x players² each), then full Newton steps for any resample that has not converged."""
    b, p = match_weights.shape[0], len(d.players)
    theta = np.array(np.broadcast_to(start, (b, p)))
    rw = match_weights[:, d.row_match] * d.w
    inverse = np.linalg.inv(hess)
    moving = np.ones(b, dtype=bool)
    for _ in range(40):
        grad, _ = _gradient(d, rw[moving], theta[moving])
        step = _capped(grad @ inverse)
        theta[moving] -= step
        still = np.max(np.abs(step), axis=1) >= TOL
        moving[np.flatnonzero(moving)[~still]] = False
        if not moving.any():
            return theta
    theta[moving] = _newton(d, match_weights[moving], theta[moving])
    return theta


@dataclass(frozen=True)
class Fit:
    """Posterior modes (μ scale), Laplace σ, and bootstrap samples of μ (resamples x players)."""

    players: list[str]
    mu: dict[str, float]
    sigma: dict[str, float]
    samples: np.ndarray | None  # μ of each bootstrap resample, columns as ``players``
    matches: int


def fit(
    results: Iterable[MatchResult],
    keyfn: KeyFn,
    *,
    freeze: Iterable[str] = (),
    rng: np.random.Generator | None = None,
    resamples: int = 0,
) -> Fit:
    """The batch fit of ``results`` (order-free), with ``resamples`` bootstrap refits."""
    frozen = set(freeze)
    d = design(results, keyfn, frozen)
    theta = _newton(d, d.counts[None, :])[0]
    p = len(d.players)
    mu = {k: MU0 + SCALE * float(v) for k, v in zip(d.players, theta, strict=True)}
    sigma: dict[str, float] = {}
    if p:
        prob = 1.0 / (1.0 + np.exp(-(d.x @ theta)))
        rw = d.counts[d.row_match] * d.w
        hess = (d.x * (rw * prob * (1 - prob))[:, None]).T @ d.x + np.eye(p) / PRIOR_SD**2
        cov = np.linalg.inv(hess)
        entries = [j for j, k in enumerate(d.players) if not k.startswith(SIDE)]
        if len(entries) > 1 and not frozen:  # one entry: no other to be relative to
            # Results say nothing about the entries' common level (every comparison's entry
            # coefficients sum to 0): the fit puts their mean at MU0, and the prior alone
            # would give that level's uncertainty. σ is the error relative to that mean.
            centre = np.eye(len(entries)) - 1.0 / len(entries)
            cov[np.ix_(entries, entries)] = centre @ cov[np.ix_(entries, entries)] @ centre
        sd = np.sqrt(np.clip(np.diag(cov), 0.0, None))
        sigma = {k: SCALE * float(v) for k, v in zip(d.players, sd, strict=True)}
    for k in frozen:  # anchors: the prior, untouched
        mu[k], sigma[k] = MU0, SIGMA0
    samples = None
    if rng is not None and resamples > 0 and p and d.matches >= 2:
        weights = rng.multinomial(d.matches, d.counts / d.matches, size=resamples)
        chunk = max(1, 4_000_000 // max(len(d.y), p * p))  # bounds a chunk's b x rows arrays
        parts = [
            _refit(d, weights[i : i + chunk].astype(float), theta, hess)
            for i in range(0, resamples, chunk)
        ]
        samples = MU0 + SCALE * np.vstack(parts)
    return Fit(d.players, mu, sigma, samples, d.matches)


def samples_of(result: Fit, names: list[str]) -> np.ndarray | None:
    """Bootstrap μ samples of ``names`` (resamples x names); a name the fit holds fixed (frozen)
    keeps the prior mean in every resample. None without resamples."""
    if result.samples is None:
        return None
    col = {p: j for j, p in enumerate(result.players)}
    out = np.full((result.samples.shape[0], len(names)), MU0)
    for i, name in enumerate(names):
        if name in col:
            out[:, i] = result.samples[:, col[name]]
    return out


def rank_intervals(samples: np.ndarray) -> list[tuple[int, int]]:
    """95% interval of each column's rank (1 = best) over the resamples (rows) of ``samples``.

    A rank is 1 + the number of others rated strictly higher in that resample; the bounds are
    the 2.5th and 97.5th percentiles of the resampled ranks, taken as observed ranks.
    """
    above = (samples[:, None, :] > samples[:, :, None]).sum(axis=2)  # resamples x columns
    ranks = 1 + above
    lo = np.percentile(ranks, 2.5, axis=0, method="inverted_cdf")
    hi = np.percentile(ranks, 97.5, axis=0, method="inverted_cdf")
    return [(int(a), int(b)) for a, b in zip(lo, hi, strict=True)]


def ranked(
    result: Fit, names: list[str]
) -> list[tuple[int, tuple[int, int] | None, tuple[float, float] | None]]:
    """Per name (the rated keys of a board, best first): its rank, the rank's 95% interval and
    μ's 95% interval (None without resamples or when μ's interval is undefined).

    A rank is 1 + the number of names with a strictly higher μ, so tied names share it: the
    same rule as the resampled ranks. Its interval is widened to hold it where the percentiles
    of a lumpy resample distribution would leave it out, so no rank prints outside its own
    interval. Anchors (frozen keys) are not ranked: leave them out of ``names``."""
    mus = [result.mu.get(n, MU0) for n in names]
    samples = samples_of(result, names)
    intervals = rank_intervals(samples) if samples is not None and names else None
    out: list[tuple[int, tuple[int, int] | None, tuple[float, float] | None]] = []
    for i, mu in enumerate(mus):
        rank = 1 + sum(m > mu for m in mus)
        if samples is None or intervals is None:
            out.append((rank, None, None))
            continue
        lo, hi = intervals[i]
        out.append((rank, (min(lo, rank), max(hi, rank)), st.percentile_interval(samples[:, i])))
    return out


def role_ratings(
    results: list[MatchResult], keyfn: KeyFn, freeze: list[str], rng: np.random.Generator, b: int
) -> dict[str, dict[str, tuple[float, tuple[float, float] | None]]]:
    """Per entry, per role: the μ of a fit keyed ``entry@role`` by ``keyfn`` and its bootstrap
    interval (the hidden side players left out)."""
    fitted = fit(results, keyfn, freeze=freeze, rng=rng, resamples=b)
    keys = [k for k in fitted.mu if not k.startswith(SIDE)]
    samples = samples_of(fitted, keys)
    out: dict[str, dict[str, tuple[float, tuple[float, float] | None]]] = defaultdict(dict)
    for i, k in enumerate(keys):
        agent, _, role = k.rpartition("@")
        ci = st.percentile_interval(samples[:, i]) if samples is not None else None
        out[agent][role] = (fitted.mu[k], ci)
    return out
