"""Ratings over match results: the leaderboard (an order-free batch fit) and TrueSkill.

The leaderboard (:func:`leaderboard`, :func:`report`) sorts by the batch Bradley–Terry fit of
:mod:`arena.ratings.batch`: one posterior mode over all results, so the order in which results
were folded in (plan order, arrival order, a re-planned run) cannot change it. Every entry gets
its μ with a bootstrap interval over matches, a 95% interval of its rank, win rates with
intervals (the side-balanced one too) and per-role ratings with intervals (docs/ratings.md).

TrueSkill (:func:`rate`, :func:`history`, :func:`trueskill_rows`) is kept where a rating must
move match by match: the live leaderboard during a run (:mod:`arena.ratings.fold`), the rating
history plot and rating-driven matchmaking. It folds results in plan order (never completion
order), and its numbers do depend on that order.

Teams are the game's factions (werewolf: wolves/village; negotiation: each player alone).
Factions differ in size and strength (six villagers against two wolves), which plain TrueSkill
(team skill = sum of member skills) reads as a huge favourite losing whenever the small side
wins, dragging every entry down. So a team's performance is the *mean* of its seats (each seat
weighs 1/team size) plus a hidden "side" player per faction that learns the side's advantage
(the batch fit has the same two parts). Several seats of one match may belong to the same rated
player: in TrueSkill each seat is rated as a weighted copy of the player's rating; the mean moves
by the sum of its copies' updates and the variance shrinks by the product of their shrink factors.

Three tables are kept with the same partition and ranks (metrics.md §C3): per agent entry, per
(entry, faction) and per (entry, role); per-game tables key entries by game. Errored matches
are not rated; a forfeit counts as a loss for the forfeiting seat's team (its reward is -1).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any, Literal

import numpy as np
import trueskill
from pydantic import BaseModel

from arena import stats as st
from arena.ratings import batch as rating_batch
from arena.ratings.batch import SIDE as SIDE  # re-exported: the live fold and tests use it
from arena.ratings.batch import seats_by_team, team_ranks
from arena.ratings.coverage import results_coverage
from arena.ratings.health import entry_health, health_doc
from arena.ratings.population import population
from arena.ratings.tallies import Tally, head_to_head_cells, side_balanced, tallies
from arena.ratings.tallies import fold_order as fold_order  # re-exported (arena.ratings.fold)
from arena.results import MatchResult, SeatResult

By = Literal["agent", "role", "faction", "game"]
KeyFn = Callable[[MatchResult, SeatResult], str]
KEYS: dict[str, KeyFn] = {
    "agent": lambda r, s: s.agent,
    "role": lambda r, s: f"{s.agent}@{s.role}",
    "faction": lambda r, s: f"{s.agent}@{s.team}",
    "game": lambda r, s: f"{r.game}/{s.agent}",
}


def trueskill_env() -> trueskill.TrueSkill:
    # Draws happen (round caps, no-deal), so give them some prior probability.
    return trueskill.TrueSkill(
        mu=25.0, sigma=25.0 / 3, beta=25.0 / 6, tau=25.0 / 300, draw_probability=0.05
    )


class LeaderboardRow(BaseModel):
    """One entry of a leaderboard. ``fit`` says where μ and σ come from: ``batch`` (the
    leaderboard: the order-free fit, sorted by μ) or ``trueskill`` (the live board during a run,
    folded match by match, sorted by μ − 3σ)."""

    agent: str  # the rated key: entry, entry@role, entry@faction or game/entry
    mu: float  # the rating (sort key of the batch leaderboard)
    sigma: float  # its standard error (batch: Laplace, from the fit's curvature)
    conservative: float  # mu - 3 sigma (the live TrueSkill board's sort key)
    games: int
    wins: int
    draws: int
    losses: int
    win_rate: float  # draws count 1/2
    mean_reward: float
    fit: Literal["batch", "trueskill"] = "batch"
    rank: int | None = None  # 1 = best, by the sort key; None for a fixed anchor
    anchor: bool = False  # held fixed at the prior (ratings.freeze): not rated, not ranked
    rank_low: int | None = None  # 95% bootstrap interval of the rank (best, worst)
    rank_high: int | None = None
    mu_low: float | None = None  # 95% bootstrap interval of mu
    mu_high: float | None = None
    wr_low: float | None = None  # 95% CI of the win rate
    wr_high: float | None = None
    wr_ci: str | None = None  # "wilson" (no draws, one seat per match) or "bootstrap"
    side_balanced_wr: float | None = None  # 1/2 (WR side 1 + WR side 2), two-faction games
    side_balanced_low: float | None = None  # its 95% bootstrap interval
    side_balanced_high: float | None = None
    roles: dict[str, float] = {}  # per-role mu (batch fit keyed entry@role)
    roles_ci: dict[str, list[float]] = {}  # its 95% bootstrap interval per role
    rse: float | None = None  # % relative standard error of the win rate across repeats
    pr: float | None = None  # population return, exploitability, aggregate score
    wpe: float | None = None
    exploiter: str | None = None
    aggregate: float | None = None
    # harness health (arena.ratings.health): shares of refused / re-asked / fallback / timed-out
    # decisions and of forfeited matches with Wilson intervals, and the flag
    health: dict[str, Any] | None = None


class HistoryPoint(BaseModel):
    index: int
    match_id: str
    player: str
    mu: float
    sigma: float


def rate_result(
    env: trueskill.TrueSkill,
    current: Callable[[str], trueskill.Rating],
    keyfn: KeyFn,
    result: MatchResult,
    frozen: set[str] | frozenset[str] = frozenset(),
) -> dict[str, trueskill.Rating] | None:
    """The new ratings of the players ``result`` moves (None when it is not rated).

    ``current(name)`` is a player's rating before this match; the hidden faction players are
    named ``side:<game>:<team>``. One step of :func:`rate`, shared with incremental folds.
    """
    ranks_by_team = team_ranks(result)
    if ranks_by_team is None:
        return None
    teams = seats_by_team(result)
    order = sorted(teams)
    sides = {t: f"{SIDE}{result.game}:{t}" for t in order}
    groups = [[current(keyfn(result, s)) for s in teams[t]] + [current(sides[t])] for t in order]
    weights = [[1.0 / len(teams[t])] * len(teams[t]) + [1.0] for t in order]
    new_groups = env.rate(groups, ranks=[ranks_by_team[t] for t in order], weights=weights)
    updates: dict[str, list[trueskill.Rating]] = defaultdict(list)
    for t, new in zip(order, new_groups, strict=True):
        for seat, rating in zip(teams[t], new[:-1], strict=True):
            updates[keyfn(result, seat)].append(rating)
        updates[sides[t]].append(new[-1])
    out: dict[str, trueskill.Rating] = {}
    for name, copies in sorted(updates.items()):
        if name in frozen:
            continue
        old = current(name)
        mu = old.mu + sum(c.mu - old.mu for c in copies)
        shrink = 1.0
        for c in copies:
            shrink *= (c.sigma / old.sigma) ** 2
        out[name] = env.create_rating(mu=mu, sigma=old.sigma * shrink**0.5)
    return out


def rate(
    results: Iterable[MatchResult],
    key: KeyFn | str = "agent",
    history: list[HistoryPoint] | None = None,
    freeze: Iterable[str] = (),
) -> dict[str, trueskill.Rating]:
    """Ratings per rated key (and per faction under the ``side:`` prefix)."""
    keyfn = KEYS[key] if isinstance(key, str) else key
    frozen = set(freeze)
    env = trueskill_env()
    ratings: dict[str, trueskill.Rating] = defaultdict(env.create_rating)
    for result in fold_order(results):
        updated = rate_result(env, ratings.__getitem__, keyfn, result, frozen)
        for name, rating in (updated or {}).items():
            ratings[name] = rating
            if history is not None and not name.startswith(SIDE):
                history.append(
                    HistoryPoint(
                        index=result.index,
                        match_id=result.match_id,
                        player=name,
                        mu=round(rating.mu, 4),
                        sigma=round(rating.sigma, 4),
                    )
                )
    return dict(ratings)


def leaderboard_row(
    agent: str,
    rating: trueskill.Rating | None,
    *,
    games: int,
    wins: int,
    draws: int,
    losses: int,
    score: float,
    reward: float,
    fit: Literal["batch", "trueskill"] = "trueskill",
) -> LeaderboardRow:
    """One row from a rating (None: the prior) and a tally; ``score`` is wins + draws/2."""
    r = rating if rating is not None else trueskill_env().create_rating()
    return LeaderboardRow(
        agent=agent,
        mu=round(r.mu, 3),
        sigma=round(r.sigma, 3),
        conservative=round(r.mu - 3 * r.sigma, 3),
        games=games,
        wins=wins,
        draws=draws,
        losses=losses,
        win_rate=round(score / games, 4) if games else 0.0,
        mean_reward=round(reward / games, 4) if games else 0.0,
        fit=fit,
    )


def trueskill_rows(
    results: list[MatchResult], by: By = "agent", freeze: Iterable[str] = ()
) -> list[LeaderboardRow]:
    """The TrueSkill board (plan-order fold, sorted by μ − 3σ): what the live board shows."""
    keyfn = KEYS[by]
    ratings = rate(results, keyfn, freeze=freeze)
    counts = tallies(results, keyfn)
    health = entry_health(results, keyfn)
    rows = [
        leaderboard_row(
            agent,
            ratings.get(agent),
            games=int(sum(t.den)),
            wins=t.wins,
            draws=t.draws,
            losses=t.losses,
            score=sum(t.num),
            reward=t.reward,
        )
        for agent, t in sorted(counts.items())
    ]
    for row in rows:  # beside the live rating too: how often the harness played for the entry
        row.health = health.get(row.agent) or health_doc({})
    rows.sort(key=lambda row: (-row.conservative, row.agent))
    return rows


def leaderboard(
    results: list[MatchResult],
    by: By = "agent",
    detail: bool = False,
    seed: int = 0,
    bootstrap: int = 2000,
    freeze: Iterable[str] = (),
) -> list[LeaderboardRow]:
    """Rows sorted by the batch fit's μ (order-free); ``detail`` adds the intervals (μ, rank,
    win rates, side-balanced win rate) and per-role ratings, from ``bootstrap`` resamples."""
    keyfn = KEYS[by]
    frozen = list(freeze)
    fitted = rating_batch.fit(
        results,
        keyfn,
        freeze=frozen,
        rng=np.random.default_rng([seed, 2]),
        resamples=bootstrap if detail else 0,
    )
    counts = tallies(results, keyfn)
    roles = (
        rating_batch.role_ratings(
            results, KEYS["role"], frozen, np.random.default_rng([seed, 3]), bootstrap
        )
        if detail and by == "agent"
        else {}
    )
    rng = np.random.default_rng(seed)
    side_rng = np.random.default_rng([seed, 4])
    rows = []
    for agent, t in sorted(counts.items()):
        games = int(sum(t.den))
        mu = fitted.mu.get(agent, rating_batch.MU0)
        sigma = fitted.sigma.get(agent, rating_batch.SIGMA0)
        row = leaderboard_row(
            agent,
            trueskill.Rating(mu, sigma),
            games=games,
            wins=t.wins,
            draws=t.draws,
            losses=t.losses,
            score=sum(t.num),
            reward=t.reward,
            fit="batch",
        )
        for role, (value, role_ci) in sorted(roles.get(agent, {}).items()):
            row.roles[role] = round(value, 3)
            if role_ci is not None:
                row.roles_ci[role] = [round(role_ci[0], 3), round(role_ci[1], 3)]
        if detail and games:
            _win_rate_intervals(row, t, rng, side_rng, bootstrap)
        rows.append(row)
    # The sort key: the fit's μ at full precision (the rounded copy could tie two entries).
    rows.sort(key=lambda row: (-fitted.mu.get(row.agent, rating_batch.MU0), row.agent))
    _rank(rows, fitted, set(frozen))
    return rows


def _win_rate_intervals(
    row: LeaderboardRow, t: Tally, rng: np.random.Generator, side_rng: np.random.Generator, b: int
) -> None:
    """The win rate's interval (Wilson for plain win/loss records, else a cluster bootstrap)
    and the side-balanced win rate with its interval, onto ``row``."""
    ci: tuple[float, float] | None
    if t.draws == 0 and not t.multi:
        ci = st.wilson(t.wins, row.games)
        row.wr_ci = "wilson"
    else:  # None from a single match: a bootstrap of one cluster says nothing
        ci = st.ratio_ci(t.num, t.den, rng, b)
        row.wr_ci = "bootstrap" if ci is not None else None
    if ci is not None:
        row.wr_low, row.wr_high = round(ci[0], 4), round(ci[1], 4)
    balanced = side_balanced(t, side_rng, b)
    if balanced is not None:
        row.side_balanced_wr = round(balanced[0], 4)
        if balanced[1] is not None:
            row.side_balanced_low = round(balanced[1][0], 4)
            row.side_balanced_high = round(balanced[1][1], 4)


def _rank(rows: list[LeaderboardRow], fitted: rating_batch.Fit, frozen: set[str]) -> None:
    """Ranks and μ intervals of the rated rows (a frozen key is a fixed anchor: its μ is set,
    not estimated, so it gets no rank)."""
    rated = [row for row in rows if row.agent not in frozen]
    for row in rows:
        row.anchor = row.agent in frozen
    ranked = rating_batch.ranked(fitted, [row.agent for row in rated])
    for row, (rank, rank_ci, mu_ci) in zip(rated, ranked, strict=True):
        row.rank = rank
        if rank_ci is not None:
            row.rank_low, row.rank_high = rank_ci
        if mu_ci is not None:
            row.mu_low, row.mu_high = round(mu_ci[0], 3), round(mu_ci[1], 3)


def report(
    results: list[MatchResult],
    by: By = "agent",
    seed: int = 0,
    bootstrap: int = 2000,
    freeze: Iterable[str] = (),
) -> dict[str, Any]:
    """The full leaderboard document: rows, cross-table, repeats, excluded matches."""
    freeze = list(freeze)
    rows = leaderboard(results, by, detail=True, seed=seed, bootstrap=bootstrap, freeze=freeze)
    cells = head_to_head_cells(results)
    pop = population(cells, np.random.default_rng([seed, 1]), bootstrap)
    for row in rows:
        sc = pop["scores"].get(row.agent)
        if sc:
            row.pr, row.wpe, row.exploiter, row.aggregate = (
                sc["pr"],
                sc["wpe"],
                sc["exploiter"],
                sc["aggregate"],
            )
    repeats = sorted({r.repeat for r in results})
    stability = None
    if len(repeats) > 1:
        per_repeat = {
            rep: leaderboard([r for r in results if r.repeat == rep], by, freeze=freeze)
            for rep in repeats
        }
        for row in rows:
            wrs = [
                x.win_rate
                for rr in per_repeat.values()
                for x in rr
                if x.agent == row.agent and x.games
            ]
            row.rse = None if (v := st.rse(wrs)) is None else round(v, 3)
        stability = st.mean_pairwise_tau([[x.agent for x in rr] for rr in per_repeat.values()])
    counts: dict[str, int] = defaultdict(int)
    for r in results:
        counts[r.status] += 1
    return {
        "by": by,
        "rows": [r.model_dump() for r in rows],
        "population": pop,
        "coverage": results_coverage(results, cells),
        "repeats": len(repeats),
        "ranking_stability_tau": stability,
        "matches": dict(sorted(counts.items())),
        "excluded_errored": counts.get("errored", 0),
        "bootstrap": {"resamples": bootstrap, "seed": seed},
    }


def history(results: list[MatchResult], key: By = "agent") -> list[HistoryPoint]:
    """Each rated player's (mu, sigma) after every match it played, in fold order."""
    points: list[HistoryPoint] = []
    rate(results, KEYS[key], history=points)
    return points
