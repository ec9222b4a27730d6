"""State shared by the price, pie and auction mixins of the Bargaining engine."""

from __future__ import annotations

from typing import Any

from games.negotiation.bargaining_rules import BargainingRules
from games.negotiation.common import NegotiationEngine


class BargainingBase(NegotiationEngine):
    """Base of the mode mixins (price.py, pie.py, auction.py); BargainingEngine combines them."""

    # State set by BargainingEngine._setup and the mode's setup hook (declared here for the
    # type checker).
    rules: BargainingRules
    _names: list[str]
    result: dict[str, Any] | None
    sc: Any  # PriceScenario, PieScenario or AuctionScenario, by mode
    step: str  # pie and auction
    queue: list[int]  # pie and auction: the seats still to talk, in order
