"""Rules engine of ``arena/Bargaining-v0``: price bargaining (§3) or pie division (§4.1)."""

from __future__ import annotations

from typing import Any

from arena.types import Action, Decision, Outcome, PrivateFact
from games.negotiation.bargaining_rules import BargainingRules
from games.negotiation.common import NegotiationEngine, seat_names
from games.negotiation.pie import PieGame
from games.negotiation.price import ROLE, PriceGame


class BargainingEngine(PriceGame, PieGame, NegotiationEngine):
    """Buyer–seller price bargaining; with ``mode="pie"`` an n-party pie division."""

    game = "bargaining"
    Rules = BargainingRules
    rules: BargainingRules

    @property
    def n_seats(self) -> int:
        return self.rules.n_seats

    @property
    def is_price(self) -> bool:
        return self.rules.mode == "price"

    def _setup(self) -> None:
        self._names = seat_names(self.rng, self.n_seats)
        self.result: dict[str, Any] | None = None
        self.phase = "negotiation"
        if self.is_price:
            self._price_setup()
        else:
            self._pie_setup()

    def pending(self) -> list[int]:
        if self.result is not None:
            return []
        return [self.mover()] if self.is_price else self._pie_pending()

    def decision(self, seat: int) -> Decision:
        if seat not in self.pending():
            raise KeyError(seat)
        return self._price_decision(seat) if self.is_price else self._pie_decision(seat)

    def _apply(self, seat: int, action: Action) -> None:
        if self.is_price:
            self._price_apply(seat, action)
        else:
            self._pie_apply(seat, action)

    def fallback(self, seat: int, policy: str = "random_legal") -> Action:
        if self.is_price:
            return Action(seat=seat, choices=("pass",), fallback="fallback_pass")
        return self._pie_fallback(seat)

    def max_options(self) -> int:
        if self.is_price:
            return len(self.rules.grid()) + 4
        return self.n_seats + 2

    def _is_over(self) -> bool:
        return self.result is not None

    def scores(self) -> list[float]:
        """Rating scores of §8.11 (price: clipped surplus share; pie: normalised gain)."""
        return self._price_scores() if self.is_price else self._pie_scores()

    def _outcome(self) -> Outcome | None:
        if self.result is None:
            return None
        scores = self.scores()
        best = max(scores)
        top = [s for s, x in enumerate(scores) if x == best]
        winners = () if len(top) == len(scores) else tuple(f"p{s}" for s in top)
        return Outcome(
            label=self.result["label"],
            winners=winners,
            rewards={s: float(u) for s, u in enumerate(self.result["utilities"])},
            reason=self.result["reason"],
        )

    def teams(self) -> dict[int, str]:
        return {s: f"p{s}" for s in range(self.n_seats)}

    def roles(self) -> dict[int, str]:
        if self.is_price:
            return dict(ROLE)
        return {s: "party" for s in range(self.n_seats)}

    def private_facts(self) -> list[PrivateFact]:
        return self._price_facts() if self.is_price else self._pie_facts()

    def state(self, seat: int | None) -> dict[str, Any]:
        return self._price_state(seat) if self.is_price else self._pie_state(seat)

    def status_line(self, seat: int) -> str:
        if self.result is not None:
            return "The game is over."
        return self._price_status(seat) if self.is_price else self._pie_status(seat)

    def briefing(self, seat: int) -> str:
        return self._price_briefing(seat) if self.is_price else self._pie_briefing(seat)
