"""DealOrNoDeal units for measured-effect tests: an ``llm`` seat against the concession bot,
served by the insight-sensitive :class:`DirectiveEngine` over a real loopback server."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from arena import registry
from arena.agents import factory
from arena.agents.llm_agent import LLMAgent
from arena.llm.config import BackendConfig
from arena.llm.fakes.directives import DirectiveEngine
from arena.llm.server import ServerThread
from arena.memory.spec import MemorySpec
from arena.results import MatchSpec
from arena.runner import MatchRunner
from tournaments import config as tconfig
from tournaments.executor import Tournament

GAME = "dealornodeal"
# Measured against the concession bot over 60 seat-swapped seeds (docs/memory.md): walking
# away ends with nothing, rejecting every standing offer rarely ends in a deal.
HELPS = "Avoid walk_away: a deal beats no deal."
NOTHING = "Keep every message courteous."
HURTS = "Prefer reject of every standing offer."
RUN_ID = "learn"


@contextmanager
def directive_server() -> Iterator[dict[str, Any]]:
    with ServerThread(DirectiveEngine(seed=1)) as server:
        cfg = BackendConfig(base_url=server.url, model="scripted", timeout_s=30.0)
        yield cfg.model_dump(mode="json")


def units(n_seeds: int) -> list[tuple[int, int]]:
    """Seat-swapped pairs: every seed played from both seats."""
    return [(seed, seat) for seed in range(n_seeds) for seat in (0, 1)]


async def play_unit(
    backend: dict[str, Any], unit: tuple[int, int], memory: MemorySpec | None, match_id: str = ""
) -> tuple[float, Any]:
    """(reward of the llm seat, runner) for one unit."""
    seed, seat = unit
    engine = registry.engine_class(GAME)({}, seed=seed)
    params: dict[str, Any] = {"backend": backend}
    if memory is not None:
        params["memory"] = memory.model_dump(mode="json")
    llm = LLMAgent(name="llm", **params)
    bot = factory.build("bot", "rule", GAME)
    agents = [llm, bot] if seat == 0 else [bot, llm]
    spec = MatchSpec(
        match_id=match_id or f"u{seed}-{seat}",
        run_id="t",
        game=GAME,
        seed=seed,
        seats=[a.name for a in agents],
    )
    runner = MatchRunner(spec, agents, engine=engine)
    result = await runner.run()
    return result.seats[seat].reward, runner


def learning_config(
    url: str,
    bank: Path,
    out: Path,
    matches: int = 16,
    every: int = 4,
    reflector: str = "scripted:directives",
) -> dict[str, Any]:
    memory = {
        "bank": str(bank),
        "select": "all",
        "k": None,
        "learn": True,
        "every": every,
        "reflector": reflector,
    }
    return {
        "name": "learn",
        "game": "dealornodeal",
        "agents": [
            {
                "name": "llm",
                "kind": "llm",
                "params": {
                    "backend": {"base_url": url, "model": "scripted", "timeout_s": 30},
                    "memory": memory,
                },
            },
            {"name": "bot", "kind": "rule"},
        ],
        "lineups": [{"vs": ["llm", "bot"]}],
        "matches": matches,
        "master_seed": 11,
        "concurrency": 4,
        "output_dir": str(out),
    }


def run_in_process(raw: dict[str, Any]) -> Path:
    config = tconfig.parse(raw)
    run_dir = Path(config.output_dir) / RUN_ID
    asyncio.run(Tournament(config, run_dir, RUN_ID).run())
    return run_dir
