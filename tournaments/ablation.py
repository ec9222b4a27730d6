"""``arena memory ablate BANK CONFIG``: the measured effect of a bank's insights on the units a
tournament config plans (same seeds, seats and roles in both arms; docs/memory.md)."""

from __future__ import annotations

from typing import Any

from arena.errors import ConfigError
from arena.memory.ablate import Ablation, ablate
from arena.memory.bank import open_bank
from arena.memory.spec import MemorySpec
from arena.results import MatchSpec
from arena.runner import MatchRunner
from tournaments import schedule
from tournaments.config import RunConfig
from tournaments.entries import memory_bank


def memory_entries(config: RunConfig, bank: str) -> dict[str, MemorySpec]:
    """``llm`` entries of ``config`` whose memory reads ``bank``."""
    from pathlib import Path

    target = Path(bank).expanduser().resolve()
    out = {}
    for entry in config.agents:
        memory = memory_bank(entry)
        if memory is not None and Path(memory.bank).expanduser().resolve() == target:
            out[entry.name] = memory.model_copy(update={"learn": False})
    return out


def ablation_units(
    config: RunConfig, names: set[str], units: int | None, run_id: str = "ablate"
) -> list[MatchSpec]:
    """The first ``units`` planned matches that seat an entry of ``names``: a round robin over
    more entries than seats also plans tables without them, which would measure nothing."""
    return [s for s in schedule.plan(config, run_id) if names & set(s.seats)][:units]


async def ablate_config(
    config: RunConfig,
    bank_path: str,
    units: int | None = None,
    metric: str = "score",
    whole: bool = False,
    seed: int = 0,
    run_id: str = "ablate",
    concurrency: int | None = None,
    each: bool = True,
) -> list[Ablation]:
    """Ablate every active insight alone (and, with ``whole``, the whole bank) on the first
    ``units`` planned matches; effects are written to the bank's log."""
    from arena.agents import factory

    entries = memory_entries(config, bank_path)
    if not entries:
        raise ConfigError([f"no llm entry of the config reads the bank {bank_path}"])
    if config.format == "rating_driven":
        raise ConfigError(["ablation needs a planned format (round_robin or gauntlet)"])
    specs = ablation_units(config, set(entries), units, run_id)
    base = next(iter(entries.values()))

    async def play(spec: MatchSpec, memory: MemorySpec) -> float:
        def make(entry_name: str, seat: int) -> Any:
            entry = config.entry(entry_name)
            params = entry.params
            if entry.name in entries:
                params = params.model_copy(update={"memory": memory})
            return factory.build(entry.name, entry.kind, config.game, params)

        result = await MatchRunner(spec, make, [], config.policy).run()
        mine = [s for s in result.seats if s.agent in entries]
        if metric == "win":
            return sum(s.result == "win" for s in mine) / max(1, len(mine))
        return sum(s.reward for s in mine) / max(1, len(mine))

    bank = open_bank(bank_path)
    version = bank.head()[0]
    active = [i.id for i in bank.at(version).insights()]
    # each=False with whole: only the whole bank against no memory (the cheap question first)
    groups: list[list[str]] = [[i] for i in active] if each else []
    if whole and active:
        groups.append(active)
    spec = base.model_copy(update={"version": version})
    # the config's own concurrency by default: units are independent seeded matches
    workers = concurrency or config.concurrency
    return await ablate(bank, spec, specs, play, groups, metric, seed, True, run_id, workers)
