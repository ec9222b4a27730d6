"""What a Deal or No Deal player that never proposes can score against the rule bot: one JSON
line per policy.

    python bench/dond_headroom.py [--deals 100] [--seed 1000]

The bundled model (SmolLM2-135M, ranking the legal moves) never proposes a split: it passes,
accepts or walks away. This bench plays fixed policies with only those moves against the
concession rule bot (``rule``, the panel of ``bench/selfplay_real.py``) on ``--deals`` seeded
deals, each from both seats, through the match runner ``arena run`` uses, and prints each
policy's mean score with a seeded 95 % bootstrap interval. It bounds what self-play can gain
by changing *when* the model passes and accepts:

* ``accept_first`` — accept the first offer that stands (else pass);
* ``accept_from_turn_k`` — pass before turn k, then accept any standing offer;
* ``accept_worth_w`` — accept a standing offer worth at least w to the seat (else pass);
* ``pass`` — never accept (no deal: 0).

The rule bot concedes as the turns run out, so waiting pays; a policy that waits must tell the
turns apart, and one that picks offers must read their worth.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from arena import registry
from arena.agents.base import Agent
from arena.events import Event
from arena.results import InvalidActionPolicy, MatchSpec
from arena.runner import MatchRunner
from arena.stats import mean_ci
from arena.types import Action, Decision, Observation
from games.negotiation import tactics as tx
from games.negotiation.bots import BOTS_DEALORNODEAL
from games.negotiation.split_rules import utility

POLICIES: dict[str, dict[str, Any]] = {
    "accept_first": {},
    "accept_from_turn_4": {"from_turn": 4},
    "accept_from_turn_6": {"from_turn": 6},
    "accept_from_turn_8": {"from_turn": 8},
    "accept_worth_3": {"min_worth": 3},
    "accept_worth_5": {"min_worth": 5},
    "pass": {"never": True},
}


class PassOrAccept(Agent):
    """Passes or accepts, never proposes nor walks away."""

    kind = "pass_or_accept"

    def __init__(
        self,
        name: str | None = None,
        from_turn: int = 0,
        min_worth: float | None = None,
        never: bool = False,
    ) -> None:
        super().__init__(name)
        self.from_turn, self.min_worth, self.never = from_turn, min_worth, never

    async def act(self, observation: Observation, decision: Decision) -> Action:
        st = observation.state
        if self.never or "accept" not in decision.option_ids or st["turn"] < self.from_turn:
            return Action(choices=("pass",))
        if self.min_worth is not None:
            seat = st["seat"]
            mine = tx.offered_to_me(st, seat)
            values = tx.split_values(observation.private, seat, st["items"])
            if mine is None or utility(values, mine) < self.min_worth:
                return Action(choices=("pass",))
        return Action(choices=("accept",))


async def play(params: dict[str, Any], seeds: list[int]) -> list[float]:
    """The policy's score on each seed's deal from each seat, in that order."""
    games = await play_against_rule(lambda: PassOrAccept("policy", **params), seeds)
    return [score for score, _, _ in games]


async def play_against_rule(
    make: Callable[[], Agent], seeds: list[int]
) -> list[tuple[float, list[Event], int]]:
    """(score, events, seat) of ``make()``'s agent against the rule bot, each seed's deal from
    each seat. Every move must be legal (no fallback)."""
    engine_cls = registry.engine_class("dealornodeal")
    games = []
    for seed in seeds:
        for seat in (0, 1):
            agents: list[Agent] = [BOTS_DEALORNODEAL["rule"](name="bot") for _ in range(2)]
            agents[seat] = make()
            names = ["bot", "bot"]
            names[seat] = "policy"
            spec = MatchSpec(
                match_id=f"headroom-{seed}-{seat}", game="dealornodeal", seed=seed, seats=names
            )
            policy = InvalidActionPolicy(retries=0, fallback="random_legal", timeout_s=None)
            runner = MatchRunner(spec, agents, [], policy, engine=engine_cls({}, seed=seed))
            result = await runner.run()
            mine = result.seats[seat]
            if result.status != "finished" or mine.fallbacks:  # every move must be legal
                raise RuntimeError(f"{spec.match_id}: {result.status}, {mine.fallbacks} fallbacks")
            games.append((float(mine.reward), list(runner.recorder.events), seat))
    return games


def bootstrap_ci(xs: list[float], seed: int) -> list[float] | None:
    """The mean's 95 % bootstrap interval (arena.stats), seeded, rounded."""
    ci = mean_ci(xs, np.random.default_rng(seed))
    return None if ci is None else [round(ci[0], 3), round(ci[1], 3)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--deals", type=int, default=100, help="seeded deals, each from both seats")
    ap.add_argument("--seed", type=int, default=1000, help="the first deal's seed")
    args = ap.parse_args(argv)
    seeds = list(range(args.seed, args.seed + args.deals))
    for name, params in POLICIES.items():
        t0 = time.perf_counter()
        xs = asyncio.run(play(params, seeds))
        print(json.dumps({
            "figure": name, "opponent": "rule", "units": len(xs),
            "mean_score": round(float(np.mean(xs)), 3), "ci": bootstrap_ci(xs, args.seed),
            "wall_s": round(time.perf_counter() - t0, 2),
        }), flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
