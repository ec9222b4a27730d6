"""Rule flags and scenario sampling of ``arena/Bargaining-v0`` (negotiation.md §3, §4.1, §4.2).

``mode="price"`` (**Default**) is the buyer–seller price bargain of §3; ``mode="pie"`` is the
multi-party pie division of §4.1; ``mode="auction"`` the single-item auction of §4.2. Flags of
another mode are refused when set explicitly, so a config error names the field.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Literal

from pydantic import Field, model_validator

from games.negotiation.common import NegotiationRules

PRICE_ONLY = (
    "price_range",
    "price_step",
    "seller_reservation_range",
    "zopa_prob",
    "zopa_width_range",
    "negative_gap_range",
    "first_mover",
    "max_turns",
    "outside_options",
    "list_price",
    "block_irrational_accept",
    "allow_walk_away",
)
PIE_ONLY = ("n_parties", "pie", "quota", "max_rounds", "discussion_passes")
AUCTION_ONLY = (
    "n_bidders",
    "value_range",
    "format",
    "reserve_price",
    "increment",
    "pre_bid_talk_rounds",
    "talk_each_tick",
)
MODE_FLAGS = {
    "price": (*PRICE_ONLY, "discount", "outside_option_range"),
    "pie": (*PIE_ONLY, "discount", "outside_option_range", "allow_private"),
    "auction": (*AUCTION_ONLY, "allow_private"),
}


class BargainingRules(NegotiationRules):
    """Flags of ``arena/Bargaining-v0`` (defaults of negotiation.md §3.1 and §4.1)."""

    mode: Literal["price", "pie", "auction"] = "price"
    # -- price (§3.1)
    price_range: tuple[int, int] = (0, 200)
    price_step: int = Field(1, ge=1)
    seller_reservation_range: tuple[int, int] = (40, 120)
    zopa_prob: float = Field(0.8, ge=0.0, le=1.0)
    zopa_width_range: tuple[int, int] = (10, 60)
    negative_gap_range: tuple[int, int] = (1, 30)
    first_mover: Literal["seller", "buyer", "random"] = "seller"
    max_turns: int = Field(12, ge=2, le=40)
    outside_options: Literal["none", "private"] = "none"
    list_price: int | None = None
    block_irrational_accept: bool = False
    # -- shared
    outside_option_range: tuple[int, int] = (0, 20)
    discount: float = Field(1.0, gt=0.0, le=1.0)
    # -- pie (§4.1)
    n_parties: int = Field(3, ge=3, le=8)
    pie: int = Field(100, ge=1, le=100_000)
    quota: Literal["unanimous", "majority"] | int = "unanimous"
    max_rounds: int | None = Field(None, ge=1, le=64)
    discussion_passes: int = Field(1, ge=0, le=2)
    allow_private: bool = False
    # -- auction (§4.2)
    n_bidders: int = Field(3, ge=2, le=8)
    value_range: tuple[int, int] = (0, 100)
    format: Literal["sealed_second", "sealed_first", "ascending"] = "sealed_second"
    reserve_price: int = Field(0, ge=0)
    increment: int = Field(5, ge=1)
    pre_bid_talk_rounds: int = Field(1, ge=0, le=3)
    talk_each_tick: bool = False

    @model_validator(mode="after")
    def _check(self) -> BargainingRules:
        wrong = {f for m, fs in MODE_FLAGS.items() if m != self.mode for f in fs}
        stray = sorted((wrong - set(MODE_FLAGS[self.mode])) & self.model_fields_set)
        if stray:
            raise ValueError(f"{', '.join(stray)}: not a flag of mode={self.mode!r}")
        for name in (
            "price_range",
            "seller_reservation_range",
            "zopa_width_range",
            "negative_gap_range",
            "outside_option_range",
            "value_range",
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
        if isinstance(self.quota, int) and not 1 <= self.quota <= self.n_parties:
            raise ValueError("quota must be in 1..n_parties")
        if self.outside_option_range[0] < 0:
            raise ValueError("outside_option_range must be non-negative")
        v_lo, v_hi = self.value_range
        if v_lo < 0 or v_hi > 2000:
            raise ValueError("value_range must lie in 0..2000")
        if self.reserve_price > v_hi:
            raise ValueError("reserve_price must not exceed the top of value_range")
        return self

    @property
    def n_seats(self) -> int:
        return {"price": 2, "pie": self.n_parties, "auction": self.n_bidders}[self.mode]

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

    def grid(self) -> range:
        lo, hi = self.price_range
        return range(lo, hi + 1, self.price_step)


SELLER, BUYER = 0, 1


@dataclass(frozen=True)
class PriceScenario:
    r_s: int
    r_b: int
    outside: tuple[int, int]  # per seat: seller, buyer
    first_mover: int

    @property
    def zopa(self) -> int:
        return self.r_b - self.r_s


def sample_price(rng: random.Random, rules: BargainingRules) -> PriceScenario:
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


@dataclass(frozen=True)
class PieScenario:
    outside: tuple[int, ...]
    first_proposer: int


def sample_pie(rng: random.Random, rules: BargainingRules) -> PieScenario:
    outside = tuple(rng.randint(*rules.outside_option_range) for _ in range(rules.n_parties))
    return PieScenario(outside=outside, first_proposer=rng.randrange(rules.n_parties))


def price_utility(sc: PriceScenario, seat: int, price: int, rnd: int, delta: float) -> float:
    """§3.4: the surplus of a deal at ``price`` in round ``rnd``, discounted by delta^(r-1)."""
    gain = price - sc.r_s if seat == SELLER else sc.r_b - price
    return gain * delta ** (rnd - 1)


@dataclass(frozen=True)
class AuctionScenario:
    values: tuple[int, ...]  # private v_i per seat


def sample_auction(rng: random.Random, rules: BargainingRules) -> AuctionScenario:
    """§4.2: private values drawn independently and uniformly from ``value_range``."""
    return AuctionScenario(
        values=tuple(rng.randint(*rules.value_range) for _ in range(rules.n_bidders))
    )
