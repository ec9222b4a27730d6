"""Per-entry tallies of rated matches: wins, draws, losses, win rates per side, head-to-heads.

The counting half of the leaderboard (:mod:`arena.ratings.leaderboard`): a match's team ranks give each seat
+1 / -1 / 0, and an entry's figures are summed per match (the cluster of every interval).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable

import numpy as np

from arena import stats as st
from arena.ratings.batch import team_ranks
from arena.results import MatchResult, SeatResult, rated_result

KeyFn = Callable[[MatchResult, SeatResult], str]


def fold_order(results: Iterable[MatchResult]) -> list[MatchResult]:
    return sorted(results, key=lambda r: (r.index, r.match_id))


def seat_returns(result: MatchResult) -> dict[int, float] | None:
    """+1 / -1 / 0 per seat from the team ranks (a draw when every team ties)."""
    ranks = team_ranks(result)
    if ranks is None:
        return None
    points = {"win": 1.0, "draw": 0.0, "loss": -1.0}
    return {s.seat: points[rated_result(ranks, s.team)] for s in result.seats}


class Tally:
    def __init__(self) -> None:
        self.num: list[float] = []  # per match: wins + draws/2
        self.den: list[float] = []  # per match: seats played
        self.wins = self.draws = self.losses = 0
        self.reward = 0.0
        self.multi = False
        self.by_side: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
        self.side_rows: list[dict[str, tuple[float, float]]] = []  # per match: team -> (num, den)


def tallies(results: list[MatchResult], keyfn: KeyFn) -> dict[str, Tally]:
    tallies: dict[str, Tally] = defaultdict(Tally)
    for result in fold_order(results):
        returns = seat_returns(result)
        if returns is None:
            continue
        per_match: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
        per_side: dict[str, dict[str, list[float]]] = defaultdict(
            lambda: defaultdict(lambda: [0.0, 0.0])
        )
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
            per_side[k][s.team][0] += score
            per_side[k][s.team][1] += 1
        for k, (num, den) in per_match.items():
            tallies[k].num.append(num)
            tallies[k].den.append(den)
            tallies[k].multi |= den > 1
            tallies[k].side_rows.append({team: (v[0], v[1]) for team, v in per_side[k].items()})
    return tallies


def side_balanced(
    t: Tally, rng: np.random.Generator, b: int
) -> tuple[float, tuple[float, float] | None] | None:
    """1/2 (WR on side 1 + WR on side 2) with its cluster-bootstrap interval (two sides only)."""
    sides = sorted(t.by_side)
    if len(sides) != 2 or not all(t.by_side[sd][1] > 0 for sd in sides):
        return None
    value = sum(t.by_side[sd][0] / t.by_side[sd][1] for sd in sides) / 2
    rows = np.asarray(
        [[m.get(sd, (0.0, 0.0))[i] for sd in sides for i in (0, 1)] for m in t.side_rows]
    )
    if rows.shape[0] < 2:
        return value, None
    sums = st.resample_sums(rows, rng, b)
    samples = (st.ratio_samples(sums, 0, 1) + st.ratio_samples(sums, 2, 3)) / 2
    return value, st.percentile_interval(samples)


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
