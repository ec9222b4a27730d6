"""The per-match record of the negotiation measures and its outcome figures per game (item
split, price, pie, auction: negotiation.md §8.2–§8.8), from the god-only ``scenario`` and
``result`` payloads. :mod:`games.negotiation.measures` picks the game and adds the process
figures."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from games.negotiation.measures_extra import auction_measures, auction_norm
from games.negotiation.split_rules import complement, keep_vectors


@dataclass
class MatchMeasures:
    game: str  # "split", "price", "pie" or "auction"
    n: int
    label: str
    agreed: bool
    utilities: list[float]
    disagreement: list[float]
    norm: list[float]  # Norm_i (§8.3; price: clipped surplus share, 0 without a deal)
    pareto_optimal: bool | None = None  # agreed split/pie only
    efficient_outcome: bool | None = None  # price: deal iff a ZOPA existed
    individually_rational: bool | None = None  # agreed only
    missed_deal: bool | None = None  # defined when some deal beats no deal for everyone
    no_zopa: bool | None = None  # price: r_b < r_s
    surplus_share: list[float] | None = None  # price, agreed with Z > 0: raw (p − r_s)/Z etc.
    gain_share: list[float] | None = None  # (u_i − d_i)/Σ(u_j − d_j) when defined
    nash_welfare: float = 0.0
    nash_welfare_max: float = 0.0
    nash_efficiency: float | None = None
    root_nash_welfare: float = 0.0
    joint: float = 0.0
    joint_efficiency: float | None = None
    turns: int | None = None
    walker: int | None = None
    seats: list[str] = field(default_factory=list)  # agent entry per seat, when known
    # §8.9 process and §8.5 per player (lists indexed by seat; see measures_extra)
    proposals: list[int] = field(default_factory=list)
    concession_rate: list[float | None] = field(default_factory=list)
    messages: list[int] = field(default_factory=list)
    message_chars: list[int] = field(default_factory=list)
    invalid_actions: list[int] = field(default_factory=list)
    fallbacks: list[int] = field(default_factory=list)
    accepts: list[int] = field(default_factory=list)
    irrational_accepts: list[int] = field(default_factory=list)
    # §8.10 pie
    proposer_premium: float | None = None  # mean over the match's proposals of a_prop − P/n
    agreed_proposer_premium: float | None = None
    agreement_round: int | None = None
    min_share: float | None = None
    gini: float | None = None  # of the payoffs u_i (pie and auction)
    # §8.10 auction
    allocative_efficiency: float | None = None
    revenue: float | None = None
    bid_shading: list[float | None] | None = None  # sealed: (v_i − b_i)/v_i per seat
    truthful_bid: list[bool | None] | None = None  # second price: |b_i − v_i| ≤ 1 per seat
    collusion: bool | None = None  # second price sale below the second-highest value
    winner: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def product_gain(utils: Sequence[float], d: Sequence[float]) -> float:
    return math.prod(max(0.0, u - x) for u, x in zip(utils, d, strict=True))


def split_figures(
    sc: dict[str, Any], res: dict[str, Any], utils: list[float], d: list[float], agreed: bool
) -> MatchMeasures:
    """Item split: Pareto optimality, missed deals and the Nash and joint bests over every
    division of the pool."""
    counts = tuple(sc["counts"])
    va, vb = (tuple(v) for v in sc["values"])
    deals = []
    for x in keep_vectors(counts):
        y = complement(counts, x)
        deals.append((float(sum(a * k for a, k in zip(va, x, strict=True))),
                      float(sum(b * k for b, k in zip(vb, y, strict=True)))))  # fmt: skip
    total = float(sc["value_total"])
    norm = [(u - x) / (total - x) if total > x else 0.0 for u, x in zip(utils, d, strict=True)]
    m = MatchMeasures(game="split", n=2, label=res["label"], agreed=agreed, utilities=utils,
                      disagreement=d, norm=norm)  # fmt: skip
    if agreed:
        m.pareto_optimal = not any(
            a >= utils[0] and b >= utils[1] and (a > utils[0] or b > utils[1]) for a, b in deals
        )
    if any(a > d[0] and b > d[1] for a, b in deals):
        m.missed_deal = not agreed
    m.nash_welfare_max = max(product_gain(p, d) for p in deals)
    best_joint = max(a + b for a, b in deals)
    m.joint_efficiency = sum(utils) / best_joint if best_joint > 0 else None
    return m


def price_figures(
    sc: dict[str, Any],
    res: dict[str, Any],
    start: dict[str, Any],
    utils: list[float],
    d: list[float],
    agreed: bool,
) -> MatchMeasures:
    """Price bargaining: surplus shares of the ZOPA, and the bests over the price grid."""
    r_s, r_b = sc["reservation"]["0"], sc["reservation"]["1"]
    z = r_b - r_s
    lo, hi = start.get("price_range", (0, 200))
    step = start.get("price_step", 1)
    price = res.get("price")
    m = MatchMeasures(game="price", n=2, label=res["label"], agreed=agreed, utilities=utils,
                      disagreement=d, norm=[0.0, 0.0], no_zopa=z < 0)  # fmt: skip
    if agreed and z > 0:
        m.surplus_share = [(price - r_s) / z, (r_b - price) / z]
        m.norm = [min(1.0, max(0.0, s)) for s in m.surplus_share]
    elif agreed:
        m.norm = [1.0 if g >= 0 else 0.0 for g in (price - r_s, r_b - price)]
    m.efficient_outcome = agreed == (z > 0)
    grid = [(float(p - r_s), float(r_b - p)) for p in range(lo, hi + 1, step)]
    if any(a > d[0] and b > d[1] for a, b in grid):
        m.missed_deal = not agreed
    m.nash_welfare_max = max(product_gain(g, d) for g in grid)
    m.joint_efficiency = sum(utils) / z if z > 0 else None
    return m


def pie_figures(
    sc: dict[str, Any], res: dict[str, Any], utils: list[float], d: list[float], agreed: bool
) -> MatchMeasures:
    """Pie division: norms over the outside options, and the integer Nash best."""
    pie, n = float(sc["pie"]), len(d)
    norm = [(u - o) / (pie - o) if pie > o else 0.0 for u, o in zip(utils, d, strict=True)]
    m = MatchMeasures(game="pie", n=n, label=res["label"], agreed=agreed, utilities=utils,
                      disagreement=d, norm=norm)  # fmt: skip
    if agreed:
        m.pareto_optimal = True  # shares sum to the pie: no deal dominates another (§8.4)
    rest = int(pie - sum(d))
    if rest >= n:
        m.missed_deal = not agreed
    if rest > 0:  # NW*: everyone gets o_i, the rest split as evenly as integers allow
        extra = [rest // n + (1 if i < rest % n else 0) for i in range(n)]
        m.nash_welfare_max = float(math.prod(extra))
    m.joint_efficiency = sum(utils) / pie
    return m


def auction_figures(
    sc: dict[str, Any], res: dict[str, Any], utils: list[float], d: list[float], agreed: bool
) -> MatchMeasures:
    """Auction: the norm of :func:`auction_norm`, efficiency against the highest value."""
    values, reserve = [int(v) for v in sc["auction_values"]], int(sc["reserve_price"])
    m = MatchMeasures(game="auction", n=len(values), label=res["label"], agreed=agreed,
                      utilities=utils, disagreement=d, norm=auction_norm(values, reserve, utils))  # fmt: skip
    for key, value in auction_measures(sc, res).items():
        setattr(m, key, value)
    best = max(values) - reserve
    m.joint_efficiency = sum(utils) / best if best > 0 else None
    m.gini = None
    return m
