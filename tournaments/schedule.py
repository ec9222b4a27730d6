"""Planning: turn a config into the full, deterministic list of match specs.

Seeds derive from the master seed and the match's identity, so a plan (and a resumed plan) is
identical whatever order matches finish in.
"""

from __future__ import annotations

import random

from arena import registry
from arena.results import MatchSpec
from arena.seeding import derive_seed
from tournaments.config import RunConfig


def n_seats(config: RunConfig) -> int:
    return registry.engine_class(config.game)(config.rules, seed=0).n_seats


def match_id(config: RunConfig, repeat: int, index: int) -> str:
    return f"{config.game}-r{repeat}-m{index:05d}"


def plan(config: RunConfig, run_id: str = "") -> list[MatchSpec]:
    """Every match of the run in fold order (repeat, index)."""
    n = n_seats(config)
    names = [a.name for a in config.agents]
    specs: list[MatchSpec] = []
    for repeat in range(config.repeats):
        for index in range(config.matches):
            seed = derive_seed(config.master_seed, config.game, "repeat", repeat, "match", index)
            if config.seating == "by_team":
                seats = ["?"] * n  # filled from the dealt teams when the match starts
            elif config.seating == "rotate":
                # Entry k sits where (seat + match) % E == k: over matches every entry visits every
                # seat; roles are dealt by the engine RNG from the seed, so they rotate too.
                seats = [names[(s + index) % len(names)] for s in range(n)]
            else:
                rng = random.Random(derive_seed(config.master_seed, "seating", repeat, index))
                seats = [names[(s + index) % len(names)] for s in range(n)]
                rng.shuffle(seats)
            specs.append(
                MatchSpec(
                    match_id=match_id(config, repeat, index),
                    run_id=run_id,
                    game=config.game,
                    rules=config.rules,
                    seed=seed,
                    seats=seats,
                    index=len(specs),
                    repeat=repeat,
                    by_team=config.teams if config.seating == "by_team" else None,
                )
            )
    return specs
