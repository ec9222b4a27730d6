"""TrueSkill ratings over match results, folded in plan order (never completion order).

Teams are the game's factions (werewolf: wolves/village; negotiation: each player alone).

Factions differ in size and strength (six villagers against two wolves), which plain TrueSkill
(team skill = sum of member skills) reads as a huge favourite losing whenever the small side
wins, dragging every entry down. So a team's performance is the *mean* of its seats (each seat
weighs 1/team size) plus a hidden "side" player per faction that learns the side's advantage.
Several seats of one match may belong to the same agent entry: each seat is rated as a weighted
copy of the entry's rating; the entry's mean moves by the sum of its copies' updates and its
variance shrinks by the product of their shrink factors. Forfeited and errored matches are not
rated.
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


SIDE = "side:"  # prefix of the hidden per-faction players


def rate(results: Iterable[MatchResult]) -> dict[str, trueskill.Rating]:
    """Ratings per agent entry (and per faction under the ``side:`` prefix)."""
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
        sides = {t: f"{SIDE}{result.game}:{t}" for t in order}
        groups = [
            [ratings[by_seat[seat].agent] for seat in teams[t]] + [ratings[sides[t]]] for t in order
        ]
        weights = [[1.0 / len(teams[t])] * len(teams[t]) + [1.0] for t in order]
        team_reward = [
            sum(by_seat[seat].reward for seat in teams[t]) / len(teams[t]) for t in order
        ]
        # rank 0 = best; equal rewards tie
        distinct = sorted(set(team_reward), reverse=True)
        ranks = [distinct.index(r) for r in team_reward]
        new_groups = env.rate(groups, ranks=ranks, weights=weights)
        updates: dict[str, list[trueskill.Rating]] = defaultdict(list)
        for t, new in zip(order, new_groups, strict=True):
            for seat, rating in zip(teams[t], new[:-1], strict=True):
                updates[by_seat[seat].agent].append(rating)
            updates[sides[t]].append(new[-1])
        for name, copies in updates.items():
            old = ratings[name]
            mu = old.mu + sum(c.mu - old.mu for c in copies)
            shrink = 1.0
            for c in copies:
                shrink *= (c.sigma / old.sigma) ** 2
            ratings[name] = env.create_rating(mu=mu, sigma=old.sigma * shrink**0.5)
    return dict(ratings)


def leaderboard(results: list[MatchResult]) -> list[LeaderboardRow]:
    ratings = {k: v for k, v in rate(results).items() if not k.startswith(SIDE)}
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
