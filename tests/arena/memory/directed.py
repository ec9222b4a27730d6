"""DealOrNoDeal units for measured-effect tests: an ``llm`` seat against the concession bot,
served by the insight-sensitive :class:`DirectiveEngine` over a real loopback server."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from arena import registry
from arena.agents import factory
from arena.agents.llm_agent import LLMAgent
from arena.llm.config import BackendConfig
from arena.llm.server import ServerThread
from arena.memory.directives import DirectiveEngine
from arena.memory.spec import MemorySpec
from arena.results import MatchSpec
from arena.runner import MatchRunner

GAME = "dealornodeal"
# Measured against the concession bot over 60 seat-swapped seeds (docs/memory.md): walking
# away ends with nothing, rejecting every standing offer rarely ends in a deal.
HELPS = "Avoid walk_away: a deal beats no deal."
NOTHING = "Keep every message courteous."
HURTS = "Prefer reject of every standing offer."


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
