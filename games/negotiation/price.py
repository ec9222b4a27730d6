"""Rules engine of ``arena/PriceBargaining-v0``: the buyer–seller price bargain of
negotiation.md §3 (one phase: alternating turns of offers, accepts, rejects and talk)."""

from __future__ import annotations

import functools
import math
from typing import Any

from arena.events import Visibility
from arena.types import Action, Decision, InvalidAction, PrivateFact
from games.negotiation.common import message_of, option_list, refuse_action_like_text
from games.negotiation.phases import Phase, PhasedEngine
from games.negotiation.price_rules import (
    BUYER,
    SELLER,
    PriceRules,
    PriceScenario,
    price_utility,
    sample_price,
)

ROLE = {SELLER: "seller", BUYER: "buyer"}


@functools.cache
def _offer_ids(lo: int, hi: int, step: int) -> tuple[str, ...]:
    return tuple(f"offer:{p}" for p in range(lo, hi + 1, step))


class Negotiate(Phase["PriceBargainingEngine"]):
    """The only phase: the mover offers, accepts, rejects, walks away, passes or talks."""

    def pending(self, game: PriceBargainingEngine) -> list[int]:
        return [game.mover()]

    def decision(self, game: PriceBargainingEngine, seat: int) -> Decision:
        return game.negotiate_decision(seat)

    def apply(self, game: PriceBargainingEngine, seat: int, action: Action) -> None:
        game.negotiate(seat, action)


class PriceBargainingEngine(PhasedEngine):
    """Two players, a seller and a buyer, bargain over the price of one item."""

    game = "price_bargaining"
    Rules = PriceRules
    rules: PriceRules
    PHASES = {"negotiate": Negotiate()}

    @property
    def n_seats(self) -> int:
        return 2

    def max_options(self) -> int:
        return len(self.rules.grid()) + 4

    def roles(self) -> dict[int, str]:
        return dict(ROLE)

    def _start(self) -> None:
        r = self.rules
        self.step = "negotiate"
        sc: PriceScenario = sample_price(self.rng, r)
        self.sc = sc
        self.turn = 1
        self.standing: list[int | None] = [None, None]
        self.offers: list[dict[str, Any]] = []
        n = self._names
        lo, hi = r.price_range
        lp = f" List price: {r.list_price}." if r.list_price is not None else ""
        disc = f" Payoffs are discounted by {r.discount:g} per round." if r.discount < 1 else ""
        self.emit(
            "game_start",
            f"{n[SELLER]} (seller) and {n[BUYER]} (buyer) bargain over the price of one item. "
            f"Prices {lo}..{hi} in steps of {r.price_step}.{lp}{disc} "
            f"{n[sc.first_mover]} moves first; at most {r.max_turns} turns.",
            roles={str(SELLER): "seller", str(BUYER): "buyer"},
            price_range=[lo, hi],
            price_step=r.price_step,
            list_price=r.list_price,
            discount=r.discount,
            max_turns=r.max_turns,
            first_mover=sc.first_mover,
            names=list(n),
        )
        self.tell_privately([self.private_text(s) for s in (SELLER, BUYER)])
        self.emit(
            "scenario",
            visibility=Visibility.god(),
            reservation={str(SELLER): sc.r_s, str(BUYER): sc.r_b},
            disagreement=list(sc.outside),
            zopa=sc.zopa,
            first_mover=sc.first_mover,
        )

    def private_text(self, s: int) -> str:
        sc = self.sc
        if s == SELLER:
            text = f"Your cost (the lowest price you can accept without a loss) is {sc.r_s}."
        else:
            text = f"Your budget (the highest price you can pay without a loss) is {sc.r_b}."
        return text + f" Without a deal you get {sc.outside[s]}."

    def mover(self, turn: int | None = None) -> int:
        t = self.turn if turn is None else turn
        first = self.sc.first_mover
        return first if t % 2 == 1 else 1 - first

    def round_of(self, turn: int) -> int:
        return math.ceil(turn / 2)

    def _accept_ok(self, seat: int) -> bool:
        price = self.standing[1 - seat]
        if price is None:
            return False
        if not self.rules.block_irrational_accept:
            return True
        u = price_utility(self.sc, seat, price, self.round_of(self.turn), self.rules.discount)
        return u >= self.sc.outside[seat]

    def negotiate_decision(self, seat: int) -> Decision:
        r = self.rules
        ids: list[str] = []
        if self.standing[1 - seat] is not None:
            if self._accept_ok(seat):
                ids.append("accept")
            ids.append("reject")
        if r.allow_walk_away:
            ids.append("walk_away")
        ids.append("pass")
        ids += _offer_ids(r.price_range[0], r.price_range[1], r.price_step)
        left = r.max_turns - self.turn
        return Decision(
            kind="negotiate",
            prompt=(
                f"Turn {self.turn} of {r.max_turns} ({left} left after this one). You are the "
                f"{ROLE[seat]}. offer:P offers the price P. "
                'Answer {"choice": <id>, "text": <optional message>}'
                + ("; plain text alone is a message." if r.allow_talk else ".")
            ),
            options=list(option_list(tuple(ids))),
            free_text=True,
            max_chars=r.max_message_chars,
            silent_option="pass",
        )

    def negotiate(self, seat: int, action: Action) -> None:
        refuse_action_like_text(action, self.negotiate_decision(seat).option_ids)
        choice = action.choice
        if choice is None and not self.rules.allow_talk:
            raise InvalidAction("talk is disabled in this game: choose an action")
        msg = message_of(action)
        name, other = self._names[seat], 1 - seat
        if msg:
            self.post_message(seat, msg)
        if choice is None:
            pass
        elif choice.startswith("offer:"):
            price = int(choice.split(":", 1)[1])
            self.standing[seat], self.standing[other] = price, None
            self.offers.append({"seat": seat, "price": price, "turn": self.turn})
            self.emit(
                "offer",
                f"{name} offers a price of {price}.",
                actor=seat,
                price=price,
                turn=self.turn,
            )
        elif choice == "accept":
            accepted = self.standing[other]
            assert accepted is not None
            self.emit("accept", f"{name} accepts {accepted}.", actor=seat, turn=self.turn)
            self._end("agreement", "accepted", accepted)
            return
        elif choice == "reject":
            self.standing[other] = None
            self.emit("reject", f"{name} rejects the offer.", actor=seat, turn=self.turn)
        elif choice == "walk_away":
            self.emit("walk_away", f"{name} walks away.", actor=seat, turn=self.turn)
            self._end("walk_away", "walk_away", None, walker=seat)
            return
        else:
            kind = "fallback_pass" if action.fallback else "pass"
            self.emit(kind, f"{name} passes.", actor=seat, turn=self.turn)
        self.turn += 1
        if self.turn > self.rules.max_turns:
            self._end("no_deal", "turn_cap", None)

    def _end(self, label: str, reason: str, price: int | None, walker: int | None = None) -> None:
        sc = self.sc
        rnd = self.round_of(self.turn)
        if price is None:
            utils = [float(sc.outside[0]), float(sc.outside[1])]
            text = f"No deal ({reason.replace('_', ' ')})."
        else:
            utils = [price_utility(sc, s, price, rnd, self.rules.discount) for s in (0, 1)]
            text = f"Deal at a price of {price}."
        self.result = {
            "label": label,
            "reason": reason,
            "price": price,
            "round": rnd,
            "turn": self.turn,
            "utilities": utils,
            "walker": walker,
        }
        self.phase = "end"
        self.emit("game_end", text, label=label, reason=reason, price=price, turn=self.turn)
        for s in (0, 1):
            self.emit(
                "payoff",
                f"(private to {self._names[s]}) Your payoff: {utils[s]:g}.",
                visibility=Visibility.private(s),
                seat=s,
                utility=utils[s],
            )
        self.emit("result", visibility=Visibility.god(), **self.result)

    def scores(self) -> list[float]:
        """Rating score of §8.11: the clipped surplus share, 0 without a deal."""
        assert self.result is not None
        price, z = self.result["price"], self.sc.zopa
        if price is None:
            return [0.0, 0.0]
        gains = [price - self.sc.r_s, self.sc.r_b - price]
        if z <= 0:
            return [1.0 if g >= 0 else 0.0 for g in gains]
        return [min(1.0, max(0.0, g / z)) for g in gains]

    def private_facts(self) -> list[PrivateFact]:
        sc = self.sc
        facts = [
            PrivateFact(
                owner=SELLER, kind="reservation_price", key="reservation", value=sc.r_s,
                audience=(SELLER,), numeric=float(sc.r_s), aliases=("cost",),
            ),
            PrivateFact(
                owner=BUYER, kind="reservation_price", key="reservation", value=sc.r_b,
                audience=(BUYER,), numeric=float(sc.r_b), aliases=("budget",),
            ),
        ]  # fmt: skip
        if self.rules.outside_options == "private":
            for s in (SELLER, BUYER):
                facts.append(
                    PrivateFact(
                        owner=s, kind="outside_option", key="outside", value=sc.outside[s],
                        audience=(s,), numeric=float(sc.outside[s]),
                    )
                )  # fmt: skip
        return facts

    def state(self, seat: int | None) -> dict[str, Any]:
        r = self.rules
        st: dict[str, Any] = {
            "phase": self.phase,
            "mode": "price",
            "turn": self.turn,
            "round": self.round_of(self.turn),
            "max_turns": r.max_turns,
            "turns_left": max(0, r.max_turns - self.turn),
            "mover": self.mover() if self.result is None else None,
            "roles": {str(SELLER): "seller", str(BUYER): "buyer"},
            "price_range": list(r.price_range),
            "price_step": r.price_step,
            "list_price": r.list_price,
            "discount": r.discount,
            "outside_options": r.outside_options,
            "standing": {str(s): self.standing[s] for s in (0, 1)},
            "offers": [dict(o) for o in self.offers],
        }
        if seat is not None:
            st["seat"] = seat
            st["role"] = ROLE[seat]
            turns = [t for t in range(1, r.max_turns + 1) if self.mover(t) == seat]
            done = sum(1 for t in turns if t < self.turn)
            st["my_turn"], st["my_turns_total"] = min(done + 1, len(turns)), len(turns)
        if self.result is not None:
            st["label"], st["price"] = self.result["label"], self.result["price"]
        return st

    def status(self, seat: int) -> str:
        r = self.rules
        left = r.max_turns - self.turn
        parts = [f"Turn {self.turn} of {r.max_turns}; {left} turn(s) remain after this one."]
        if self.standing[seat] is not None:
            parts.append(f"Your standing offer: {self.standing[seat]}.")
        if self.standing[1 - seat] is not None:
            parts.append(f"{self._names[1 - seat]}'s standing offer: {self.standing[1 - seat]}.")
        return " ".join(parts)

    def briefing(self, seat: int) -> str:
        r = self.rules
        other = self._names[1 - seat]
        role = ROLE[seat]
        gain = "price minus your cost" if seat == SELLER else "your budget minus the price"
        disc = (
            f" Payoffs shrink by a factor {r.discount:g} per round (a round is two turns)."
            if r.discount < 1
            else ""
        )
        return (
            f"You are {self._names[seat]} (seat {seat}), the {role}, bargaining with {other} "
            f"over the price of one item (prices {r.price_range[0]}..{r.price_range[1]}). "
            f"{self.private_text(seat)} Your payoff from a deal is {gain}.{disc} A new "
            f"offer replaces your standing offer and clears {other}'s; an offer made on the "
            "last turn cannot be accepted."
        )
