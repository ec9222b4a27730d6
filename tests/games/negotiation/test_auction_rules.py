"""Rules of the single-item auction (negotiation.md §4.2): every format and termination path."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from arena.types import InvalidAction
from games.negotiation.auction import AuctionEngine
from games.negotiation.bargaining import BargainingEngine
from tests.games.negotiation.helpers import auction_engine, god


def _sealed(seed: int = 0, **rules: object) -> AuctionEngine:
    return auction_engine(seed, pre_bid_talk_rounds=0, **rules)


def _bid_all(e: AuctionEngine, bids: list[str]) -> None:
    for seat, b in enumerate(bids):
        assert e.pending() == list(range(seat, e.n_seats))
        e.apply(seat, b)


def test_second_price_winner_pays_the_second_highest_bid() -> None:
    e = _sealed(1)
    _bid_all(e, ["bid:30", "bid:70", "bid:50"])
    out, res = e.outcome(), god(e, "result")
    assert (res["winner"], res["price"], out.label, out.reason) == (1, 50, "sale", "highest_bid")
    assert out.rewards == {0: 0.0, 1: e.sc.values[1] - 50.0, 2: 0.0}
    assert res["bids"] == {"0": 30, "1": 70, "2": 50}


def test_first_price_winner_pays_its_own_bid() -> None:
    e = _sealed(2, format="sealed_first")
    _bid_all(e, ["bid:30", "bid:70", "no_bid"])
    assert god(e, "result")["price"] == 70
    assert e.outcome().rewards[1] == e.sc.values[1] - 70.0


def test_reserve_sets_the_floor_of_the_price_and_of_valid_bids() -> None:
    e = _sealed(3, reserve_price=40)
    _bid_all(e, ["bid:39", "bid:60", "no_bid"])  # 39 is below the reserve: ignored for winning
    assert (god(e, "result")["winner"], god(e, "result")["price"]) == (1, 40)
    lone = _sealed(3, reserve_price=40)
    _bid_all(lone, ["bid:39", "no_bid", "bid:10"])
    assert lone.outcome().label == "no_sale" and lone.outcome().reason == "no_valid_bid"
    assert lone.outcome().rewards == {0: 0.0, 1: 0.0, 2: 0.0}


def test_ties_are_broken_by_the_engine_rng_and_the_price_is_the_tied_bid() -> None:
    winners = set()
    for seed in range(40):
        e = _sealed(seed)
        _bid_all(e, ["bid:55", "bid:55", "bid:20"])
        res = god(e, "result")
        assert res["price"] == 55 and res["winner"] in (0, 1)
        winners.add(res["winner"])
        again = _sealed(seed)
        _bid_all(again, ["bid:55", "bid:55", "bid:20"])
        assert god(again, "result")["winner"] == res["winner"]  # seeded
    assert winners == {0, 1}


def test_bids_stay_private_until_only_winner_and_price_are_announced() -> None:
    e = _sealed(4)
    e.apply(0, "bid:42")
    assert any("You bid 42" in ev.text for ev in e.visible_log(0))
    assert not any("42" in ev.text for ev in e.visible_log(1) if ev.type != "private_info")
    e.apply(1, "bid:17")
    e.apply(2, "no_bid")
    public = [ev for ev in e.log if ev.visibility.scope == "public"]
    assert not any(ev.type == "bid" for ev in public)
    assert "wins the item at a price of 17" in public[-1].text


def test_bid_off_the_grid_or_text_is_refused_and_fallback_is_no_bid() -> None:
    e = _sealed(5)
    for bad in ("bid:101", "bid:-3", "50", "stay"):
        with pytest.raises(InvalidAction):
            e.apply(0, bad)
    fb = e.fallback(0, "abstain")  # the spec's no-op; random_legal would bid at random
    assert fb.choices == ("no_bid",)
    e.apply(0, fb)
    assert e.pending() == [1, 2]


def test_ascending_last_stayer_wins_at_the_current_price() -> None:
    e = auction_engine(6, format="ascending", pre_bid_talk_rounds=0, increment=5, reserve_price=10)
    _bid_all(e, ["stay", "stay", "drop"])  # tick 1 at 10
    assert e.pending() == [0, 1] and e.state(0)["clock_price"] == 15
    with pytest.raises(InvalidAction):
        e.apply(2, "stay")  # a dropped bidder is out for good
    e.apply(0, "stay")
    e.apply(1, "drop")
    res = god(e, "result")
    assert (res["winner"], res["price"], res["reason"]) == (0, 15, "last_bidder")
    assert res["drop_prices"] == {"1": 15, "2": 10} and res["ticks"] == 2
    assert e.outcome().rewards[0] == e.sc.values[0] - 15.0
    assert any(ev.type == "tick" and ev.visibility.scope == "public" for ev in e.log)


def test_ascending_all_drop_together_previous_price_or_no_sale_at_the_first_tick() -> None:
    e = auction_engine(7, format="ascending", pre_bid_talk_rounds=0, n_bidders=2)
    _bid_all(e, ["stay", "stay"])
    _bid_all(e, ["drop", "drop"])
    res = god(e, "result")
    assert res["reason"] == "all_dropped" and res["price"] == 0 and res["winner"] in (0, 1)
    first = auction_engine(7, format="ascending", pre_bid_talk_rounds=0, n_bidders=2)
    _bid_all(first, ["drop", "drop"])
    assert first.outcome().label == "no_sale"


def test_ascending_clock_stops_at_the_top_of_the_value_range() -> None:
    e = auction_engine(
        8, format="ascending", pre_bid_talk_rounds=0, n_bidders=2, value_range=(0, 12), increment=5
    )
    for _ in range(3):  # prices 0, 5, 10; 15 would overshoot 12
        _bid_all(e, ["stay", "stay"])
    res = god(e, "result")
    assert (res["reason"], res["price"]) == ("price_cap", 10) and res["winner"] in (0, 1)


def test_talk_rounds_come_first_in_seat_order_and_refuse_bids() -> None:
    e = auction_engine(9, pre_bid_talk_rounds=2, n_bidders=2, allow_private=True)
    assert e.decision(0).kind == "talk" and e.state(0)["talk_round"] == 1
    with pytest.raises(InvalidAction):
        e.apply(0, "bid: 40")
    with pytest.raises(InvalidAction):
        e.apply(0, "to:1")  # a private message needs text
    e.apply(0, "Hello all.")
    e.apply(1, {"choice": "to:0", "text": "psst"})
    assert e.state(0)["talk_round"] == 2
    e.apply(0, "pass")
    e.apply(1, e.fallback(1))
    assert e.decision(0).kind == "bid"
    msgs = [ev for ev in e.log if ev.type == "message"]
    assert [m.payload["to"] for m in msgs] == ["all", [0]]
    assert msgs[1].visibility.scope == "private"


def test_talk_each_tick_precedes_every_clock_tick_and_no_talk_when_disabled() -> None:
    e = auction_engine(10, format="ascending", pre_bid_talk_rounds=0, talk_each_tick=True)
    kinds = []
    while not e.is_over():
        seat = e.pending()[0]
        kinds.append(e.decision(seat).kind)
        e.apply(seat, "pass" if kinds[-1] == "talk" else ("stay" if seat == 0 else "drop"))
    assert kinds == ["talk"] * 3 + ["tick"] * 3
    quiet = auction_engine(10, allow_talk=False, pre_bid_talk_rounds=3)
    assert quiet.decision(0).kind == "bid"


def test_config_errors_name_the_field() -> None:
    with pytest.raises(ValidationError, match="discount"):
        AuctionEngine({"discount": 0.9})
    with pytest.raises(ValidationError, match="reserve_price"):
        AuctionEngine({"reserve_price": 101})
    with pytest.raises(ValidationError, match="n_bidders"):
        AuctionEngine({"n_bidders": 9})
    with pytest.raises(ValidationError, match="format"):
        AuctionEngine({"format": "dutch"})
    # the old id: a flag of another mode is refused by name
    with pytest.raises(ValidationError, match="n_bidders"):
        BargainingEngine({"n_bidders": 4})
    with pytest.raises(ValidationError, match="discount"):
        BargainingEngine({"mode": "auction", "discount": 0.9})
    with pytest.raises(ValidationError, match="reserve_price"):
        BargainingEngine({"mode": "auction", "reserve_price": 101})
    with pytest.raises(ValidationError, match="n_bidders"):
        BargainingEngine({"mode": "auction", "n_bidders": 9})
    with pytest.raises(ValidationError, match="format"):
        BargainingEngine({"mode": "auction", "format": "dutch"})


def test_private_values_are_numeric_facts_with_the_owner_as_only_audience() -> None:
    e = auction_engine(11, n_bidders=5, value_range=(10, 20))
    facts = e.private_facts()
    assert [(f.owner, f.key, f.audience) for f in facts] == [(s, "value", (s,)) for s in range(5)]
    assert all(10 <= f.numeric == f.value == e.sc.values[f.owner] <= 20 for f in facts)
    assert god(e, "scenario")["auction_values"] == list(e.sc.values)
    assert e.roles() == {s: "bidder" for s in range(5)}
