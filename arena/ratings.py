"""TrueSkill ratings over match results, folded in plan order (never completion order).

Teams are the game's factions (werewolf: wolves/village; negotiation: each player alone).
Several seats of one match may belong to the same agent entry (e.g. four rule bots in the
village): each seat is rated as a copy of the entry's rating, and the entry then moves by the
mean of its copies' updates. Forfeited and errored matches are not rated.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

import trueskill
from pydantic import BaseModel

from arena.results import MatchResult


def trueskill_env() -> trueskill.TrueSkill:
    # Draws happen (round caps, no-deal), so give them some prior probability.
    return trueskill.TrueSkill(
        mu=25.0, sigma=25.0 / 3, beta=25.0 / 6, tau=25.0 / 300, draw_probability=0.05
    )


class LeaderboardRow(BaseModel):
    agent: str
    mu: float
    sigma: float
    conservative: float  # mu - 3 sigma
    games: int
    wins: int
    draws: int
    losses: int
    win_rate: float  # draws count 1/2
    mean_reward: float


def rate(results: Iterable[MatchResult]) -> dict[str, trueskill.Rating]:
    env = trueskill_env()
    ratings: dict[str, trueskill.Rating] = defaultdict(env.create_rating)
    for result in sorted(results, key=lambda r: (r.index, r.match_id)):
        if result.status != "finished" or not result.seats:
            continue
        teams: dict[str, list[int]] = defaultdict(list)
        for s in result.seats:
            teams[s.team].append(s.seat)
        if len(teams) < 2:
            continue
        order = sorted(teams)
        by_seat = {s.seat: s for s in result.seats}
        groups = [[ratings[by_seat[seat].agent] for seat in teams[t]] for t in order]
        team_reward = [
            sum(by_seat[seat].reward for seat in teams[t]) / len(teams[t]) for t in order
        ]
        # rank 0 = best; equal rewards tie
        distinct = sorted(set(team_reward), reverse=True)
        ranks = [distinct.index(r) for r in team_reward]
        new_groups = env.rate(groups, ranks=ranks)
        deltas: dict[str, list[tuple[float, float]]] = defaultdict(list)
        for t, new in zip(order, new_groups, strict=True):
            for seat, rating in zip(teams[t], new, strict=True):
                deltas[by_seat[seat].agent].append((rating.mu, rating.sigma))
        for agent, updates in deltas.items():
            old = ratings[agent]
            mu = old.mu + sum(m - old.mu for m, _ in updates) / len(updates)
            sigma = sum(s for _, s in updates) / len(updates)
            ratings[agent] = env.create_rating(mu=mu, sigma=sigma)
    return dict(ratings)


def leaderboard(results: list[MatchResult]) -> list[LeaderboardRow]:
    ratings = rate(results)
    stats: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for result in results:
        if result.status != "finished":
            continue
        for s in result.seats:
            st = stats[s.agent]
            st["games"] += 1
            st[s.result] += 1
            st["reward"] += s.reward
    rows = []
    for agent in sorted(set(ratings) | set(stats)):
        r = ratings.get(agent, trueskill_env().create_rating())
        st = stats[agent]
        games = int(st["games"])
        rows.append(
            LeaderboardRow(
                agent=agent,
                mu=round(r.mu, 3),
                sigma=round(r.sigma, 3),
                conservative=round(r.mu - 3 * r.sigma, 3),
                games=games,
                wins=int(st["win"]),
                draws=int(st["draw"]),
                losses=int(st["loss"]),
                win_rate=round((st["win"] + 0.5 * st["draw"]) / games, 4) if games else 0.0,
                mean_reward=round(st["reward"] / games, 4) if games else 0.0,
            )
        )
    rows.sort(key=lambda row: (-row.conservative, row.agent))
    return rows
