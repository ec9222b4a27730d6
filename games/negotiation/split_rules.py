"""Rule flags, scenario sampling and utilities of the multi-issue item split (negotiation.md §2)."""

from __future__ import annotations

import functools
import itertools
import random
from dataclasses import dataclass
from typing import Literal

from pydantic import Field, field_validator, model_validator

from games.negotiation.common import TwoPartyRules

Vec = tuple[int, ...]


class SplitRules(TwoPartyRules):
    """Flags of ``arena/DealOrNoDeal-v0`` (defaults of negotiation.md §2.1)."""

    item_types: tuple[str, ...] = ("book", "hat", "ball")
    count_range: tuple[int, int] = (1, 4)
    total_items_range: tuple[int, int] = (5, 7)
    value_total: int = Field(10, ge=1, le=1000)
    allow_identical_values: bool = False
    no_deal_payoff: Literal["zero", "private_batna"] = "zero"
    batna_range: tuple[int, int] = (1, 5)
    protocol: Literal["proposals", "selection"] = "proposals"
    max_turns: int = Field(10, ge=2, le=40)
    first_mover: Literal["random", "player_0"] = "random"

    @field_validator("item_types")
    @classmethod
    def _items(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        if not 2 <= len(v) <= 6:
            raise ValueError("item_types needs 2..6 names")
        if len(set(v)) != len(v) or any(not n or not n.isidentifier() for n in v):
            raise ValueError("item_types must be distinct simple names")
        return v

    @model_validator(mode="after")
    def _ranges(self) -> SplitRules:
        for name in ("count_range", "total_items_range", "batna_range"):
            lo, hi = getattr(self, name)
            if lo > hi or lo < 0:
                raise ValueError(f"{name} must be (lo, hi) with 0 <= lo <= hi")
        if self.count_range[0] < 1 or self.count_range[1] > 10:
            raise ValueError("count_range must lie within 1..10")
        if not count_vectors(len(self.item_types), self.count_range, self.total_items_range):
            raise ValueError("total_items_range is unreachable with count_range")
        return self


@functools.cache
def count_vectors(k: int, count_range: tuple[int, int], total: tuple[int, int]) -> list[Vec]:
    lo, hi = count_range
    return [
        c for c in itertools.product(range(lo, hi + 1), repeat=k) if total[0] <= sum(c) <= total[1]
    ]


@functools.cache
def value_vectors(counts: Vec, total: int) -> list[Vec]:
    """All v in Z>=0^K with sum_k c_k v_k = total."""
    out: list[Vec] = []

    def rec(i: int, left: int, acc: list[int]) -> None:
        if i == len(counts) - 1:
            if left % counts[i] == 0:
                out.append((*acc, left // counts[i]))
            return
        for v in range(left // counts[i] + 1):
            rec(i + 1, left - v * counts[i], [*acc, v])

    rec(0, total, [])
    return out


@functools.cache
def keep_vectors(counts: Vec) -> list[Vec]:
    """Every keep-vector x with 0 <= x_k <= c_k, in lexicographic order."""
    return list(itertools.product(*(range(c + 1) for c in counts)))


def utility(values: Vec, keep: Vec) -> int:
    return sum(v * x for v, x in zip(values, keep, strict=True))


def complement(counts: Vec, keep: Vec) -> Vec:
    return tuple(c - x for c, x in zip(counts, keep, strict=True))


@dataclass(frozen=True)
class SplitScenario:
    counts: Vec
    values: tuple[Vec, Vec]
    batna: tuple[int, int]
    first_mover: int


MAX_DRAWS = 10_000


def sample_scenario(rng: random.Random, rules: SplitRules) -> SplitScenario:
    """The scenario is a pure function of the RNG state and the rules (§2.2)."""
    k = len(rules.item_types)
    counts = rng.choice(count_vectors(k, rules.count_range, rules.total_items_range))
    pool = value_vectors(counts, rules.value_total)
    for _ in range(MAX_DRAWS if pool else 0):  # no vector at all (value_total 1): say so below
        va, vb = rng.choice(pool), rng.choice(pool)
        if any(a + b == 0 for a, b in zip(va, vb, strict=True)):
            continue
        if not any(a > 0 and b > 0 for a, b in zip(va, vb, strict=True)):
            continue
        if va == vb and not rules.allow_identical_values:
            continue
        break
    else:
        raise ValueError(
            "value_total: no valuation pair satisfies the constraints for counts "
            f"{counts}; raise value_total or allow_identical_values"
        )
    if rules.no_deal_payoff == "private_batna":
        batna = (rng.randint(*rules.batna_range), rng.randint(*rules.batna_range))
    else:
        batna = (0, 0)
    first = rng.randrange(2) if rules.first_mover == "random" else 0
    return SplitScenario(counts=counts, values=(va, vb), batna=batna, first_mover=first)
