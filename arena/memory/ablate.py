"""Measured effect: an insight's (or a group's) effect is the paired difference between play
with the bank and play with the bank minus it, over the same seeded units.

A *unit* is whatever the caller's ``play(unit, memory)`` function plays — one seeded match
with fixed seats and roles, scored for the memory seat. Both arms play the same units at the
same pinned bank version; the only difference is ``MemorySpec.exclude``. The effect
(``arena.stats.paired_difference``: mean Δ with a bootstrap 95 % interval over the units) is
written back to the log as an ``effect`` operation. :func:`retire_harmful` then retires what is
measured harmful (interval entirely below zero); the cap of the updater displaces by the
lowest lower bound.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from arena.memory.bank import Bank, Draft
from arena.memory.model import Effect
from arena.memory.spec import MemorySpec
from arena.stats import Estimate, paired_difference

PlayFn = Callable[[Any, MemorySpec], Awaitable[float]]


@dataclass(frozen=True)
class Ablation:
    ids: tuple[str, ...]
    estimate: Estimate  # with − without
    with_mean: float
    without_mean: float

    def effect(self, metric: str, run_id: str = "") -> Effect | None:
        e = self.estimate
        if e.value is None or e.low is None or e.high is None:
            return None
        return Effect(metric=metric, delta=e.value, lo=e.low, hi=e.high, n=e.n, run_id=run_id)


async def _scores(
    units: Sequence[Any], spec: MemorySpec, play: PlayFn, concurrency: int = 1
) -> list[float]:
    """Scores in unit order; up to ``concurrency`` units in flight (each unit is its own seeded
    match, so the scores do not depend on how many run at once)."""
    gate = asyncio.Semaphore(max(1, concurrency))

    async def one(unit: Any) -> float:
        async with gate:
            return float(await play(unit, spec))

    return list(await asyncio.gather(*(one(u) for u in units)))


async def ablate(
    bank: Bank,
    spec: MemorySpec,
    units: Sequence[Any],
    play: PlayFn,
    groups: Sequence[Sequence[str]] | None = None,
    metric: str = "score",
    seed: int = 0,
    write: bool = True,
    run_id: str = "",
    concurrency: int = 1,
) -> list[Ablation]:
    """Ablate each group (default: every active insight alone) at the spec's bank version
    (default: the newest); with ``write``, log each measured effect on every member."""
    version = spec.version if spec.version is not None else bank.head()[0]
    snap = bank.at(version)
    full = spec.model_copy(update={"version": version, "exclude": ()})
    if groups is None:
        groups = [[i.id] for i in snap.insights()]
    with_scores = await _scores(units, full, play, concurrency)
    out: list[Ablation] = []
    for n, group in enumerate(groups):
        arm = full.model_copy(update={"exclude": tuple(group)})
        without = await _scores(units, arm, play, concurrency)
        est = paired_difference(with_scores, without, np.random.default_rng([seed, n]))
        out.append(
            Ablation(tuple(group), est, float(np.mean(with_scores)), float(np.mean(without)))
        )
    if write:
        drafts = []
        # groups first, single insights last: an insight's own effect is the one that stays
        for ab in sorted(out, key=lambda a: -len(a.ids)):
            eff = ab.effect(metric, run_id)
            if eff is None:
                continue
            for iid in ab.ids:
                drafts.append(
                    Draft(
                        "effect",
                        snap.get(iid).namespace,
                        {
                            "id": iid,
                            "effect": eff.model_dump(mode="json"),
                            "group": list(ab.ids),
                            "at_version": version,
                        },
                    )
                )
        bank.write(drafts)
    return out


def retire_harmful(bank: Bank, unproven: bool = False) -> list[str]:
    """Retire every active insight measured harmful: its interval lies entirely below zero
    (upper bound < 0). With ``unproven``, the stricter rule on the lower bound: retire every
    measured insight not shown helpful (lower bound <= 0) — no-effect insights go too, and so
    does a helpful one measured on too few units. Unmeasured insights are never retired."""
    snap = bank.at()
    drafts = [
        Draft(
            "retire",
            i.namespace,
            {
                "id": i.id,
                "reason": f"measured {'unproven' if i.effect.hi >= 0 else 'harmful'}: "
                f"{i.effect.delta:+.3f} [{i.effect.lo:+.3f}, {i.effect.hi:+.3f}] n={i.effect.n}",
            },
        )
        for i in snap.insights()
        if i.effect is not None and (i.effect.lo <= 0 if unproven else i.effect.hi < 0)
    ]
    bank.write(drafts)
    return [str(d.payload["id"]) for d in drafts]
