"""Baseline bots of negotiation.md §7 for every negotiation game (split, price, pie, auction).

Each bot reads only its :class:`~arena.types.Observation` (public state and its own private
facts) and owns a ``random.Random`` seeded from its :class:`MatchContext` seed, which the runner
derives from (match seed, seat, bot name) — never the match seed itself. Messages are short
templates about the offer; only the test bots ``discloser`` / ``offer_at_reservation`` (§7.4,
privacy-metric controls) ever state a private number. Every bot takes ``slip`` (0 default): the
probability of a random-legal move (``random``'s) instead of its own, decision by decision
(:mod:`arena.agents.slip`), so one strategy at growing slip is a population of known order.
"""

from __future__ import annotations

import math
from typing import Any

from arena.agents.base import Agent
from arena.types import Action, Decision, Observation
from games.negotiation import tactics as tx
from games.negotiation.bot_base import NegotiationBot, RandomLegalBot
from games.negotiation.bot_concession import (
    BoulwareBot,
    ConcederBot,
    ConcessionBot,
    DiscloserBot,
    FairBot,
    OfferAtReservationBot,
    ShaderBot,
    TruthfulBot,
)
from games.negotiation.split_rules import utility


class GreedyBot(NegotiationBot):
    """§7.3: asks for everything it values / its opening price; accepts only good offers."""

    kind = "greedy"

    def __init__(self, name: str | None = None, kappa: float = 0.8, **params: Any) -> None:
        super().__init__(name, kappa=kappa, **params)
        self.kappa = kappa

    @staticmethod
    def last_turn(st: dict[str, Any]) -> bool:
        return bool(st.get("my_turn", 1) >= st.get("my_turns_total", 1))

    def split(self, obs: Observation, d: Decision) -> Action:
        st = obs.state
        seat = st["seat"]
        values = tx.split_values(obs.private, seat, st["items"])
        keep = tx.greedy_keep(tuple(st["counts"]), values)
        common = self.split_common(obs, d, keep)
        if common is not None:
            return common
        dis = tx.own_number(obs.private, seat, "batna")
        mine = tx.offered_to_me(st, seat)
        if mine is not None and "accept" in d.option_ids:
            u = utility(values, mine)
            if u >= self.kappa * st["value_total"] or (self.last_turn(st) and u > dis):
                return Action(choices=("accept",), text="Agreed.")
        return self.propose(keep, st["items"])

    def price(self, obs: Observation, d: Decision) -> Action:
        st = obs.state
        role, seat = st["role"], st["seat"]
        r = tx.own_number(obs.private, seat, "reservation")
        dis = tx.own_number(obs.private, seat, "outside")
        opening = tx.price_opening(st, role, r)
        other = st["standing"].get(str(1 - seat))
        if other is not None and "accept" in d.option_ids:
            g = tx.price_gain(role, r, other, st)
            want = self.kappa * (opening - r if role == "seller" else r - opening)
            if (g >= want and g > dis) or (self.last_turn(st) and g > dis):
                return Action(choices=("accept",), text="Deal.")
        return Action(choices=(f"offer:{opening}",), text=f"My offer is {opening}.")

    def pie(self, obs: Observation, d: Decision) -> Action:
        st = obs.state
        seat, n, total, quota = st["seat"], st["n_parties"], st["pie"], st["quota"]
        o = tx.own_number(obs.private, seat, "outside")
        if d.kind == "propose_allocation":
            alloc = [0] * n
            give = math.ceil(total / (2 * n))
            for k in range(1, quota):
                alloc[(seat + k) % n] = give
            alloc[seat] = total - sum(alloc)
            return self.allocate(alloc)
        if d.kind == "discuss":
            return Action(choices=("pass",))
        share = st["allocation"][seat]
        return Action(choices=("accept" if share >= max(o, total / n) else "reject",))

    def auction_limit(self, value: float, state: dict[str, Any]) -> float:
        """Greedy bids its price-game opening: half its value, ⌊v·(1 − m₀)⌋ with m₀ = 0.5."""
        return math.floor(value * 0.5)


_COMMON: dict[str, type[Agent]] = {
    "random": RandomLegalBot,
    "random_legal": RandomLegalBot,
    "greedy": GreedyBot,
    "boulware": BoulwareBot,
    "linear": ConcessionBot,
    "conceder": ConcederBot,
    "discloser": DiscloserBot,
    "offer_at_reservation": OfferAtReservationBot,
}
BOTS_DEALORNODEAL: dict[str, type[Agent]] = {**_COMMON, "rule": ConcessionBot}
BOTS_PRICE: dict[str, type[Agent]] = {**_COMMON, "rule": ConcessionBot}
BOTS_PIE: dict[str, type[Agent]] = {
    **{k: v for k, v in _COMMON.items() if k != "offer_at_reservation"},
    "fair": FairBot,
    "rule": ConcessionBot,
}
BOTS_AUCTION: dict[str, type[Agent]] = {
    "random": RandomLegalBot,
    "random_legal": RandomLegalBot,
    "truthful": TruthfulBot,
    "shader": ShaderBot,
    "greedy": GreedyBot,
    "discloser": DiscloserBot,
    "rule": ConcessionBot,
}
#: the old id ``bargaining`` (any of the three games): every bot above
BOTS_BARGAINING: dict[str, type[Agent]] = {
    **_COMMON,
    "fair": FairBot,
    "truthful": TruthfulBot,
    "shader": ShaderBot,
    "rule": ConcessionBot,
}
