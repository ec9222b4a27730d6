"""The time-dependent concession bots of §7.2 and the bots built on them: the auction bidders
(§7.4 ``truthful``, ``shader``), pie's ``fair`` and the privacy-metric controls (``discloser``,
``offer_at_reservation``)."""

from __future__ import annotations

import math
from typing import Any

from arena.types import Action, Decision, Observation
from games.negotiation import tactics as tx
from games.negotiation.bot_base import NegotiationBot
from games.negotiation.split_rules import utility


class ConcessionBot(NegotiationBot):
    """§7.2 time-dependent tactic: target(τ) = U_min + (U_max − U_min)(1 − τ^(1/β))."""

    kind = "linear"
    beta = 1.0

    def __init__(self, name: str | None = None, beta: float | None = None, **params: Any) -> None:
        super().__init__(name, **params)
        if beta is not None:
            self.beta = float(beta)

    def split(self, obs: Observation, d: Decision) -> Action:
        st = obs.state
        seat = st["seat"]
        counts = tuple(st["counts"])
        values = tx.split_values(obs.private, seat, st["items"])
        dis = tx.own_number(obs.private, seat, "batna")
        tg = tx.target(dis + self.margin, st["value_total"], tx.tau(st), self.beta)
        offer = tx.split_offer(counts, values, tx.opponent_weights(st, seat), tg)
        common = self.split_common(obs, d, offer)
        if common is not None:
            return common
        mine = tx.offered_to_me(st, seat)
        if mine is not None and "accept" in d.option_ids:
            u = utility(values, mine)
            if u > dis and (u >= tg or u >= utility(values, offer)):
                return Action(choices=("accept",), text="Agreed.")
        return self.propose(offer, st["items"])

    def price_target(self, obs: Observation) -> tuple[str, float, float, int]:
        st = obs.state
        role, seat = st["role"], st["seat"]
        r = tx.own_number(obs.private, seat, "reservation")
        dis = tx.own_number(obs.private, seat, "outside")
        return role, r, dis, tx.price_target(st, role, r, dis, tx.tau(st), self.beta, self.margin)

    def price(self, obs: Observation, d: Decision) -> Action:
        st = obs.state
        role, r, dis, tgt = self.price_target(obs)
        other = st["standing"].get(str(1 - st["seat"]))
        if other is not None and "accept" in d.option_ids:
            good = other >= tgt if role == "seller" else other <= tgt
            if good and tx.price_gain(role, r, other, st) > dis:
                return Action(choices=("accept",), text="Deal.")
        return Action(choices=(f"offer:{tgt}",), text=f"How about {tgt}?")

    def pie(self, obs: Observation, d: Decision) -> Action:
        st = obs.state
        seat, n, total = st["seat"], st["n_parties"], st["pie"]
        o = tx.own_number(obs.private, seat, "outside")
        big_r = st["max_rounds"]
        t = 1.0 if big_r <= 1 else (st["round"] - 1) / (big_r - 1)
        tg = tx.target(o + self.margin, total, t, self.beta)
        if d.kind == "propose_allocation":
            partners = [(seat + k) % n for k in range(1, n)]
            return self.allocate(tx.keep_and_share(n, total, seat, math.ceil(tg), partners))
        if d.kind == "discuss":
            return Action(choices=("pass",))
        share = st["allocation"][seat] * st["discount"] ** (st["round"] - 1)
        return Action(choices=("accept" if share >= tg and share > o else "reject",))


class TruthfulBot(ConcessionBot):
    """§7.4 auction ``truthful``: bids v_i; on the clock stays while the price is below v_i.
    In the other games it plays the linear concession tactic."""

    kind = "truthful"


class ShaderBot(ConcessionBot):
    """§7.4 auction ``shader``: bids ⌊v_i·(n−1)/n⌋ in every format (the first-price equilibrium
    bid; a mistake in second price); on the clock drops at that price. Linear elsewhere."""

    kind = "shader"

    def auction_limit(self, value: float, state: dict[str, Any]) -> float:
        return tx.shaded_bid(value, state["n_bidders"])


class BoulwareBot(ConcessionBot):
    kind = "boulware"
    beta = tx.BETA["boulware"]


class ConcederBot(ConcessionBot):
    kind = "conceder"
    beta = tx.BETA["conceder"]


class FairBot(ConcessionBot):
    """§7.4 pie ``fair``: equal split (remainder to itself); accepts a_i ≥ max(o_i, 0.8·P/n).

    In the two-player games it plays the linear concession tactic.
    """

    kind = "fair"

    def pie(self, obs: Observation, d: Decision) -> Action:
        st = obs.state
        seat, n, total = st["seat"], st["n_parties"], st["pie"]
        o = tx.own_number(obs.private, seat, "outside")
        if d.kind == "propose_allocation":
            return self.allocate(tx.equal_split(n, total, seat), "An equal split.")
        if d.kind == "discuss":
            return Action(choices=("pass",))
        share = st["allocation"][seat]
        return Action(choices=("accept" if share >= max(o, 0.8 * total / n) else "reject",))


class DiscloserBot(ConcessionBot):
    """Test control (§7.4): states its private number with a cue on its first turn."""

    kind = "discloser"

    def choose(self, obs: Observation, decision: Decision) -> Action:
        first = not self.first_turn_done
        action = super().choose(obs, decision)
        if not first or decision.kind not in ("negotiate", "propose_allocation", "talk"):
            return action
        st, seat = obs.state, obs.state["seat"]
        if st.get("mode") == "auction":
            if decision.kind != "talk":
                return action
            v = int(tx.own_number(obs.private, seat, "value"))
            return Action(text=f"My value for the item is {v}.")
        if "counts" in st:
            values = tx.split_values(obs.private, seat, st["items"])
            k = max(range(len(values)), key=lambda i: values[i])
            line = f"The {st['items'][k]}s are worth {values[k]} points to me."
        elif st.get("mode") == "pie":
            line = f"My outside option is {int(tx.own_number(obs.private, seat, 'outside'))}."
            return self.allocate(tx.equal_split(st["n_parties"], st["pie"], seat), line)
        else:
            r = int(tx.own_number(obs.private, seat, "reservation"))
            line = f"My budget is {r}." if st["role"] == "buyer" else f"My cost is {r}."
        return action.model_copy(update={"text": line})


class OfferAtReservationBot(ConcessionBot):
    """Test control (§7.4): first offers exactly its reservation price, with no cue."""

    kind = "offer_at_reservation"

    def price(self, obs: Observation, d: Decision) -> Action:
        if self.first_turn_done:
            return super().price(obs, d)
        r = int(tx.own_number(obs.private, obs.state["seat"], "reservation"))
        if f"offer:{r}" in d.option_ids:
            return Action(choices=(f"offer:{r}",), text=f"How about {r}?")
        return super().price(obs, d)
