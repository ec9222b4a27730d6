"""Paired evaluation units and deterministic episode ids.

A unit is (game, role, opponent panel entry, env seed, seat). Every candidate of a generation
plays the same units — common random numbers: the deal, the seat and the opponent are the same
for both sides of every comparison, so the paired differences carry only the effect of the
context. The three splits draw their env seeds from independent streams of the repeat's master
seed: ``train`` games feed reflection, ``select`` games drive survival (the metric's ratings),
and ``gate`` games — a frozen split, never shown to the reflector nor used for survival —
decide promotion.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any, Literal

from arena import registry
from arena.seeding import derive_seed

Split = Literal["train", "select", "gate"]
SPLITS: tuple[Split, ...] = ("train", "select", "gate")


@dataclass(frozen=True)
class Unit:
    game: str
    role: str
    panel: str
    seed: int
    seat: int
    split: Split
    index: int  # position of the seed in its split

    @property
    def key(self) -> str:
        return f"{self.split[0]}{self.index:04d}-s{self.seat}-{self.panel}"

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "key": self.key}


def split_seed(master_seed: int, repeat: int, split: Split, index: int) -> int:
    return derive_seed(master_seed, "selfplay", repeat, split, index)


def make_units(
    game: str,
    rules: dict[str, Any],
    panel: list[str],
    master_seed: int,
    repeat: int,
    split: Split,
    n_seeds: int,
    seats: list[int] | None,
) -> list[Unit]:
    """The units of one split: each seed from each seat against each panel entry."""
    engine_cls = registry.engine_class(game)
    out = []
    for i in range(n_seeds):
        seed = split_seed(master_seed, repeat, split, i)
        engine = engine_cls(rules, seed=seed)
        roles = engine.roles()
        teams = engine.teams()
        for seat in seats if seats is not None else range(engine.n_seats):
            role = roles.get(seat) or teams.get(seat) or "*"
            for entry in panel:
                out.append(Unit(game, str(role), entry, seed, seat, split, i))
    return out


def episode_id(phase: str, generation: int, candidate: str, unit: Unit, replicate: int = 0) -> str:
    """The match id of one episode: a pure function of (generation, phase, candidate, unit,
    replicate) inside the repeat's run id, so a resumed run schedules exactly the missing ones."""
    return f"{phase}-g{generation:03d}-{candidate}-{unit.key}-x{replicate}"


def flipping(scores: Iterable[tuple[str, float]]) -> list[str]:
    """Unit keys whose outcome flips: their finite scores — over every candidate and every
    replicate played on them — are not all equal. In first-seen order."""
    seen: dict[str, set[float]] = {}
    for key, score in scores:
        values = seen.setdefault(key, set())
        if math.isfinite(score):
            values.add(score)
    return [key for key, values in seen.items() if len(values) > 1]


def replicate_plan(
    units: list[Unit], flipped: Iterable[str], replicates: int, max_units: int
) -> list[tuple[Unit, int]]:
    """(unit, replicate) pairs to play again: every flipped unit's replicate 1 first (in unit
    order), then replicate 2, …, at most ``max_units`` pairs (each is played by every
    candidate, so a comparison stays paired)."""
    chosen = set(flipped)
    picked = [u for u in units if u.key in chosen]
    plan = [(u, r) for r in range(1, replicates + 1) for u in picked]
    return plan[: max(0, max_units)]
