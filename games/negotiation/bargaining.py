"""The old id ``bargaining`` (``arena/Bargaining-v0``): one of three games, picked by ``mode``.

Price bargaining, pie division and the auction are three games (``price_bargaining``,
``pie_division``, ``auction``; see ``price.py``, ``pie.py``, ``auction.py``). Configs written
for the old id keep working: ``game: bargaining`` with ``mode: price|pie|auction`` (default
``price``) builds that game's engine with the remaining flags, so a match plays exactly as it
does under the new id. New configs should name the game directly.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field, ValidationError, model_validator

from arena.engine import RulesEngine, RuleSet
from games.negotiation.auction import AuctionEngine
from games.negotiation.pie import PieDivisionEngine
from games.negotiation.price import PriceBargainingEngine

#: mode of the old id -> the game it names
MODES: dict[str, type[RulesEngine[Any]]] = {
    "price": PriceBargainingEngine,
    "pie": PieDivisionEngine,
    "auction": AuctionEngine,
}


class BargainingRules(RuleSet):
    """Flags of the old id: ``mode``, and any flag of the game it names (checked by that game's
    own rule set, so a flag of another mode is refused by name)."""

    model_config = ConfigDict(extra="allow", frozen=True)

    mode: Literal["price", "pie", "auction"] = Field(
        "price",
        description="price: price_bargaining, pie: pie_division, auction: auction; any other "
        "flag is that game's",
    )

    @model_validator(mode="after")
    def _check(self) -> BargainingRules:
        self.game_rules()
        return self

    def game_rules(self) -> RuleSet:
        """The rule set of the game ``mode`` names, from the other flags."""
        try:
            return MODES[self.mode].Rules(**(self.model_extra or {}))
        except ValidationError as err:
            problems = "; ".join(
                ".".join(str(p) for p in e["loc"]) + f": {e['msg']}" if e["loc"] else e["msg"]
                for e in err.errors()
            )
            raise ValueError(f"mode={self.mode!r}: {problems}") from None


class BargainingEngine:
    """Not an engine of its own: calling it builds the engine of the game ``mode`` names."""

    game = "bargaining"
    Rules = BargainingRules

    # Returns another class's instance on purpose (a factory with the engine signature, so
    # the registry, runner and env build the old id like any game).
    def __new__(  # type: ignore[misc]
        cls, rules: BargainingRules | dict[str, Any] | None = None, seed: int = 0
    ) -> RulesEngine[Any]:
        if not isinstance(rules, BargainingRules):
            rules = BargainingRules(**(rules or {}))
        return MODES[rules.mode](rules.game_rules(), seed=seed)
