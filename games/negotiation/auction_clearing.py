"""Clearing rules of the single-item auction (negotiation.md §4.2): who wins and at what price.

Pure functions of the bids and the rule flags; ties are broken by the engine's own RNG, passed
in, so a seeded match draws exactly as before.
"""

from __future__ import annotations

import random

from games.negotiation.auction_rules import AuctionRules

Award = tuple[int | None, int | None, str]  # (winner, price, reason); no sale: (None, None, …)


def sealed_award(bids: dict[int, int | None], rules: AuctionRules, rng: random.Random) -> Award:
    """The highest bid at or above the reserve wins (ties: ``rng``); it pays its bid (first
    price) or the highest other bid, at least the reserve (second price)."""
    valid = {s: b for s, b in sorted(bids.items()) if b is not None and b >= rules.reserve_price}
    if not valid:
        return None, None, "no_valid_bid"
    high = max(valid.values())
    top = [s for s, b in valid.items() if b == high]
    winner = top[0] if len(top) == 1 else rng.choice(top)
    if rules.format == "sealed_first":
        price = high
    else:
        others = [b for s, b in bids.items() if s != winner and b is not None]
        price = max([rules.reserve_price, *others])
    return winner, price, "highest_bid"


def tick_award(
    tick: int, price: int, stay: list[int], drop: list[int], rules: AuctionRules, rng: random.Random
) -> Award | None:
    """The end of the clock after one tick's stays and drops, or ``None`` when it goes on."""
    if len(stay) == 1:
        return stay[0], price, "last_bidder"
    if not stay:
        if tick == 1:
            return None, None, "all_dropped"
        winner = drop[0] if len(drop) == 1 else rng.choice(drop)
        return winner, price - rules.increment, "all_dropped"
    if price + rules.increment > rules.value_range[1]:
        return rng.choice(stay), price, "price_cap"
    return None


def tick_text(names: list[str], price: int, stay: list[int], drop: list[int]) -> str:
    """The public line of one tick: who stays and who drops at this price."""
    parts = []
    if stay:
        parts.append(", ".join(names[s] for s in stay) + (" stays" if len(stay) == 1 else " stay"))
    if drop:
        parts.append(", ".join(names[s] for s in drop) + (" drops" if len(drop) == 1 else " drop"))
    return f"At a price of {price}: " + "; ".join(parts) + "."
