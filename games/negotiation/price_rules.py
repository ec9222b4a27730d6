"""Rule flags, scenario sampling and payoffs of the buyer–seller price bargain (negotiation.md §3)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Literal

from pydantic import Field, model_validator

from games.negotiation.common import TwoPartyRules

SELLER, BUYER = 0, 1


class PriceRules(TwoPartyRules):
    """Flags of ``arena/PriceBargaining-v0`` (defaults of negotiation.md §3.1)."""

    price_range: tuple[int, int] = (0, 200)
    price_step: int = Field(1, ge=1)
    seller_reservation_range: tuple[int, int] = (40, 120)
    zopa_prob: float = Field(0.8, ge=0.0, le=1.0)
    zopa_width_range: tuple[int, int] = (10, 60)
    negative_gap_range: tuple[int, int] = (1, 30)
    first_mover: Literal["seller", "buyer", "random"] = "seller"
    max_turns: int = Field(12, ge=2, le=40)
    outside_options: Literal["none", "private"] = "none"
    outside_option_range: tuple[int, int] = (0, 20)
    discount: float = Field(1.0, gt=0.0, le=1.0)
    list_price: int | None = None
    block_irrational_accept: bool = False

    @model_validator(mode="after")
    def _check(self) -> PriceRules:
        for name in (
            "price_range",
            "seller_reservation_range",
            "zopa_width_range",
            "negative_gap_range",
            "outside_option_range",
        ):
            lo, hi = getattr(self, name)
            if lo > hi:
                raise ValueError(f"{name} must be (lo, hi) with lo <= hi")
        lo, hi = self.price_range
        if lo < 0:
            raise ValueError("price_range: prices cannot be negative")
        if (hi - lo) % self.price_step:
            raise ValueError("price_step must divide the width of price_range")
        if (hi - lo) // self.price_step > 2000:
            raise ValueError("price_range/price_step: at most 2001 grid prices")
        if self.negative_gap_range[0] < 1:
            raise ValueError("negative_gap_range must start at 1 or more (r_b < r_s strictly)")
        if self.list_price is not None and not lo <= self.list_price <= hi:
            raise ValueError("list_price must lie in price_range")
        if self.outside_option_range[0] < 0:
            raise ValueError("outside_option_range must be non-negative")
        return self

    def grid(self) -> range:
        lo, hi = self.price_range
        return range(lo, hi + 1, self.price_step)


@dataclass(frozen=True)
class PriceScenario:
    r_s: int
    r_b: int
    outside: tuple[int, int]  # per seat: seller, buyer
    first_mover: int

    @property
    def zopa(self) -> int:
        return self.r_b - self.r_s


def sample_price(rng: random.Random, rules: PriceRules) -> PriceScenario:
    """§3.2: r_s uniform; a ZOPA of width Z with probability zopa_prob, else a gap G."""
    r_s = rng.randint(*rules.seller_reservation_range)
    if rng.random() < rules.zopa_prob:
        r_b = r_s + rng.randint(*rules.zopa_width_range)
    else:
        r_b = r_s - rng.randint(*rules.negative_gap_range)
    lo, hi = rules.price_range
    r_b = min(max(r_b, lo), hi)
    if rules.outside_options == "private":
        outside = (
            rng.randint(*rules.outside_option_range),
            rng.randint(*rules.outside_option_range),
        )
    else:
        outside = (0, 0)
    first = {"seller": SELLER, "buyer": BUYER}.get(rules.first_mover)
    if first is None:
        first = rng.randrange(2)
    return PriceScenario(r_s=r_s, r_b=r_b, outside=outside, first_mover=first)


def price_utility(sc: PriceScenario, seat: int, price: int, rnd: int, delta: float) -> float:
    """§3.4: the surplus of a deal at ``price`` in round ``rnd``, discounted by delta^(r-1)."""
    gain = price - sc.r_s if seat == SELLER else sc.r_b - price
    return gain * delta ** (rnd - 1)
