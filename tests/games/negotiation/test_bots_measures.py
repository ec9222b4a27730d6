"""Bots are always legal and behave per spec; measures match hand-computed values."""

from __future__ import annotations

import asyncio
import itertools

import pytest

from arena.ratings.measures import aggregate as arena_aggregate
from arena.results import MatchSpec
from arena.runner import run_match
from games.negotiation.bots import BOTS_BARGAINING, BOTS_DEALORNODEAL
from games.negotiation.measures import (
    agent_measures,
    aggregate,
    bootstrap_ci,
    match_measures,
    per_agent,
)
from tests.games.negotiation.helpers import auction_engine, pie_engine, price_engine, split_engine
from tests.games.played import play_engine

NAMES = ["random", "greedy", "boulware", "conceder", "linear", "discloser", "offer_at_reservation"]


@pytest.mark.parametrize(
    "make",
    [
        split_engine,
        lambda s: split_engine(s, protocol="selection"),
        lambda s: split_engine(s, no_deal_payoff="private_batna", item_types=("a", "b", "c", "d")),
        price_engine,
        lambda s: price_engine(
            s, discount=0.9, outside_options="private", block_irrational_accept=True
        ),
        lambda s: pie_engine(s, n_parties=3 + s % 4, quota="majority", allow_private=True),
        lambda s: auction_engine(
            s,
            n_bidders=2 + s % 5,
            format=("sealed_second", "sealed_first", "ascending")[s % 3],
            talk_each_tick=True,
            reserve_price=s % 20,
            allow_private=True,
        ),
    ],
)
def test_bots_never_make_an_invalid_move(make) -> None:  # type: ignore[no-untyped-def]
    pairs = list(itertools.product([*NAMES, "fair", "truthful", "shader"], repeat=2))
    for seed, (a, b) in enumerate(pairs * 2):
        e = make(seed)
        bots = [BOTS_BARGAINING[a if s % 2 == 0 else b]() for s in range(e.n_seats)]
        match = play_engine(e, bots, seed)  # strict: a refused answer fails, with its error
        assert [s.invalid for s in match.result.seats] == [0] * e.n_seats, (a, b, seed)
        assert e.is_over()


def test_concession_bots_never_accept_irrational_deals_and_never_walk_away() -> None:
    for seed in range(300):
        for make in (split_engine, price_engine):
            e = make(seed)
            play_engine(e, [BOTS_BARGAINING["boulware"](), BOTS_BARGAINING["conceder"]()], seed)
            m = match_measures(e.log)
            assert m.label != "walk_away"
            if m.agreed:
                assert all(u > d for u, d in zip(m.utilities, m.disagreement, strict=True))
            if make is price_engine and m.no_zopa:
                assert not m.agreed  # without a ZOPA concession bots end without a deal


def test_boulware_out_earns_conceder() -> None:
    gains = {"boulware": 0.0, "conceder": 0.0}
    for seed in range(200):
        order = ["boulware", "conceder"] if seed % 2 else ["conceder", "boulware"]
        e = split_engine(seed)
        play_engine(e, [BOTS_DEALORNODEAL[n]() for n in order], seed)
        for s, n in enumerate(order):
            gains[n] += e.outcome().rewards[s]
    assert gains["boulware"] > gains["conceder"]


def test_discloser_states_its_number_and_offer_at_reservation_does_not() -> None:
    e = price_engine(11)
    play_engine(e, [BOTS_BARGAINING["discloser"](), BOTS_BARGAINING["offer_at_reservation"]()], 11)
    msgs = [ev for ev in e.log if ev.type == "message"]
    seller_first = next(m for m in msgs if m.actor == 0).payload["message"]
    buyer_first = next(m for m in msgs if m.actor == 1).payload["message"]
    assert seller_first == f"My cost is {e.sc.r_s}."
    assert buyer_first == f"How about {e.sc.r_b}?"
    assert (
        next(ev for ev in e.log if ev.type == "offer" and ev.actor == 1).payload["price"]
        == e.sc.r_b
    )


def test_bots_play_through_the_async_match_runner() -> None:
    for game, rules, n in (
        ("dealornodeal", {}, 2),
        ("bargaining", {}, 2),
        ("bargaining", {"mode": "pie"}, 3),
        ("bargaining", {"mode": "auction"}, 3),
        ("price_bargaining", {}, 2),
        ("pie_division", {}, 3),
        ("auction", {}, 3),
    ):
        spec = MatchSpec(
            match_id=f"t-{game}",
            game=game,
            rules=rules,
            seed=5,
            seats=["boulware", "greedy", "random"][:n],
        )
        agents = [BOTS_BARGAINING[name](name) for name in spec.seats]
        result = asyncio.run(run_match(spec, agents))
        assert result.status == "finished"
        assert sum(s.invalid for s in result.seats) == 0


def test_split_measures_by_hand() -> None:
    e = split_engine(0)
    c, (va, vb) = e.sc.counts, e.sc.values
    a = e.pending()[0]
    keep = (
        tuple(ci if va[k] >= vb[k] else 0 for k, ci in enumerate(c))
        if a == 0
        else tuple(ci if vb[k] >= va[k] else 0 for k, ci in enumerate(c))
    )
    e.apply(a, "propose:" + "-".join(map(str, keep)))
    e.apply(1 - a, "accept")
    m = match_measures(e.log, ["x", "y"])
    assert m.agreed and m.pareto_optimal  # each item to a player valuing it at least as much
    assert m.nash_welfare == m.utilities[0] * m.utilities[1]
    assert m.nash_welfare_max >= m.nash_welfare and m.norm == [u / 10 for u in m.utilities]
    walked = split_engine(0)
    walked.apply(walked.pending()[0], "walk_away")
    w = match_measures(walked.log, ["x", "y"])
    assert not w.agreed and w.pareto_optimal is None and w.missed_deal is True
    assert w.nash_welfare == 0.0 and w.nash_efficiency == 0.0


def test_price_measures_surplus_share_and_efficiency() -> None:
    e = price_engine(1)
    price = e.sc.r_s + (e.sc.zopa // 4)
    e.apply(0, f"offer:{price}")
    e.apply(1, "accept")
    m = match_measures(e.log, ["s", "b"])
    z = e.sc.zopa
    assert m.surplus_share == [(price - e.sc.r_s) / z, (e.sc.r_b - price) / z]
    assert m.efficient_outcome is True and m.joint_efficiency == 1.0
    assert m.nash_welfare_max == max((p - e.sc.r_s) * (e.sc.r_b - p) for p in range(0, 201))


def test_aggregate_and_per_agent_with_seeded_cis() -> None:
    ms = []
    logs = []
    for seed in range(60):
        e = price_engine(seed)
        seats = ["boulware", "conceder"] if seed % 2 else ["conceder", "boulware"]
        play_engine(e, [BOTS_BARGAINING[n]() for n in seats], seed)
        ms.append(match_measures(e.log, seats))
        logs.append((e.log, seats))
    agg = aggregate(ms, seed=1, n_boot=300)
    assert (
        agg["agreement_rate"]["lo"] <= agg["agreement_rate"]["mean"] <= agg["agreement_rate"]["hi"]
    )
    assert agg["pareto_optimal_rate"] is None  # price reports the efficient-outcome rate instead
    pa = per_agent(ms, seed=1, n_boot=300)
    assert pa["boulware"]["surplus_share"]["mean"] > pa["conceder"]["surplus_share"]["mean"]
    assert per_agent(ms, seed=1, n_boot=300) == pa
    # the arena's hook reads the same logs: per agent entry, one value per match
    hooked = arena_aggregate("bargaining", [agent_measures(lg, dict(enumerate(st))) for lg, st in logs], seed=1)  # fmt: skip
    for agent in ("boulware", "conceder"):
        for name in ("score_all", "surplus_share", "agreement_rate", "norm", "nash_welfare"):
            assert hooked[agent][name].value == pytest.approx(pa[agent][name]["mean"]), name
            assert hooked[agent][name].n == pa[agent][name]["n"]
    assert hooked["boulware"]["agreement_rate"].method == "wilson"  # one yes/no per match
    assert hooked["boulware"]["score_all"].method == "bootstrap"
    assert bootstrap_ci([]) is None


@pytest.mark.parametrize(
    ("game", "names", "expect"),
    [
        ("dealornodeal", ["rule", "random"], "pareto_optimal_rate"),
        ("price_bargaining", ["rule", "random"], "surplus_share"),
        ("pie_division", ["rule", "fair", "random"], "gain_share"),
        ("auction", ["truthful", "random", "truthful"], "win_rate"),
        ("bargaining", ["rule", "random"], "surplus_share"),  # the old id: price by default
    ],
)
def test_every_negotiation_game_declares_its_measures_hook(
    game: str, names: list[str], expect: str
) -> None:
    """The registry finds the hook of each negotiation game; over the runner's record (typed
    Events) it gives per agent entry the figures its engine's outcome defines."""
    from arena import registry
    from arena.ratings.measures import hook
    from tests.games.played import play as play_runner

    bots = registry.bots(game)
    seen: set[str] = set()
    for seed in range(12):
        played = play_runner(game, {}, seed, [bots[n](name=n) for n in names])
        fn = hook(game)
        assert fn is not None
        figs = fn(played.events, {s.seat: s.agent for s in played.result.seats})
        assert set(figs) == set(names)
        for agent, f in figs.items():
            assert f["agreement_rate"].binary and f["agreement_rate"].den == 1.0
            assert (
                f["score_all"].num
                == pytest.approx(
                    sum(s.reward for s in played.result.seats if s.agent == agent)
                    / sum(s.agent == agent for s in played.result.seats)
                )
                or game == "auction"
            )  # the auction's result reward is its normalised score
            seen.update(f)
    assert expect in seen
