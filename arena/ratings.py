"""TrueSkill ratings over match results, folded in plan order (never completion order).

Teams are the game's factions (werewolf: wolves/village; negotiation: each player alone).

Factions differ in size and strength (six villagers against two wolves), which plain TrueSkill
(team skill = sum of member skills) reads as a huge favourite losing whenever the small side
wins, dragging every entry down. So a team's performance is the *mean* of its seats (each seat
weighs 1/team size) plus a hidden "side" player per faction that learns the side's advantage.
Several seats of one match may belong to the same rated player: each seat is rated as a
weighted copy of the player's rating; the mean moves by the sum of its copies' updates and the
variance shrinks by the product of their shrink factors.

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
from arena.population import population
from arena.results import MatchResult, SeatResult

SIDE = "side:"  # prefix of the hidden per-faction players
RATED = ("finished", "forfeited")
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
    agent: str  # the rated key: entry, entry@role, entry@faction or game/entry
    mu: float
    sigma: float
    conservative: float  # mu - 3 sigma (sort key)
    games: int
    wins: int
    draws: int
    losses: int
    win_rate: float  # draws count 1/2
    mean_reward: float
    wr_low: float | None = None  # 95% CI of the win rate
    wr_high: float | None = None
    wr_ci: str | None = None  # "wilson" (no draws, one seat per match) or "bootstrap"
    side_balanced_wr: float | None = None  # 1/2 (WR side 1 + WR side 2), two-faction games
    roles: dict[str, float] = {}  # per-role mu - 3 sigma
    rse: float | None = None  # % relative standard error of the win rate across repeats
    pr: float | None = None  # population return, exploitability, aggregate score
    wpe: float | None = None
    exploiter: str | None = None
    aggregate: float | None = None


class HistoryPoint(BaseModel):
    index: int
    match_id: str
    player: str
    mu: float
    sigma: float


def fold_order(results: Iterable[MatchResult]) -> list[MatchResult]:
    return sorted(results, key=lambda r: (r.index, r.match_id))


def team_ranks(result: MatchResult) -> dict[str, int] | None:
    """Rank per team (0 best, ties share) or None when the match is not rated."""
    if result.status not in RATED or not result.seats:
        return None
    rewards: dict[str, list[float]] = defaultdict(list)
    for s in result.seats:
        rewards[s.team].append(s.reward)
    if len(rewards) < 2:
        return None
    mean = {t: sum(v) / len(v) for t, v in rewards.items()}
    distinct = sorted(set(mean.values()), reverse=True)
    return {t: distinct.index(v) for t, v in mean.items()}


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
    teams: dict[str, list[SeatResult]] = defaultdict(list)
    for s in result.seats:
        teams[s.team].append(s)
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


def seat_returns(result: MatchResult) -> dict[int, float] | None:
    """+1 / -1 / 0 per seat from the team ranks (a draw when every team ties)."""
    ranks = team_ranks(result)
    if ranks is None:
        return None
    if len(set(ranks.values())) == 1:
        return {s.seat: 0.0 for s in result.seats}
    return {s.seat: 1.0 if ranks[s.team] == 0 else -1.0 for s in result.seats}


class _Tally:
    def __init__(self) -> None:
        self.num: list[float] = []  # per match: wins + draws/2
        self.den: list[float] = []  # per match: seats played
        self.wins = self.draws = self.losses = 0
        self.reward = 0.0
        self.multi = False
        self.by_side: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])


def _tallies(results: list[MatchResult], keyfn: KeyFn) -> dict[str, _Tally]:
    tallies: dict[str, _Tally] = defaultdict(_Tally)
    for result in fold_order(results):
        returns = seat_returns(result)
        if returns is None:
            continue
        per_match: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
        for s in result.seats:
            k = keyfn(result, s)
            t = tallies[k]
            ret = returns[s.seat]
            t.wins += ret > 0
            t.losses += ret < 0
            t.draws += ret == 0
            t.reward += s.reward
            score = (ret + 1) / 2
            per_match[k][0] += score
            per_match[k][1] += 1
            t.by_side[s.team][0] += score
            t.by_side[s.team][1] += 1
        for k, (num, den) in per_match.items():
            tallies[k].num.append(num)
            tallies[k].den.append(den)
            tallies[k].multi |= den > 1
    return tallies


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
    )


def leaderboard(
    results: list[MatchResult],
    by: By = "agent",
    detail: bool = False,
    seed: int = 0,
    bootstrap: int = 2000,
    freeze: Iterable[str] = (),
) -> list[LeaderboardRow]:
    """Rows sorted by mu - 3 sigma; ``detail`` adds CIs, side-balanced WR and per-role ratings."""
    keyfn = KEYS[by]
    ratings = {
        k: v for k, v in rate(results, keyfn, freeze=freeze).items() if not k.startswith(SIDE)
    }
    tallies = _tallies(results, keyfn)
    role_ratings: dict[str, dict[str, float]] = defaultdict(dict)
    if detail and by == "agent":
        for k, r in rate(results, "role", freeze=freeze).items():
            if not k.startswith(SIDE):
                agent, _, role = k.rpartition("@")
                role_ratings[agent][role] = round(r.mu - 3 * r.sigma, 3)
    rng = np.random.default_rng(seed)
    rows = []
    for agent in sorted(set(ratings) | set(tallies)):
        t = tallies.get(agent, _Tally())
        games = int(sum(t.den))
        row = leaderboard_row(
            agent,
            ratings.get(agent),
            games=games,
            wins=t.wins,
            draws=t.draws,
            losses=t.losses,
            score=sum(t.num),
            reward=t.reward,
        )
        row.roles = role_ratings.get(agent, {})
        if detail and games:
            ci: tuple[float, float] | None
            if t.draws == 0 and not t.multi:
                ci = st.wilson(t.wins, games)
                row.wr_ci = "wilson"
            else:  # None from a single match: a bootstrap of one cluster says nothing
                ci = st.ratio_ci(t.num, t.den, rng, bootstrap)
                row.wr_ci = "bootstrap" if ci is not None else None
            if ci is not None:
                row.wr_low, row.wr_high = round(ci[0], 4), round(ci[1], 4)
            if len(t.by_side) == 2 and all(d > 0 for _, d in t.by_side.values()):
                row.side_balanced_wr = round(sum(n / d for n, d in t.by_side.values()) / 2, 4)
        rows.append(row)
    rows.sort(key=lambda row: (-row.conservative, row.agent))
    return rows


def head_to_head_cells(
    results: list[MatchResult],
) -> dict[tuple[str, str], list[tuple[float, float]]]:
    """Per pair of entries (x < y), (return of x, return of y) of each match only they played.

    Faction games (some team has several seats) return +1 win / -1 loss / 0 draw and need each
    team filled by one entry; otherwise the return is the mean reward of the entry's seats.
    """
    cells: dict[tuple[str, str], list[tuple[float, float]]] = defaultdict(list)
    for result in fold_order(results):
        agents = sorted({s.agent for s in result.seats})
        returns = seat_returns(result)
        if len(agents) != 2 or returns is None:
            continue
        team_agents: dict[str, set[str]] = defaultdict(set)
        for s in result.seats:
            team_agents[s.team].add(s.agent)
        faction = len(team_agents) < len(result.seats)
        if faction and any(len(v) > 1 for v in team_agents.values()):
            continue
        value = {a: [] for a in agents}  # type: dict[str, list[float]]
        for s in result.seats:
            value[s.agent].append(returns[s.seat] if faction else s.reward)
        x, y = agents
        cells[(x, y)].append((float(np.mean(value[x])), float(np.mean(value[y]))))
    return dict(cells)


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
    pop = population(head_to_head_cells(results), np.random.default_rng([seed, 1]), bootstrap)
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
