"""Shared helpers of the negotiation tests."""

from __future__ import annotations

from typing import Any

from games.negotiation.bargaining import BargainingEngine
from games.negotiation.dealornodeal import DealOrNoDealEngine


def split_engine(seed: int = 0, **rules: Any) -> DealOrNoDealEngine:
    return DealOrNoDealEngine(rules, seed=seed)


def price_engine(seed: int = 0, **rules: Any) -> BargainingEngine:
    return BargainingEngine(rules, seed=seed)


def pie_engine(seed: int = 0, **rules: Any) -> BargainingEngine:
    return BargainingEngine({"mode": "pie", **rules}, seed=seed)


def auction_engine(seed: int = 0, **rules: Any) -> BargainingEngine:
    return BargainingEngine({"mode": "auction", **rules}, seed=seed)


def mover(engine: Any) -> int:
    return engine.pending()[0]


def god(engine: Any, type_: str) -> dict[str, Any]:
    return next(e.payload for e in engine.log if e.type == type_)
