"""Rules engine of ``arena/Auction-v0``: the single-item auction of negotiation.md §4.2.

Each bidder holds a private value v_i. ``pre_bid_talk_rounds`` public talk passes in seat order
come first (a message or ``pass``; ``to:<seat>`` with ``allow_private``). Then:

* sealed formats — every bidder submits ``bid:B`` (B in 0..max(value_range)) or ``no_bid``,
  simultaneously; each bid is visible only to its bidder. Winner: the highest bid ≥ the reserve
  (ties → engine RNG); price: the winning bid (first price) or max(second-highest bid, reserve)
  (second price). Only the winner and the price are announced; the god-only ``result`` event
  holds every bid.
* ``ascending`` — the price starts at the reserve; at each tick every active bidder chooses
  ``stay`` or ``drop`` (irreversible), simultaneously; the tick's stays and drops are public. One
  stayer wins at the current price; if everyone left drops in the same tick, one of them (engine
  RNG) wins at the previous price (no sale at the first tick); otherwise the price rises by the
  increment. Engine choice where the spec is silent: the clock stops at max(value_range) — if two
  or more still stay at the last price the increment would overshoot, one of them (engine RNG)
  wins at that price (reason ``price_cap``). With ``talk_each_tick`` a talk pass over the active
  bidders precedes every tick.

Payoff: the winner v_i − price, everyone else 0 (the disagreement point is 0).

Phases: ``talk`` (before bidding), ``bid`` (sealed), ``tick_talk`` and ``tick`` (clock).
"""

from __future__ import annotations

import functools
import re
from typing import Any

from arena.events import Visibility
from arena.types import Action, Decision, InvalidAction, PrivateFact
from games.negotiation.auction_clearing import sealed_award, tick_award, tick_text
from games.negotiation.auction_rules import AuctionRules, AuctionScenario, sample_auction
from games.negotiation.common import option_list
from games.negotiation.measures_extra import auction_norm
from games.negotiation.phases import (
    PRIVATE_HINT,
    Phase,
    PhasedEngine,
    YesNo,
    post_talk,
    talk_decision,
)

FORMAT_TEXT = {
    "sealed_second": "a sealed-bid second-price",
    "sealed_first": "a sealed-bid first-price",
    "ascending": "an ascending (clock)",
}
VALUE_CUES = ("worth to me", "value", "willing to pay", "max bid", "maximum bid", "budget")
_BID_LIKE = re.compile(r"^\s*[\"']?(bid\s*:|no[ _]bid\b|stay\b|drop\b)", re.IGNORECASE)


@functools.cache
def bid_ids(top: int) -> tuple[str, ...]:
    return (*(f"bid:{b}" for b in range(top + 1)), "no_bid")


class Talk(Phase["AuctionEngine"]):
    """A talk pass in seat order: before bidding, or over the active bidders before a tick."""

    def __init__(self, before_bidding: bool) -> None:
        self.before_bidding = before_bidding

    def pending(self, game: AuctionEngine) -> list[int]:
        return game.queue[:1]

    def decision(self, game: AuctionEngine, seat: int) -> Decision:
        r = game.rules
        when = "before bidding" if self.before_bidding else f"at a price of {game.price}"
        hint = PRIVATE_HINT if r.allow_private else ""
        prompt = f"Talk {when}: write a public message{hint}, or pass."
        return talk_decision("talk", prompt, seat, r.n_bidders, r)

    def apply(self, game: AuctionEngine, seat: int, action: Action) -> None:
        game.talk(seat, action)

    def resolve(self, game: AuctionEngine) -> None:
        if self.before_bidding:
            game.open_bidding()
        else:
            game.step = "tick"


class Bid(Phase["AuctionEngine"]):
    """Sealed bids, simultaneously; each bid is visible only to its bidder."""

    def pending(self, game: AuctionEngine) -> list[int]:
        return [s for s in range(game.rules.n_bidders) if s not in game.bids]

    def decision(self, game: AuctionEngine, seat: int) -> Decision:
        r = game.rules
        rule = "the winner pays its bid" if r.format == "sealed_first" else (
            "the winner pays the second-highest bid (at least the reserve)"
        )  # fmt: skip
        return Decision(
            kind="bid",
            prompt=f"Submit a sealed bid bid:B (B in 0..{r.value_range[1]}) or no_bid. "
            f"The highest bid of at least {r.reserve_price} wins; {rule}.",
            options=list(option_list(bid_ids(r.value_range[1]))),
            simultaneous=True,
        )

    def apply(self, game: AuctionEngine, seat: int, action: Action) -> None:
        game.record_bid(seat, action)

    def resolve(self, game: AuctionEngine) -> None:
        game.award_sealed()

    def noop(self, game: AuctionEngine, seat: int) -> Action:
        return Action(seat=seat, choices=("no_bid",), fallback="no_bid")


class Tick(YesNo["AuctionEngine"]):
    """One clock tick: every active bidder stays or drops, simultaneously."""

    kind, yes, no = "tick", "stay", "drop"

    def answers(self, game: AuctionEngine) -> dict[int, bool]:
        return game.choices

    def pending(self, game: AuctionEngine) -> list[int]:
        return [s for s in game.active if s not in game.choices]

    def prompt(self, game: AuctionEngine) -> str:
        return (
            f"Tick {game.tick}: the price is {game.price}. stay (remain in at this price) "
            "or drop (leave for good)."
        )

    def resolve(self, game: AuctionEngine) -> None:
        game.run_tick()


class AuctionEngine(PhasedEngine):
    """Bidders with private values compete for one item (sealed-bid or clock auction)."""

    game = "auction"
    Rules = AuctionRules
    rules: AuctionRules
    ROLE = "bidder"
    PHASES = {"talk": Talk(True), "bid": Bid(), "tick_talk": Talk(False), "tick": Tick()}

    @property
    def n_seats(self) -> int:
        return self.rules.n_bidders

    def max_options(self) -> int:
        return max(self.rules.value_range[1] + 2, self.n_seats + 1)

    def _start(self) -> None:
        r = self.rules
        self.sc: AuctionScenario = sample_auction(self.rng, r)
        self.bids: dict[int, int | None] = {}
        self.price = r.reserve_price
        self.tick = 1
        self.active = list(range(r.n_bidders))
        self.choices: dict[int, bool] = {}
        self.ticks: list[dict[str, Any]] = []
        self.drop_price: dict[int, int] = {}
        self.talk_round = 0
        self.queue: list[int] = []
        n = self._names
        fmt = FORMAT_TEXT[r.format]
        inc = f" The price rises by {r.increment} per tick." if r.format == "ascending" else ""
        self.emit(
            "game_start",
            f"{', '.join(n)} bid in {fmt} auction for one item. Reserve price: "
            f"{r.reserve_price}. Values lie in {r.value_range[0]}..{r.value_range[1]}.{inc} "
            f"{r.pre_bid_talk_rounds if r.allow_talk else 0} talk round(s) before bidding.",
            format=r.format,
            n_bidders=r.n_bidders,
            reserve_price=r.reserve_price,
            increment=r.increment,
            value_range=list(r.value_range),
            names=list(n),
        )
        self.tell_privately([self.private_text(s) for s in range(r.n_bidders)])
        self.emit(
            "scenario",
            visibility=Visibility.god(),
            auction_values=list(self.sc.values),
            disagreement=[0] * r.n_bidders,
            format=r.format,
            reserve_price=r.reserve_price,
            increment=r.increment,
            value_range=list(r.value_range),
        )
        if r.allow_talk and r.pre_bid_talk_rounds:
            self.talk_round = 1
            self.step = "talk"
            self.queue = list(range(r.n_bidders)) * r.pre_bid_talk_rounds
            self.phase = "talk"
        else:
            self.open_bidding()

    def private_text(self, s: int) -> str:
        return f"Your value for the item is {self.sc.values[s]}."

    # -- flow ----------------------------------------------------------------------------
    def open_bidding(self) -> None:
        r = self.rules
        if r.format == "ascending":
            self.emit("bidding_open", f"The clock starts at {self.price}.", price=self.price)
            self._start_tick()
            return
        self.step = "bid"
        self.phase = "bidding"
        self.emit(
            "bidding_open",
            "Bidding is open: every bidder now submits a sealed bid (or no bid).",
            format=r.format,
        )

    def _start_tick(self) -> None:
        r = self.rules
        self.phase = f"tick_{self.tick}"
        self.choices = {}
        if r.allow_talk and r.talk_each_tick:
            self.step = "tick_talk"
            self.queue = list(self.active)
        else:
            self.step = "tick"

    def talk(self, seat: int, action: Action) -> None:
        text = (action.text or "").strip()
        if action.choice is None and _BID_LIKE.match(text):
            raise InvalidAction(f"{text[:40]!r}: this is a talk turn (message or pass), not a bid")
        post_talk(self, seat, action)
        if action.choice == "pass" and action.fallback:
            self.emit("fallback_pass", f"{self._names[seat]} says nothing.", actor=seat)
        self.queue.pop(0)
        if self.queue and self.step == "talk":
            n, rounds = self.rules.n_bidders, self.rules.pre_bid_talk_rounds
            self.talk_round = (n * rounds - len(self.queue)) // n + 1

    def record_bid(self, seat: int, action: Action) -> None:
        choice = action.choice or "no_bid"
        bid = None if choice == "no_bid" else int(choice.split(":", 1)[1])
        self.bids[seat] = bid
        self.emit(
            "bid",
            f"(private to {self._names[seat]}) "
            + ("You submit no bid." if bid is None else f"You bid {bid}."),
            actor=seat,
            visibility=Visibility.private(seat),
            seat=seat,
            bid=bid,
            fallback=action.fallback,
        )

    def award_sealed(self) -> None:
        self._end(*sealed_award(self.bids, self.rules, self.rng))

    def run_tick(self) -> None:
        stay = [s for s in self.active if self.choices[s]]
        drop = [s for s in self.active if not self.choices[s]]
        for s in drop:
            self.drop_price[s] = self.price
        self.ticks.append({"tick": self.tick, "price": self.price, "stay": stay, "drop": drop})
        self.emit(
            "tick", tick_text(self._names, self.price, stay, drop),
            tick=self.tick, price=self.price, stay=stay, drop=drop,
        )  # fmt: skip
        award = tick_award(self.tick, self.price, stay, drop, self.rules, self.rng)
        if award is not None:
            self._end(*award)
        else:
            self.active = stay
            self.price += self.rules.increment
            self.tick += 1
            self._start_tick()

    def _end(self, winner: int | None, price: int | None, reason: str) -> None:
        n = self.rules.n_bidders
        utils = [0.0] * n
        if winner is not None and price is not None:
            utils[winner] = float(self.sc.values[winner] - price)
            text = f"{self._names[winner]} wins the item at a price of {price}."
        else:
            text = f"No sale ({reason.replace('_', ' ')})."
        ascending = self.rules.format == "ascending"
        self.result = {
            "label": "sale" if winner is not None else "no_sale",
            "reason": reason,
            "winner": winner,
            "price": price,
            "utilities": utils,
            "bids": None if ascending else {str(s): b for s, b in sorted(self.bids.items())},
            "drop_prices": {str(s): p for s, p in sorted(self.drop_price.items())}
            if ascending
            else None,
            "ticks": len(self.ticks) if ascending else None,
        }
        self.phase = "end"
        self.step = "end"
        self.emit("game_end", text, label=self.result["label"], reason=reason, winner=winner,
                  price=price)  # fmt: skip
        for s in range(n):
            self.emit(
                "payoff", f"(private to {self._names[s]}) Your payoff: {utils[s]:g}.",
                visibility=Visibility.private(s), seat=s, utility=utils[s],
            )  # fmt: skip
        self.emit("result", visibility=Visibility.god(), **self.result)

    # -- scores, facts, views ------------------------------------------------------------
    def scores(self) -> list[float]:
        """§8.11 Norm_i = u_i / (v_i − reserve), clipped to [−1, 1] (see ``auction_norm``)."""
        assert self.result is not None
        return auction_norm(self.sc.values, self.rules.reserve_price, self.result["utilities"])

    def private_facts(self) -> list[PrivateFact]:
        """v_i per seat. ``kind="private_value"`` with the §9.1 cues as aliases (the privacy
        metrics use a number fact's aliases as its cues; no item anchor is needed)."""
        return [
            PrivateFact(
                owner=s, kind="private_value", key="value", value=v, audience=(s,),
                numeric=float(v), aliases=VALUE_CUES,
            )
            for s, v in enumerate(self.sc.values)
        ]  # fmt: skip

    def state(self, seat: int | None) -> dict[str, Any]:
        r = self.rules
        st: dict[str, Any] = {
            "phase": self.phase,
            "mode": "auction",
            "format": r.format,
            "n_bidders": r.n_bidders,
            "reserve_price": r.reserve_price,
            "increment": r.increment,
            "value_range": list(r.value_range),
            "step": self.step,
            "talk_round": self.talk_round,
            "talk_rounds": r.pre_bid_talk_rounds if r.allow_talk else 0,
            "tick": self.tick,
            "clock_price": self.price if r.format == "ascending" else None,
            "active": list(self.active) if r.format == "ascending" else None,
            "ticks": [dict(t) for t in self.ticks],
        }
        if seat is not None:
            st["seat"] = seat
        if self.result is not None:
            st["label"] = self.result["label"]
            st["winner"], st["price"] = self.result["winner"], self.result["price"]
        return st

    def status(self, seat: int) -> str:
        r = self.rules
        if self.step == "talk":
            return f"Talk round {self.talk_round} of {r.pre_bid_talk_rounds}; bidding follows."
        if self.step == "bid":
            return (
                f"Sealed bidding ({r.format.replace('_', ' ')} price); reserve {r.reserve_price}."
            )
        state = "active" if seat in self.active else "out"
        return f"Tick {self.tick}; the price is {self.price}; you are {state}."

    def briefing(self, seat: int) -> str:
        r = self.rules
        return (
            f"You are {self._names[seat]} (seat {seat}), one of {r.n_bidders} bidders (seats: "
            + ", ".join(f"{s}={n}" for s, n in enumerate(self._names))
            + f") in {FORMAT_TEXT[r.format]} auction for one item; reserve price "
            f"{r.reserve_price}. {self.private_text(seat)} If you win at price p your "
            "payoff is your value minus p; otherwise 0. The other bidders' values are private."
        )
