"""A bank *learned* during a tournament, pruned by measured effect, beats no memory on held-out
units — against the insight-sensitive test backend (DirectiveEngine).

The pipeline is the one a user runs: a learning tournament (``memory: {learn: true}``, the
``scripted:blame`` reflector) grows the bank; ablation on training units measures each insight
and retires what is measured harmful, round after round (leave-one-out effects are not additive);
the bank that remains is compared with no memory on seeds never played before, paired."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from arena.llm.fakes.directives import DirectiveEngine
from arena.llm.server import ServerThread
from arena.memory import Bank
from arena.memory.ablate import ablate, retire_harmful
from arena.memory.spec import MemorySpec
from arena.stats import paired_difference
from tests.arena.memory.directed import (
    directive_server,
    learning_config,
    play_unit,
    run_in_process,
)

TRAIN = [(seed, seat) for seed in range(200) for seat in (0, 1)]
# 300 seat-swapped seeds: the gain measured on 600 (0.35, bootstrap SE 0.04) would need a SE
# five times larger to reach zero; 300 seeds widen it by sqrt(2) only.
HELD_OUT = [(seed, seat) for seed in range(1000, 1300) for seat in (0, 1)]


@pytest.mark.slow
def test_a_learned_and_pruned_bank_beats_no_memory_on_held_out_units(tmp_path: Path) -> None:
    path = tmp_path / "bank.sqlite"
    with ServerThread(DirectiveEngine(seed=1)) as server:
        raw = learning_config(server.url, path, tmp_path / "runs", matches=48, every=4)
        raw["agents"][0]["params"]["memory"]["reflector"] = "scripted:blame"
        run_in_process(raw)
    bank = Bank(path)
    learned = bank.at().insights()
    assert learned and all(i.text.startswith("Avoid ") for i in learned)
    assert all(i.provenance and i.provenance[0].run_id == "learn" for i in learned)
    spec = MemorySpec(bank=str(path), select="all", k=None)
    retired: list[str] = []
    rounds: list[dict[str, Any]] = []
    text = {i.id: i.text for i in learned}

    async def measure(backend: dict[str, Any]) -> tuple[list[float], list[float]]:
        async def play(unit: Any, memory: MemorySpec | None) -> float:
            return (await play_unit(backend, unit, memory))[0]

        for _ in range(4):
            results = await ablate(bank, spec, TRAIN, play, concurrency=8)
            rounds.append({text[r.ids[0]]: r.estimate for r in results})
            gone = retire_harmful(bank)
            retired.extend(gone)
            if not gone:
                break
        pinned = spec.model_copy(update={"version": bank.head()[0]})
        return [await play(u, pinned) for u in HELD_OUT], [await play(u, None) for u in HELD_OUT]

    with directive_server() as backend:
        with_bank, without = asyncio.run(measure(backend))
    kept = bank.at().insights()
    assert retired and kept, "the blunt rule learns some harmful lessons, and a helpful one"
    assert all(i.effect is not None and i.effect.hi >= 0 for i in kept)
    gain = paired_difference(with_bank, without, np.random.default_rng(2))
    print({"learned": list(text.values()), "rounds": rounds, "kept": [i.text for i in kept],
           "retired": [text[i] for i in retired], "gain": gain})  # fmt: skip
    assert gain.low is not None and gain.low > 0, gain
