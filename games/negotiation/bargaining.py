"""Rules engine of ``arena/Bargaining-v0``: price bargaining (§3), pie division (§4.1) or the
single-item auction (§4.2), chosen by ``mode``."""

from __future__ import annotations

from typing import Any

from arena.types import Action, Decision, Outcome, PrivateFact
from games.negotiation.auction import AuctionGame
from games.negotiation.bargaining_rules import BargainingRules
from games.negotiation.common import seat_names
from games.negotiation.pie import PieGame
from games.negotiation.price import ROLE, PriceGame


class BargainingEngine(PriceGame, PieGame, AuctionGame):
    """Buyer–seller price bargaining; ``mode="pie"``: n-party pie division; ``mode="auction"``:
    a single-item auction with private values."""

    game = "bargaining"
    Rules = BargainingRules

    @property
    def n_seats(self) -> int:
        return self.rules.n_seats

    @property
    def is_price(self) -> bool:
        return self.rules.mode == "price"

    @property
    def mode(self) -> str:
        return self.rules.mode

    def _hook(self, name: str) -> Any:
        """The mode's implementation of a hook: ``_price_<name>``, ``_pie_<name>``, ..."""
        return getattr(self, f"_{self.rules.mode}_{name}")

    def _setup(self) -> None:
        self._names = seat_names(self.rng, self.n_seats)
        self.result = None
        self.phase = "negotiation"
        self._hook("setup")()

    def pending(self) -> list[int]:
        if self.result is not None:
            return []
        return [self.mover()] if self.is_price else self._hook("pending")()

    def decision(self, seat: int) -> Decision:
        if seat not in self.pending():
            raise KeyError(seat)
        return self._hook("decision")(seat)

    def _apply(self, seat: int, action: Action) -> None:
        self._hook("apply")(seat, action)

    def fallback(self, seat: int, policy: str = "random_legal") -> Action:
        if self.is_price:
            return Action(seat=seat, choices=("pass",), fallback="fallback_pass")
        return self._hook("fallback")(seat)

    def max_options(self) -> int:
        if self.is_price:
            return len(self.rules.grid()) + 4
        if self.mode == "auction":
            return max(self.rules.value_range[1] + 2, self.n_seats + 1)
        return self.n_seats + 2

    def _is_over(self) -> bool:
        return self.result is not None

    def scores(self) -> list[float]:
        """Rating scores of §8.11 (price: clipped surplus share; pie: normalised gain;
        auction: u_i / (v_i − reserve))."""
        return self._hook("scores")()

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
        role = "bidder" if self.mode == "auction" else "party"
        return {s: role for s in range(self.n_seats)}

    def private_facts(self) -> list[PrivateFact]:
        return self._hook("facts")()

    def state(self, seat: int | None) -> dict[str, Any]:
        return self._hook("state")(seat)

    def status_line(self, seat: int) -> str:
        if self.result is not None:
            return "The game is over."
        return self._hook("status")(seat)

    def briefing(self, seat: int) -> str:
        return self._hook("briefing")(seat)
