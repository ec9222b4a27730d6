"""Rule flags and scenario sampling of the single-item auction (negotiation.md §4.2)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Literal

from pydantic import Field, model_validator

from games.negotiation.common import NegotiationRules


class AuctionRules(NegotiationRules):
    """Flags of ``arena/Auction-v0`` (defaults of negotiation.md §4.2)."""

    n_bidders: int = Field(3, ge=2, le=8)
    value_range: tuple[int, int] = (0, 100)
    format: Literal["sealed_second", "sealed_first", "ascending"] = "sealed_second"
    reserve_price: int = Field(0, ge=0)
    increment: int = Field(5, ge=1)
    pre_bid_talk_rounds: int = Field(1, ge=0, le=3)
    talk_each_tick: bool = False
    allow_private: bool = False

    @model_validator(mode="after")
    def _check(self) -> AuctionRules:
        v_lo, v_hi = self.value_range
        if v_lo > v_hi:
            raise ValueError("value_range must be (lo, hi) with lo <= hi")
        if v_lo < 0 or v_hi > 2000:
            raise ValueError("value_range must lie in 0..2000")
        if self.reserve_price > v_hi:
            raise ValueError("reserve_price must not exceed the top of value_range")
        return self


@dataclass(frozen=True)
class AuctionScenario:
    values: tuple[int, ...]  # private v_i per seat


def sample_auction(rng: random.Random, rules: AuctionRules) -> AuctionScenario:
    """§4.2: private values drawn independently and uniformly from ``value_range``."""
    return AuctionScenario(
        values=tuple(rng.randint(*rules.value_range) for _ in range(rules.n_bidders))
    )
