"""The negotiation games' knowledge model for the metrics: which words make a number a
disclosure of a private value, reservation price or outside option (cue gating)."""

from __future__ import annotations

from typing import Any

from arena.registry import KnowledgeModel

RESERVATION_CUES = (
    r"budget", r"reservation", r"cost", r"walk[- ]?away", r"lowest", r"highest", r"limit",
    r"\bmax(imum)?\b", r"\bmin(imum)?\b", r"afford", r"bottom line", r"can'?t go",
    r"break[- ]?even", r"ceiling", r"floor", r"paid", r"fall ?back", r"alternative",
    r"outside option", r"without a deal", r"no deal",
)  # fmt: skip
VALUATION_CUES = (
    r"worth", r"valu", r"points?", r"\bpts\b", r"apiece", r"means?", r"matters?", r"care",
)  # fmt: skip

NUMBER_CUES = {
    "valuation": VALUATION_CUES,
    "reservation_price": RESERVATION_CUES,
    "batna": RESERVATION_CUES,
    "outside_option": RESERVATION_CUES,
}


def item_split_utility(reward: float, rules: dict[str, Any]) -> float | None:
    """Points won out of the pool's total value per player."""
    total = rules.get("value_total") or 10
    return max(0.0, min(1.0, reward / total))


# Deal or No Deal: per-item valuations (anchored on the item's name, one composite per
# owner) and a no-deal payoff.
ITEM_SPLIT = KnowledgeModel(
    number_cues=NUMBER_CUES, anchored_kinds=("valuation",), utility=item_split_utility
)
# Price bargaining, pie division and auctions: rewards are already in [0, 1].
BARGAINING = KnowledgeModel(number_cues=NUMBER_CUES, anchored_kinds=("valuation",))
