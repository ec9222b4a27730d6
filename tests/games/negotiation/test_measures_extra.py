"""§8.5 per-player, §8.9 process and §8.10 pie/auction measures against hand-computed values,
plus the auction bots' spec behaviour (truthful, shader) read through those measures."""

from __future__ import annotations

import pytest

from arena.events import GameEvent
from games.negotiation import auction, pie, price
from games.negotiation.auction_rules import AuctionScenario
from games.negotiation.bots import BOTS_BARGAINING
from games.negotiation.measures import aggregate, match_measures, per_agent
from games.negotiation.measures_extra import gini
from games.negotiation.pie_rules import PieScenario
from games.negotiation.price_rules import PriceScenario
from tests.games.negotiation.helpers import auction_engine, pie_engine, price_engine
from tests.games.played import play_engine


def _fix(monkeypatch: pytest.MonkeyPatch, module: object, fn: str, scenario: object) -> None:
    monkeypatch.setattr(module, fn, lambda rng, rules: scenario)


def test_gini_by_hand() -> None:
    assert gini([30, 40, 30]) == pytest.approx(40 / 600)
    assert gini([100, 0, 0, 0]) == pytest.approx(0.75)
    assert gini([25, 25]) == 0.0
    assert gini([0, 0]) is None and gini([5, -1]) is None


def test_auction_measures_by_hand(monkeypatch: pytest.MonkeyPatch) -> None:
    _fix(monkeypatch, auction, "sample_auction", AuctionScenario(values=(80, 50, 20)))
    e = auction_engine(0, reserve_price=10, pre_bid_talk_rounds=0)
    for seat, b in enumerate(["bid:80", "bid:30", "no_bid"]):
        e.apply(seat, b)
    m = match_measures(e.log, ["t", "x", "y"])
    assert (m.game, m.agreed, m.winner, m.revenue) == ("auction", True, 0, 30.0)
    assert m.utilities == [50.0, 0.0, 0.0] and m.allocative_efficiency == 1.0
    assert m.bid_shading == [0.0, pytest.approx(0.4), None]
    assert m.truthful_bid == [True, False, None]
    assert m.collusion is True  # sold at 30, below the second-highest value 50
    assert m.norm == [pytest.approx(50 / 70), 0.0, 0.0]
    assert m.joint_efficiency == pytest.approx(50 / 70)
    assert m.individually_rational is True and m.nash_efficiency is None


def test_auction_efficiency_zero_when_unsold_and_missing_below_reserve(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _fix(monkeypatch, auction, "sample_auction", AuctionScenario(values=(60, 30)))
    e = auction_engine(0, n_bidders=2, reserve_price=40, format="sealed_first",
                       pre_bid_talk_rounds=0)  # fmt: skip
    e.apply(0, "bid:20")
    e.apply(1, "bid:35")
    m = match_measures(e.log)
    assert (m.agreed, m.allocative_efficiency, m.revenue) == (False, 0.0, 0.0)
    assert m.truthful_bid is None and m.collusion is None  # second-price measures only
    assert m.bid_shading == [pytest.approx(40 / 60), pytest.approx(-5 / 30)]  # 35 > 30: overbid
    _fix(monkeypatch, auction, "sample_auction", AuctionScenario(values=(30, 20)))
    low = auction_engine(0, n_bidders=2, reserve_price=40, pre_bid_talk_rounds=0)
    low.apply(0, "no_bid")
    low.apply(1, "no_bid")
    assert match_measures(low.log).allocative_efficiency is None


def test_pie_measures_and_irrational_votes_by_hand(monkeypatch: pytest.MonkeyPatch) -> None:
    _fix(monkeypatch, pie, "sample_pie", PieScenario(outside=(25, 25, 25), first_proposer=1))
    e = pie_engine(0)
    a, b, c = 1, 2, 0  # round-1 proposer, then the next seats
    alloc = {a: 60, b: 20, c: 20}
    e.apply(a, "allocate: " + ", ".join(str(alloc[s]) for s in range(3)) + "\nDeal?")
    e.apply(b, "pass")
    e.apply(c, "No way.")
    e.apply(b, "accept")  # 20 < 25: an irrational accept vote
    e.apply(c, "reject")
    alloc = {a: 30, b: 40, c: 30}
    e.apply(b, "allocate: " + ", ".join(str(alloc[s]) for s in range(3)))
    e.apply(c, "pass")
    e.apply(a, "pass")
    e.apply(a, "accept")
    e.apply(c, "accept")
    m = match_measures(e.log)
    assert m.agreed and m.agreement_round == 2 and m.min_share == 30.0
    assert m.proposer_premium == pytest.approx(((60 - 100 / 3) + (40 - 100 / 3)) / 2)
    assert m.agreed_proposer_premium == pytest.approx(40 - 100 / 3)
    assert m.gini == pytest.approx(40 / 600)
    assert m.proposals == [0, 1, 1]
    accepts = {a: 1, b: 1, c: 1}
    assert m.accepts == [accepts[s] for s in range(3)]
    assert m.irrational_accepts == [1 if s == b else 0 for s in range(3)]
    assert m.messages == [1 if s in (a, c) else 0 for s in range(3)]
    assert m.message_chars[a] == 5 and m.message_chars[c] == 7


def test_price_process_measures_by_hand(monkeypatch: pytest.MonkeyPatch) -> None:
    _fix(monkeypatch, price, "sample_price", PriceScenario(r_s=50, r_b=100, outside=(0, 0),
                                                           first_mover=0))  # fmt: skip
    e = price_engine(0)
    for seat, answer in [(0, "offer:150"), (1, "offer:60"), (0, "offer:130"), (1, "offer:80")]:
        e.apply(seat, answer)
    e.apply(0, e.fallback(0))  # an engine fallback_pass
    e.apply(1, "offer:90")
    e.apply(0, {"choice": "offer:120", "text": "Final."})
    e.apply(1, "accept")  # 100 − 120 < 0: an irrational accept
    log = [*e.log, GameEvent(type="invalid_action", actor=1)]
    m = match_measures(log)
    assert m.proposals == [3, 3]
    assert m.concession_rate == [pytest.approx((20 + 10) / 2), pytest.approx((20 + 10) / 2)]
    assert m.accepts == [0, 1] and m.irrational_accepts == [0, 1]
    assert m.individually_rational is False
    assert m.invalid_actions == [0, 1] and m.fallbacks == [1, 0]
    assert (m.messages, m.message_chars) == ([1, 0], [6, 0])
    runner = [*log, GameEvent(type="fallback", actor=1)]
    assert match_measures(runner).fallbacks == [0, 1]  # runner events win when present
    agg = aggregate([m], n_boot=50)
    assert agg["irrational_accepts"]["mean"] == 1.0 and agg["proposals"]["mean"] == 6.0
    assert agg["turns_to_agreement"]["mean"] == 8.0


def _auction_matches(fmt: str, a: str, b: str, n_games: int = 120) -> list:  # type: ignore[type-arg]
    ms = []
    for i in range(n_games):
        e = auction_engine(i, format=fmt)
        seats = [a if (s + i) % 2 == 0 else b for s in range(3)]
        play_engine(e, [BOTS_BARGAINING[x]() for x in seats], i)
        ms.append(match_measures(e.log, seats))
    return ms


def test_truthful_bidders_in_second_price_are_efficient_and_truthful() -> None:
    ms = _auction_matches("sealed_second", "truthful", "truthful")
    for m in ms:
        assert m.allocative_efficiency == 1.0 and m.collusion is False
        assert m.truthful_bid == [True, True, True]
        vals = sorted((u for u in m.utilities), reverse=True)
        assert vals[0] >= 0  # the winner never pays more than its value
    pa = per_agent(ms, n_boot=50)["truthful"]
    assert pa["truthful_bid_rate"]["mean"] == 1.0 and pa["bid_shading"]["mean"] == 0.0


def test_shader_bids_the_first_price_equilibrium_and_beats_truthful_there() -> None:
    ms = _auction_matches("sealed_first", "shader", "truthful", 300)
    pa = per_agent(ms, n_boot=50)
    assert pa["truthful"]["score_all"]["mean"] == 0.0  # paying one's value earns nothing
    assert pa["shader"]["score_all"]["mean"] > 0.0
    assert pa["shader"]["bid_shading"]["mean"] > 1 / 3 - 0.01  # ⌊2v/3⌋ shades ≥ 1/3
    assert pa["truthful"]["bid_shading"]["mean"] == 0.0
    for i in range(40):
        e = auction_engine(i, format="sealed_first", n_bidders=2 + i % 5)
        play_engine(e, [BOTS_BARGAINING["shader"]() for _ in range(e.n_seats)], i)
        bids = next(ev.payload for ev in e.log if ev.type == "result")["bids"]
        n = e.n_seats
        assert bids == {str(s): v * (n - 1) // n for s, v in enumerate(e.sc.values)}
    agg = aggregate(ms, n_boot=50)
    assert 0.0 < agg["allocative_efficiency"]["mean"] <= 1.0


def test_ascending_truthful_winner_has_the_highest_value_and_pays_near_the_second() -> None:
    for i in range(80):
        e = auction_engine(i, format="ascending", increment=5)
        play_engine(e, [BOTS_BARGAINING["truthful"]() for _ in range(3)], i)
        v = sorted(e.sc.values, reverse=True)
        res = next(ev.payload for ev in e.log if ev.type == "result")
        if res["winner"] is None:
            assert v[0] <= 0  # nobody stays at a price of 0 unless its value is above 0
            continue
        assert e.sc.values[res["winner"]] > v[0] - 5  # exact up to one clock increment
        assert v[1] - 5 <= res["price"] <= max(v[1], 0) + 5
