"""The base of every negotiation bot, and the random-legal bot (§7.1) its slips play.

See :mod:`games.negotiation.bots` for the bots' shared contract (observation only, own seeded
``random.Random``, ``slip``).
"""

from __future__ import annotations

import random
from abc import abstractmethod
from typing import Any

from arena.agents.base import Agent, MatchContext
from arena.agents.slip import Slip
from arena.seeding import derive_seed
from arena.types import Action, Decision, Observation
from games.negotiation import tactics as tx


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
