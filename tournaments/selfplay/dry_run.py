"""The estimate ``arena selfplay CONFIG --dry-run`` prints before anything runs: three
random-legal probe games give the decisions per game and one seat's share, and the budget's
estimate scales them by the config's population, generations and units (per repeat, at most)."""

from __future__ import annotations

import asyncio
from typing import Any

from tournaments.selfplay.config import SelfPlayConfig


def dry_run(config: SelfPlayConfig) -> dict[str, Any]:
    from tournaments.selfplay.budget import estimate

    steps, share = probe_steps(config)
    n_panel = len(config.panel)
    seats = probe_seats(config) if config.units.seats == "all" else len(config.units.seats)
    mult = n_panel * seats  # units per env seed
    est = estimate(
        config.population,
        config.elites,
        config.generations,
        config.units.train * mult,
        config.units.select * mult + replicate_units(config, config.units.select * mult),
        config.units.gate * mult,
        config.replay.games(config.population * (config.units.train + config.units.select) * mult),
        steps,
        share,
        llm_reflector=not isinstance(config.reflector, str),  # a name is a scripted rule
    )
    est["repeats"] = config.repeats
    est["steps_per_game"] = steps
    est["note"] = "per repeat, at most; steps per game from 3 random-legal probe games"
    return est


def describe(est: dict[str, Any]) -> list[str]:
    """The estimate in words (``--dry-run`` without ``--json``)."""

    def split(key: str) -> str:
        parts = est[key]
        return f"{sum(parts.values()):,} ({' · '.join(f'{k} {v:,}' for k, v in parts.items())})"

    reps = est["repeats"]
    return [
        f"dry run, nothing written: the most one repeat can spend ({reps} repeat"
        f"{'s' if reps != 1 else ''} in all)",
        f"  games:      {split('games')}",
        f"  env steps:  {split('env_steps')}",
        f"  LLM calls:  {split('llm_calls')}",
        f"  a game takes ~{est['steps_per_game']:.1f} env steps (every seat's decisions)",
        f"  reflections: {est['reflections']:,} ({est['reflect_calls']:,} reflector model calls)",
        "  steps per game from 3 random-legal probe games; --json prints this as JSON",
    ]


def replicate_units(config: SelfPlayConfig, select_units: int) -> int:
    """The most (unit, replicate) pairs of flipped units a generation replays (each played by
    every candidate, like a select unit)."""
    sel = config.selection
    if sel.replicates <= 0:
        return 0
    return int(min(int(sel.replicate_share * select_units), sel.replicates * select_units))


def probe_seats(config: SelfPlayConfig) -> int:
    from arena import registry

    return int(registry.engine_class(config.game)(config.rules, seed=0).n_seats)


def probe_steps(config: SelfPlayConfig) -> tuple[float, float]:
    """Mean decisions per game over 3 random-legal games, and one seat's share of them."""
    from arena.agents import factory
    from arena.results import MatchSpec
    from arena.runner import MatchRunner

    n = probe_seats(config)
    total = 0
    for seed in range(3):
        agents = [factory.build(f"p{i}", "random", config.game) for i in range(n)]
        spec = MatchSpec(
            match_id=f"probe{seed}",
            game=config.game,
            rules=config.rules,
            seed=seed,
            seats=[a.name for a in agents],
        )
        result = asyncio.run(MatchRunner(spec, agents, []).run())
        total += result.n_decisions
    return total / 3, 1.0 / n
