"""Rating-driven matchmaking: schedule next the head-to-heads that teach the most.

Rounds of ``batch`` matches (default: the concurrency). Before each round the results of the
repeat so far are folded (in match order, so the choice depends only on which matches
finished, never on completion order). Each match of the round then takes

    a = the pool entry with the highest uncertainty  sigma_a / sqrt(1 + picks_a)
    b = argmax over the others of  quality(a, b) * sigma_b / sqrt(1 + picks_b)

where quality is TrueSkill's match quality (the draw probability: close matches teach the
most) and picks counts the entry's matches already taken in this round. Sides alternate per
pair. Planning stops when every pool entry has sigma < ``sigma_threshold`` or the repeat's
``budget`` is spent.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from arena.ratings import planner
from arena.ratings.leaderboard import rate, trueskill_env
from arena.results import MatchResult, MatchSpec
from tournaments import schedule
from tournaments.batches import Batch, RunView
from tournaments.config import RatingDriven, RunConfig

STOPS = "matchmaking.jsonl"  # per planner round what it saw and chose; per repeat why it stopped
PLANNER_RESAMPLES = 200  # bootstrap resamples per planning round (P(order right) to ~0.03)


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
        self.stopped: dict[str, Any] | None = None  # why planning stopped (the run says it)
        self.believed: dict[str, Any] | None = None  # the planner's view behind its last round

    def uncertain(self, results: list[MatchResult]) -> bool:
        ratings = rate(results, freeze=self.config.ratings.freeze)
        prior = trueskill_env().create_rating()
        return any(ratings.get(a, prior).sigma >= self.rd.sigma_threshold for a in self.pool)

    def next_batch(self, results: list[MatchResult], planned: list[MatchSpec]) -> list[MatchSpec]:
        """The next round of matches for this repeat ([] when done)."""
        room = self.budget - len(planned)
        if room <= 0:
            self.stopped = {"reason": "budget", "open": self._open_pairs(results)}
            return []
        if self.rd.by == "planner":
            return self._planned_batch(results, planned, room)
        if not self.uncertain(results):
            self.converged = True
            self.stopped = {"reason": "sigma", "sigma_threshold": self.rd.sigma_threshold}
            return []
        env = trueskill_env()
        prior = env.create_rating()
        ratings = rate(results, freeze=self.config.ratings.freeze)
        rating = {e: ratings.get(e, prior) for e in self.pool}
        picks = dict.fromkeys(self.pool, 0)
        chosen: list[tuple[str, str]] = []
        rank = {e: i for i, e in enumerate(self.pool)}

        def eff(e: str) -> float:
            return float(rating[e].sigma / (1 + picks[e]) ** 0.5)

        for _ in range(min(self.batch, room)):
            a = max(self.pool, key=lambda e: (eff(e), -rank[e]))
            b = max(
                (e for e in self.pool if e != a),
                key=lambda e: (env.quality([(rating[a],), (rating[e],)]) * eff(e), -rank[e]),
            )
            picks[a] += 1
            picks[b] += 1
            chosen.append((a, b))
        return self._specs(chosen, planned)

    def _planned_batch(
        self, results: list[MatchResult], planned: list[MatchSpec], room: int
    ) -> list[MatchSpec]:
        """Planner-driven: the comparisons that tell the batch fit's unsure neighbours apart."""
        done, plan = self._plan(results)
        if plan is None:
            # every entry needs a match before the fit can place it: one round robin first
            chosen = [(a, b) for i, a in enumerate(self.pool) for b in self.pool[i + 1 :]][:room]
            return self._specs(chosen, planned)
        chosen = planner.allocate(plan, done, min(self.batch, room))
        self.believed = {
            "played": len(done),
            "pairs": [{k: p[k] for k in ("above", "below", "p_order", "settled")} for p in plan],
            "chosen": [list(pair) for pair in chosen],
        }
        if not chosen:
            self.converged = True
            self.stopped = {"reason": "settled", "confidence": self.rd.confidence}
        return self._specs(chosen, planned)

    def _plan(
        self, results: list[MatchResult]
    ) -> tuple[list[MatchResult], list[dict[str, Any]] | None]:
        """The pool's results and the planner's adjacent pairs on them (None until every pool
        entry has played: the fit cannot place an entry without a match)."""
        pool = set(self.pool)
        done = [r for r in results if {s.agent for s in r.seats} <= pool]
        if len({s.agent for r in done for s in r.seats}) < len(pool):
            return done, None
        plan = planner.pairs(
            done,
            confidence=self.rd.confidence,
            seed=self.repeat,
            resamples=PLANNER_RESAMPLES,
            freeze=self.config.ratings.freeze,
        )
        return done, plan

    def _open_pairs(self, results: list[MatchResult]) -> list[str]:
        """The planner's adjacent pairs still unsettled at the budget ([] for ``by: sigma``)."""
        plan = self._plan(results)[1] if self.rd.by == "planner" else None
        return [f"{p['above']} / {p['below']}" for p in plan or [] if not p["settled"]]

    def _specs(self, chosen: list[tuple[str, str]], planned: list[MatchSpec]) -> list[MatchSpec]:
        """A spec per chosen pair, sides alternating per pair, numbered after ``planned``."""
        rank = {e: i for i, e in enumerate(self.pool)}
        played: dict[tuple[str, ...], int] = {}
        for spec in planned:
            pair = tuple(sorted(set(spec.seats), key=self.pool.index))
            if len(pair) == 2:
                played[pair] = played.get(pair, 0) + 1
        out = []
        start = len(planned)  # this repeat's matches so far
        for j, (a, b) in enumerate(chosen):
            pair = tuple(sorted((a, b), key=rank.__getitem__))
            # the pair's game number: sides alternate
            k = played.get(pair, 0)
            played[pair] = k + 1
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


class RatingDrivenSchedule:
    """Per repeat, rounds of matches chosen from the results so far until the ratings
    converge or the budget is spent (:mod:`tournaments.matchmaking`). A resumed run first
    plays the planned matches of a round that have no result."""

    def __init__(self, config: RunConfig, run_id: str, total: int) -> None:
        self.config, self.run_id, self.total = config, run_id, total
        self.specs: list[MatchSpec] = []

    def batches(self, run: RunView) -> Iterator[Batch]:
        store = run.store
        self.specs = store.specs()  # adaptive: what was planned so far
        for repeat in range(self.config.repeats):
            maker = Matchmaker(self.config, repeat, self.run_id)
            while True:
                pending = store.specs(pending=True, repeat=repeat)
                if not pending:
                    planned = store.specs(repeat=repeat)
                    pending = maker.next_batch(store.results(repeat), planned)
                    if maker.believed is not None:  # what a planner round was based on
                        _log(run, {"repeat": repeat, "round": maker.believed})
                        maker.believed = None
                    if not pending:
                        break
                    store.plan(pending)
                    self.specs.extend(pending)
                yield Batch(pending)
            played = len(store.specs(repeat=repeat))
            if maker.converged:
                # a converged repeat plays fewer matches than its budget
                run.progress.total -= maker.budget - played
                run.progress.changed()
            if maker.stopped is not None:
                _log(run, {"repeat": repeat, "matches": played, **maker.stopped})

    async def after(self, batch: Batch, run: RunView) -> None:
        return None

    async def close(self) -> None:
        return None


def _log(run: RunView, line: dict[str, Any]) -> None:
    with (run.dir.root / STOPS).open("a", encoding="utf-8") as f:
        f.write(json.dumps(line) + "\n")
