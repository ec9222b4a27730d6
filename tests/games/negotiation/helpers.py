"""Shared helpers of the negotiation tests."""

from __future__ import annotations

from typing import Any

from games.negotiation.auction import AuctionEngine
from games.negotiation.dealornodeal import DealOrNoDealEngine
from games.negotiation.pie import PieDivisionEngine
from games.negotiation.price import PriceBargainingEngine


def split_engine(seed: int = 0, **rules: Any) -> DealOrNoDealEngine:
    return DealOrNoDealEngine(rules, seed=seed)


def price_engine(seed: int = 0, **rules: Any) -> PriceBargainingEngine:
    return PriceBargainingEngine(rules, seed=seed)


def pie_engine(seed: int = 0, **rules: Any) -> PieDivisionEngine:
    return PieDivisionEngine(rules, seed=seed)


def auction_engine(seed: int = 0, **rules: Any) -> AuctionEngine:
    return AuctionEngine(rules, seed=seed)


def mover(engine: Any) -> int:
    return engine.pending()[0]


def god(engine: Any, type_: str) -> dict[str, Any]:
    return next(e.payload for e in engine.log if e.type == type_)
