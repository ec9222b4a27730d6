"""Rating-driven matchmaking: schedule next the head-to-heads that teach the most.

Rounds of ``batch`` matches (default: the concurrency). Before each round the results of the
repeat so far are folded (in match order, so the choice depends only on which matches
finished, never on completion order) and every pair (a, b) of the pool is scored

    score(a, b) = quality(a, b) * (sigma_a^2 + sigma_b^2) / (2 sigma_0^2)

— TrueSkill's draw-probability match quality (close matches are informative) times the pair's
uncertainty. Pairs are picked greedily; a pair picked again in the same round counts half as
much each time. Sides alternate per pair. Planning stops when every pool entry has
sigma < ``sigma_threshold`` or the repeat's ``budget`` is spent.
"""

from __future__ import annotations

from itertools import combinations

from arena.ratings import rate, trueskill_env
from arena.results import MatchResult, MatchSpec
from tournaments import schedule
from tournaments.config import RatingDriven, RunConfig


class Matchmaker:
    def __init__(self, config: RunConfig, repeat: int, run_id: str = "") -> None:
        self.config = config
        self.repeat = repeat
        self.run_id = run_id
        self.rd = config.rating_driven or RatingDriven()
        self.pool = self.rd.pool or [a.name for a in config.agents]
        self.budget = self.rd.budget
        self.batch = self.rd.batch or config.concurrency
        self.converged = False

    def scores(self, results: list[MatchResult]) -> dict[tuple[str, str], float]:
        env = trueskill_env()
        ratings = rate(results, freeze=self.config.ratings.freeze)
        prior = env.create_rating()
        out = {}
        for a, b in combinations(self.pool, 2):
            ra, rb = ratings.get(a, prior), ratings.get(b, prior)
            quality = env.quality([(ra,), (rb,)])
            out[(a, b)] = quality * (ra.sigma**2 + rb.sigma**2) / (2 * prior.sigma**2)
        return out

    def uncertain(self, results: list[MatchResult]) -> bool:
        ratings = rate(results, freeze=self.config.ratings.freeze)
        prior = trueskill_env().create_rating()
        return any(ratings.get(a, prior).sigma >= self.rd.sigma_threshold for a in self.pool)

    def next_batch(self, results: list[MatchResult], planned: list[MatchSpec]) -> list[MatchSpec]:
        """The next round of matches for this repeat ([] when done)."""
        room = self.budget - len(planned)
        if room <= 0:
            return []
        if not self.uncertain(results):
            self.converged = True
            return []
        scores = self.scores(results)
        played: dict[tuple[str, str], int] = {}
        for spec in planned:
            pair = tuple(sorted(set(spec.seats), key=self.pool.index))
            if len(pair) == 2:
                played[pair] = played.get(pair, 0) + 1  # type: ignore[index]
        picks: dict[tuple[str, str], int] = {}
        out = []
        start = len(planned)  # this repeat's matches so far
        for j in range(min(self.batch, room)):
            pair = max(scores, key=lambda p: (scores[p] * 0.5 ** picks.get(p, 0), p))
            picks[pair] = picks.get(pair, 0) + 1
            k = played.get(pair, 0) + picks[pair] - 1  # this pair's game number: sides alternate
            index = start + j
            seed = schedule.match_seed(self.config, self.repeat, "rating_driven", index)
            seater = schedule.Seater(self.config, schedule.vs(*pair))
            out.append(
                MatchSpec(
                    match_id=schedule.match_id(self.config, self.repeat, index),
                    run_id=self.run_id,
                    game=self.config.game,
                    rules=self.config.rules,
                    seed=seed,
                    **seater.fields(k, seed, self.repeat),
                    index=self.repeat * 1_000_000 + index,
                    repeat=self.repeat,
                )
            )
        return out
