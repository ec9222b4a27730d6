"""Measured effect against the insight-sensitive test backend (DirectiveEngine): ablation finds
the harmful insight, then — once it is retired — the helpful one; a no-effect insight's interval
covers zero; the bank that remains beats no memory with a paired interval above zero."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from arena.memory import Bank
from arena.memory.ablate import ablate, retire_harmful
from arena.memory.spec import MemorySpec
from arena.stats import paired_difference
from tests.arena.memory.directed import (
    GAME,
    HELPS,
    HURTS,
    NOTHING,
    directive_server,
    play_unit,
    units,
)

SEEDS = 60


async def test_ablation_identifies_harmful_helpful_and_inert_insights(tmp_path: Path) -> None:
    bank = Bank(tmp_path / "b.sqlite")
    ids = {
        name: bank.add(GAME, text)
        for name, text in [("helps", HELPS), ("nothing", NOTHING), ("hurts", HURTS)]
    }
    spec = MemorySpec(bank=str(bank.path), select="all", k=None)
    with directive_server() as backend:

        async def play(unit: Any, memory: MemorySpec) -> float:
            return (await play_unit(backend, unit, memory))[0]

        first = {r.ids[0]: r.estimate for r in await ablate(bank, spec, units(SEEDS), play)}
        hurts, nothing = first[ids["hurts"]], first[ids["nothing"]]
        assert hurts.high is not None and hurts.high < 0, hurts
        assert nothing.low is not None and nothing.low <= 0 <= nothing.high, nothing
        assert bank.at().get(ids["hurts"]).effect.n == 2 * SEEDS  # written back to the log
        assert retire_harmful(bank) == [ids["hurts"]]

        second = {r.ids[0]: r.estimate for r in await ablate(bank, spec, units(SEEDS), play)}
        helps, nothing = second[ids["helps"]], second[ids["nothing"]]
        assert helps.low is not None and helps.low > 0, helps
        assert nothing.low is not None and nothing.low <= 0 <= nothing.high, nothing
        assert ids["hurts"] not in second, "a retired insight is not ablated again"
        snap = bank.at()
        assert snap.get(ids["helps"]).effect.lo > 0
        assert [o.op for o in bank.history(ids["hurts"])] == ["add", "effect", "retire"]

        kept = spec.model_copy(update={"version": bank.head()[0]})
        with_bank = [await play(u, kept) for u in units(SEEDS)]
        baseline = [(await play_unit(backend, u, None))[0] for u in units(SEEDS)]
        gain = paired_difference(with_bank, baseline, np.random.default_rng(2))
        assert gain.low is not None and gain.low > 0, gain
        # the stricter rule on the lower bound keeps only what is shown helpful
        assert retire_harmful(bank, unproven=True) == [ids["nothing"]]
        assert [i.id for i in bank.at().insights()] == [ids["helps"]]
        print({"first": first, "second": second, "gain": gain})
