"""Rule flags and scenario sampling of the n-party pie division (negotiation.md §4.1)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Literal

from pydantic import Field, model_validator

from games.negotiation.common import NegotiationRules


class PieRules(NegotiationRules):
    """Flags of ``arena/PieDivision-v0`` (defaults of negotiation.md §4.1)."""

    n_parties: int = Field(3, ge=3, le=8)
    pie: int = Field(100, ge=1, le=100_000)
    outside_option_range: tuple[int, int] = (0, 20)
    quota: Literal["unanimous", "majority"] | int = "unanimous"
    max_rounds: int | None = Field(None, ge=1, le=64)
    discount: float = Field(1.0, gt=0.0, le=1.0)
    discussion_passes: int = Field(1, ge=0, le=2)
    allow_private: bool = False

    @model_validator(mode="after")
    def _check(self) -> PieRules:
        lo, hi = self.outside_option_range
        if lo > hi:
            raise ValueError("outside_option_range must be (lo, hi) with lo <= hi")
        if lo < 0:
            raise ValueError("outside_option_range must be non-negative")
        if isinstance(self.quota, int) and not 1 <= self.quota <= self.n_parties:
            raise ValueError("quota must be in 1..n_parties")
        return self

    @property
    def rounds(self) -> int:
        return self.max_rounds if self.max_rounds is not None else 2 * self.n_parties

    @property
    def quota_count(self) -> int:
        if self.quota == "unanimous":
            return self.n_parties
        if self.quota == "majority":
            return self.n_parties // 2 + 1
        return int(self.quota)


@dataclass(frozen=True)
class PieScenario:
    outside: tuple[int, ...]
    first_proposer: int


def sample_pie(rng: random.Random, rules: PieRules) -> PieScenario:
    outside = tuple(rng.randint(*rules.outside_option_range) for _ in range(rules.n_parties))
    return PieScenario(outside=outside, first_proposer=rng.randrange(rules.n_parties))
