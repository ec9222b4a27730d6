"""Property tests: any legal play keeps utilities bounded, items conserved, deals feasible."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.negotiation.split_rules import utility
from tests.games.negotiation.helpers import (
    auction_engine,
    god,
    pie_engine,
    price_engine,
    split_engine,
)


def _play(e, picks: list[int]) -> None:  # type: ignore[no-untyped-def]
    """Apply legal option indices (and talk for odd picks) until the game ends."""
    i = 0
    while not e.is_over():
        seat = e.pending()[0]
        d = e.decision(seat)
        k = picks[i % len(picks)] if picks else 0
        i += 1
        if d.kind == "propose_allocation":
            n, pie = e.rules.n_parties, e.rules.pie
            shares = [(k * (s + 1)) % (pie // n + 1) for s in range(n - 1)]
            e.apply(seat, "allocate: " + ", ".join(map(str, [*shares, pie - sum(shares)])))
        elif d.free_text and k % 7 == 0 and e.rules.allow_talk:
            e.apply(seat, f"message {k}")
        else:
            e.apply(seat, k % len(d.options))


picks = st.lists(st.integers(0, 10_000), min_size=1, max_size=40)


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32), picks=picks, selection=st.booleans(), batna=st.booleans())
def test_split_utilities_bounded_and_deals_feasible(
    seed: int, picks: list[int], selection: bool, batna: bool
) -> None:
    e = split_engine(
        seed,
        protocol="selection" if selection else "proposals",
        no_deal_payoff="private_batna" if batna else "zero",
    )
    _play(e, picks)
    res = god(e, "result")
    out = e.outcome()
    v_total = e.rules.value_total
    for s in (0, 1):
        assert 0 <= out.rewards[s] <= v_total
    if out.label == "agreement":
        xa, xb = res["allocation"]
        assert all(
            a >= 0 and b >= 0 and a + b == c for a, b, c in zip(xa, xb, e.sc.counts, strict=True)
        )
        assert out.rewards[0] == utility(e.sc.values[0], tuple(xa))
        assert out.rewards[1] == utility(e.sc.values[1], tuple(xb))
    else:
        assert out.rewards == {0: e.sc.batna[0], 1: e.sc.batna[1]}
    assert e.turn <= e.rules.max_turns + 1


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32), picks=picks, delta=st.sampled_from([1.0, 0.9, 0.5]))
def test_price_deals_lie_on_the_grid_and_payoffs_are_bounded(
    seed: int, picks: list[int], delta: float
) -> None:
    e = price_engine(seed, discount=delta)
    _play(e, picks)
    out = e.outcome()
    res = god(e, "result")
    if out.label == "agreement":
        p = res["price"]
        assert 0 <= p <= 200
        f = delta ** (res["round"] - 1)
        assert out.rewards[0] == pytest.approx((p - e.sc.r_s) * f)
        assert out.rewards[1] == pytest.approx((e.sc.r_b - p) * f)
        # floats: (p - r_s)·f + (r_b - p)·f equals zopa·f only up to rounding
        assert out.rewards[0] + out.rewards[1] == pytest.approx(e.sc.zopa * f)
    else:
        assert out.rewards == {0: 0.0, 1: 0.0}


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32), picks=picks, n=st.integers(3, 6))
def test_pie_shares_sum_to_the_pie(seed: int, picks: list[int], n: int) -> None:
    e = pie_engine(seed, n_parties=n, quota="majority")
    _play(e, picks)
    out = e.outcome()
    if out.label == "agreement":
        alloc = god(e, "result")["allocation"]
        assert sum(alloc) == e.rules.pie and min(alloc) >= 0
        assert sum(out.rewards.values()) <= e.rules.pie
    else:
        assert out.rewards == {s: float(o) for s, o in enumerate(e.sc.outside)}


@settings(max_examples=120, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    picks=picks,
    fmt=st.sampled_from(["sealed_second", "sealed_first", "ascending"]),
    n=st.integers(2, 8),
    reserve=st.integers(0, 100),
    increment=st.integers(1, 30),
)
def test_auction_price_and_payoffs_follow_the_format(
    seed: int, picks: list[int], fmt: str, n: int, reserve: int, increment: int
) -> None:
    e = auction_engine(
        seed, format=fmt, n_bidders=n, reserve_price=reserve, increment=increment,
        talk_each_tick=seed % 2 == 0,
    )  # fmt: skip
    _play(e, picks)
    out, res = e.outcome(), god(e, "result")
    v, w, p = e.sc.values, res["winner"], res["price"]
    if out.label == "no_sale":
        assert w is None and out.rewards == {s: 0.0 for s in range(n)}
        return
    assert out.rewards == {s: (v[s] - p if s == w else 0.0) for s in range(n)}
    assert reserve <= p <= 100 and sum(out.rewards.values()) <= max(v) - reserve
    if fmt == "ascending":
        assert (p - reserve) % increment == 0 and res["ticks"] >= 1
        return
    bids = {int(s): b for s, b in res["bids"].items()}
    assert bids[w] == max(b for b in bids.values() if b is not None) and bids[w] >= reserve
    others = [b for s, b in bids.items() if s != w and b is not None]
    assert p == (bids[w] if fmt == "sealed_first" else max([reserve, *others]))
