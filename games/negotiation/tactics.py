"""Pure strategy helpers of the baseline bots (negotiation.md §7): targets, offers, opponent model.

Everything here reads only what a seat may know: the public state and its own private numbers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from arena.types import PrivateFact
from games.negotiation.split_rules import Vec, complement, keep_vectors, utility

BETA = {"boulware": 0.2, "linear": 1.0, "conceder": 3.0}


def tau(state: dict[str, Any]) -> float:
    """τ_j = (j−1)/(J−1) over the bot's own turns (1 when J = 1)."""
    j, big_j = state.get("my_turn", 1), state.get("my_turns_total", 1)
    return 1.0 if big_j <= 1 else (j - 1) / (big_j - 1)


def target(u_min: float, u_max: float, t: float, beta: float) -> float:
    """target(τ) = U_min + (U_max − U_min)·(1 − τ^(1/β))."""
    return float(u_min + (u_max - u_min) * (1.0 - t ** (1.0 / beta)))


def own_fact(facts: Sequence[PrivateFact], seat: int, key: str) -> PrivateFact | None:
    for f in facts:
        if f.owner == seat and f.key == key:
            return f
    return None


def own_number(facts: Sequence[PrivateFact], seat: int, key: str, default: float = 0.0) -> float:
    f = own_fact(facts, seat, key)
    return float(f.numeric) if f is not None and f.numeric is not None else default


# -- split -------------------------------------------------------------------------------
def split_values(facts: Sequence[PrivateFact], seat: int, items: Sequence[str]) -> Vec:
    return tuple(int(own_number(facts, seat, f"val:{item}")) for item in items)


def opponent_weights(state: dict[str, Any], seat: int) -> list[float]:
    """ŵ_k ∝ 1 + Σ_proposals y_k/c_k, rescaled so that Σ_k c_k ŵ_k = V (§7.2)."""
    counts, total = state["counts"], state["value_total"]
    raw = [1.0] * len(counts)
    for p in state.get("proposals", []):
        if p["seat"] != seat:
            for k, y in enumerate(p["keep"]):
                raw[k] += y / counts[k]
    scale = total / sum(c * w for c, w in zip(counts, raw, strict=True))
    return [w * scale for w in raw]


def split_offer(counts: Vec, values: Vec, weights: list[float], tgt: float) -> Vec:
    """Among x with u(x) ≥ target, maximise the opponent's estimated utility; ties → own u, lex."""
    best: tuple[float, int, Vec] | None = None
    for x in keep_vectors(counts):
        u = utility(values, x)
        if u < tgt - 1e-9:
            continue
        est = sum((c - xk) * w for c, xk, w in zip(counts, x, weights, strict=True))
        key = (-round(est, 9), -u, x)
        if best is None or key < best:
            best = key
    if best is None:  # only when the target exceeds the maximum: keep everything valued
        return tuple(c if v > 0 else 0 for c, v in zip(counts, values, strict=True))
    return best[2]


def greedy_keep(counts: Vec, values: Vec) -> Vec:
    return tuple(c if v > 0 else 0 for c, v in zip(counts, values, strict=True))


def offered_to_me(state: dict[str, Any], seat: int) -> Vec | None:
    """What the opponent's standing offer leaves for ``seat`` (None when there is none)."""
    theirs = state["standing"].get(str(1 - seat))
    return complement(tuple(state["counts"]), tuple(theirs)) if theirs else None


# -- price -------------------------------------------------------------------------------
def snap(price: float, lo: int, hi: int, step: int, up: bool) -> int:
    """A grid price; rounded up (seller) or down (buyer) so the bound is never crossed."""
    k = (price - lo) / step
    k = math.ceil(k - 1e-9) if up else math.floor(k + 1e-9)
    return int(min(hi, max(lo, lo + k * step)))


def price_opening(state: dict[str, Any], role: str, r: float, m0: float = 0.5) -> int:
    lo, hi = state["price_range"]
    step = state["price_step"]
    if role == "seller":
        return snap(min(hi, math.ceil(r * (1 + m0))), lo, hi, step, up=True)
    return snap(max(lo, math.floor(r * (1 - m0))), lo, hi, step, up=False)


def price_target(
    state: dict[str, Any], role: str, r: float, d: float, t: float, beta: float, margin: float = 1.0
) -> int:
    """The ask (seller) or bid (buyer) of §7.2; ``d`` shifts the reservation by the outside option."""
    lo, hi = state["price_range"]
    step = state["price_step"]
    f = 1.0 - t ** (1.0 / beta)
    if role == "seller":
        base = r + d + margin
        a0 = max(price_opening(state, role, r), base)
        return snap(round(base + (a0 - base) * f), lo, hi, step, up=True)
    base = r - d - margin
    b0 = min(price_opening(state, role, r), base)
    return snap(round(base - (base - b0) * f), lo, hi, step, up=False)


def price_gain(role: str, r: float, price: float, state: dict[str, Any]) -> float:
    """Discounted utility of a deal at ``price`` now."""
    g = price - r if role == "seller" else r - price
    return float(g * state.get("discount", 1.0) ** (state.get("round", 1) - 1))


# -- pie ---------------------------------------------------------------------------------
def equal_split(n: int, pie: int, me: int) -> list[int]:
    base = pie // n
    alloc = [base] * n
    alloc[me] += pie - base * n
    return alloc


def keep_and_share(n: int, pie: int, me: int, keep: int, partners: Sequence[int]) -> list[int]:
    """Keep ``keep`` and share the rest equally among ``partners`` (remainder to me)."""
    keep = max(0, min(pie, keep))
    alloc = [0] * n
    if partners:
        each = (pie - keep) // len(partners)
        for p in partners:
            alloc[p] = each
        alloc[me] = pie - each * len(partners)
    else:
        alloc[me] = pie
    return alloc


# -- auction -----------------------------------------------------------------------------
def shaded_bid(value: float, n_bidders: int) -> int:
    """§7.4 ``shader``: ⌊v·(n−1)/n⌋ (the first-price equilibrium bid for uniform values)."""
    return math.floor(value * (n_bidders - 1) / n_bidders)


def auction_answer(state: dict[str, Any], kind: str, limit: float) -> str:
    """Bid ``limit`` (clamped to the grid) or, on the clock, stay while the price is below it."""
    if kind == "bid":
        top = state["value_range"][1]
        return f"bid:{int(min(top, max(0, math.floor(limit))))}"
    return "stay" if state["clock_price"] < limit else "drop"
