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
import random
from abc import abstractmethod
from typing import Any

from arena.agents.base import Agent, MatchContext
from arena.agents.slip import Slip
from arena.seeding import derive_seed
from arena.types import Action, Decision, Observation
from games.negotiation import tactics as tx
from games.negotiation.split_rules import utility


class NegotiationBot(Agent):
    """Dispatches on the game in the observation's state: split, price, pie or auction.

    In the auction every bot bids (or stays on the clock up to) ``auction_limit``: the value
    itself unless a subclass shades it; talk turns pass."""

    kind = "negotiation"
    margin = 1.0

    def __init__(self, name: str | None = None, slip: float = 0.0, **params: Any) -> None:
        super().__init__(name, **params)
        self.slips = Slip(slip, RandomLegalBot, name)
        self.rng = random.Random(0)
        self.first_turn_done = False

    def reset(self, context: MatchContext) -> None:
        super().reset(context)
        self.slips.reset(context)
        self.rng = random.Random(derive_seed(context.seed, self.kind))
        self.first_turn_done = False

    async def act(self, observation: Observation, decision: Decision) -> Action | str:
        return self.choose(observation, decision)

    def choose(self, obs: Observation, decision: Decision) -> Action:
        st = obs.state
        if self.slips.now(decision):
            bot = self.slips.bot
            assert isinstance(bot, NegotiationBot)
            out = bot.choose(obs, decision)
        elif "counts" in st:
            out = self.split(obs, decision)
        elif st.get("mode") == "pie":
            out = self.pie(obs, decision)
        elif st.get("mode") == "auction":
            out = self.auction(obs, decision)
        else:
            out = self.price(obs, decision)
        if decision.kind in ("negotiate", "propose_allocation", "talk", "bid"):
            self.first_turn_done = True
        return out

    @property
    def rules(self) -> dict[str, Any]:
        return self.context.rules if self.context else {}

    # -- hooks -------------------------------------------------------------------------
    @abstractmethod
    def split(self, obs: Observation, d: Decision) -> Action:
        """An answer in the item-split game."""

    @abstractmethod
    def price(self, obs: Observation, d: Decision) -> Action:
        """An answer in price bargaining."""

    @abstractmethod
    def pie(self, obs: Observation, d: Decision) -> Action:
        """An answer in pie division."""

    def auction_limit(self, value: float, state: dict[str, Any]) -> float:
        """The bid (sealed) or drop-out price (clock); truthful by default."""
        return value

    def auction(self, obs: Observation, d: Decision) -> Action:
        if d.kind == "talk":
            return Action(choices=("pass",))
        st = obs.state
        value = tx.own_number(obs.private, st["seat"], "value")
        return Action(choices=(tx.auction_answer(st, d.kind, self.auction_limit(value, st)),))

    # -- shared pieces -----------------------------------------------------------------
    def split_common(self, obs: Observation, d: Decision, keep: tuple[int, ...]) -> Action | None:
        """Selection protocol: end the dialogue at once, then select ``keep``."""
        if d.kind == "dialogue":
            return Action(choices=("end_dialogue",), text="Let us each make our selection.")
        if d.kind == "select":
            return Action(choices=("keep:" + "-".join(map(str, keep)),))
        return None

    @staticmethod
    def propose(keep: tuple[int, ...], items: list[str]) -> Action:
        desc = ", ".join(f"{k} {i}" for k, i in zip(keep, items, strict=True))
        return Action(
            choices=("propose:" + "-".join(map(str, keep)),), text=f"I suggest I keep {desc}."
        )

    @staticmethod
    def allocate(alloc: list[int], msg: str = "Here is my proposal.") -> Action:
        return Action(text="allocate: " + ", ".join(map(str, alloc)) + "\n" + msg)


class RandomLegalBot(NegotiationBot):
    """§7.1: walk away with ``p_walk``; otherwise a uniform legal action type and arguments."""

    kind = "random"

    def __init__(self, name: str | None = None, p_walk: float = 0.02, **params: Any) -> None:
        super().__init__(name, p_walk=p_walk, **params)
        self.p_walk = p_walk

    def _types(self, d: Decision, offer_prefix: str) -> list[str]:
        ids = d.option_ids
        types: list[str] = [t for t in ("accept", "reject") if t in ids]
        if any(i.startswith(offer_prefix) for i in ids):
            types.append("offer")
        if d.free_text and self.rules.get("allow_talk", True):
            types.append("talk")
        return types or ["pass"]

    def _sequential(self, d: Decision, prefix: str) -> Action:
        ids = d.option_ids
        if "walk_away" in ids and self.rng.random() < self.p_walk:
            return Action(choices=("walk_away",))
        kind = self.rng.choice(self._types(d, prefix))
        if kind == "offer":
            return Action(choices=(self.rng.choice([i for i in ids if i.startswith(prefix)]),))
        if kind == "talk":
            return Action(text="Let us keep talking.")
        return Action(choices=(kind,))

    def split(self, obs: Observation, d: Decision) -> Action:
        if d.kind == "negotiate":
            return self._sequential(d, "propose:")
        if d.kind == "dialogue":
            ids = [i for i in d.option_ids if i != "pass"]
            if "walk_away" in ids and self.rng.random() >= self.p_walk:
                ids.remove("walk_away")
            return Action(choices=(self.rng.choice(ids),))
        return Action(choices=(self.rng.choice(d.option_ids),))

    def price(self, obs: Observation, d: Decision) -> Action:
        return self._sequential(d, "offer:")

    def pie(self, obs: Observation, d: Decision) -> Action:
        st = obs.state
        if d.kind == "propose_allocation":
            n, total = st["n_parties"], st["pie"]
            cuts = sorted(self.rng.randint(0, total) for _ in range(n - 1))
            bounds = [0, *cuts, total]
            return self.allocate([bounds[i + 1] - bounds[i] for i in range(n)])
        if d.kind == "discuss":
            if self.rng.random() < 0.5:
                return Action(choices=("pass",))
            return Action(text="I am thinking about it.")
        return Action(choices=(self.rng.choice(("accept", "reject")),))

    def auction(self, obs: Observation, d: Decision) -> Action:
        if d.kind == "talk":
            if self.rng.random() < 0.5 or not self.rules.get("allow_talk", True):
                return Action(choices=("pass",))
            return Action(text="Good luck, everyone.")
        return Action(choices=(self.rng.choice(d.option_ids),))


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
