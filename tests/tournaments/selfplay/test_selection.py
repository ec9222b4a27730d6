"""Units, ids, ratings and the gate: the pure parts of self-play."""

from __future__ import annotations

import numpy as np

from tournaments.selfplay import candidate as cand
from tournaments.selfplay.gate import decide, lower_bound
from tournaments.selfplay.select import (
    Rating,
    UnitGame,
    optimistic_order,
    pareto_front,
    rank,
    ratings,
    role_ratings,
    survivors,
)
from tournaments.selfplay.units import episode_id, flipping, make_units, replicate_plan


def test_units_are_common_to_all_candidates_and_splits_are_disjoint() -> None:
    train = make_units("dealornodeal", {}, ["bot"], 7, 0, "train", 10, None)
    again = make_units("dealornodeal", {}, ["bot"], 7, 0, "train", 10, None)
    gate = make_units("dealornodeal", {}, ["bot"], 7, 0, "gate", 10, None)
    other_repeat = make_units("dealornodeal", {}, ["bot"], 7, 1, "gate", 10, None)
    assert train == again and len(train) == 20  # 10 seeds x both seats
    assert {u.seat for u in train} == {0, 1}
    assert not {u.seed for u in train} & {u.seed for u in gate}
    assert not {u.seed for u in gate} & {u.seed for u in other_repeat}
    eid = episode_id("gate", 3, "c-1", gate[4], 2)
    assert eid == episode_id("gate", 3, "c-1", gate[4], 2) == "gate-g003-c-1-g0002-s0-bot-x2"


def test_candidate_ids_are_contexts_and_entries_read_the_pinned_version() -> None:
    a = cand.make(
        style="s",
        extra_instructions=None,
        bank="/b.sqlite",
        namespace="{game}/{role}",
        version=4,
        insights=("i2", "i1"),
        active=["i1", "i2", "i3"],
    )
    b = cand.make(
        style="s",
        extra_instructions=None,
        bank="/b.sqlite",
        namespace="{game}/{role}",
        version=4,
        insights=("i1", "i2"),
        active=["i1", "i2", "i3"],
        operator="copy",
        parents=("x",),
        generation=3,
    )
    assert a.id == b.id and a.insights == ("i1", "i2") and a.exclude == ("i3",)
    entry = b.agent_entry(
        __import__("tournaments.selfplay.config", fromlist=["EntrySpec"]).EntrySpec(
            kind="llm", params={"backend": {"model": "scripted"}}
        )
    )
    assert entry["params"]["memory"] == {
        "bank": "/b.sqlite",
        "namespace": "{game}/{role}",
        "version": 4,
        "select": "all",
        "k": None,
        "exclude": ["i3"],
    }
    assert entry["params"]["style"] == "s" and entry["name"] == a.id


def _unit(i: int, scores: dict[str, float], role: str = "*", gen: int = 0) -> UnitGame:
    return UnitGame(gen, f"s{i:04d}-{role}", 0, "g", role, dict(scores))


def test_one_lucky_win_never_outranks_thirty_games_at_equal_mu() -> None:
    table = {"lucky": Rating(30.0, 7.0, 1), "steady": Rating(30.0, 1.5, 30)}
    assert rank(["lucky", "steady"], table, k=2.0) == ["steady", "lucky"]
    # and from real fits: one lucky unit against 30 units at a 50 % rate (an anchor that
    # scores 0.5 everywhere links them)
    units = [_unit(0, {"anchor": 0.5, "lucky": 1.0})]
    units += [_unit(1 + i, {"anchor": 0.5, "steady": float(i % 2)}) for i in range(30)]
    table = ratings(units)
    assert table["lucky"].games == 1 and table["steady"].games == 30
    assert table["lucky"].mu > table["steady"].mu and table["lucky"].sigma > table["steady"].sigma
    assert rank(["lucky", "steady"], table, 3.0)[0] == "steady"


def test_on_the_same_units_the_higher_mean_score_ranks_first_whatever_the_per_unit_wins() -> None:
    # "big" scores 10 once and 0 three times (mean 2.5), "small" 1 every time (mean 1.0): small
    # is ahead on three units of four, big scores more. The metric is the score: big first.
    units = [_unit(i, {"big": b, "small": 1.0, "none": 0.0}) for i, b in enumerate([10, 0, 0, 0])]
    table = ratings(units)
    assert (table["big"].mu, table["small"].mu, table["none"].mu) == (2.5, 1.0, 0.0)
    assert table["big"].sigma == table["small"].sigma == table["none"].sigma > 0
    for k in (0.0, 2.0, 3.0):
        assert rank(list(table), table, k) == ["big", "small", "none"]
    # errored games (NaN) are left out, replicates are averaged into their unit
    units.append(_unit(9, {"big": float("nan"), "small": 1.0, "none": 0.0}))
    rep = UnitGame(0, units[0].unit, 1, "g", "*", {"big": 0.0, "small": 1.0, "none": 0.0})
    table = ratings([*units, rep])
    assert table["big"].games == 4 and table["small"].games == 5
    assert table["big"].mu == 1.25  # unit 0's score is the mean of 10 and 0


def test_a_survivor_is_not_blamed_for_a_stingy_generation() -> None:
    # generation 0's deals pay twice what generation 1's pay; "old" played both, "new" only
    # the stingy one, where it scored as much as "old": they rate equal (the unit effects)
    units = [_unit(i, {"old": 6.0, "gone": 2.0}, gen=0) for i in range(4)]
    units += [_unit(i, {"old": 3.0, "new": 3.0}, gen=1) for i in range(4)]
    table = ratings(units)
    assert table["old"].mu == table["new"].mu and table["old"].sigma <= table["new"].sigma
    assert table["gone"].mu < table["old"].mu
    assert ratings([]) == {} and rank(["x", "old"], table, 2.0) == ["old", "x"]  # unrated last


def test_gate_promotes_only_on_a_positive_lower_bound() -> None:
    rng = np.random.default_rng(0)
    same = decide("c", "i", [1.0, 0.0] * 20, [1.0, 0.0] * 20, 0.05, rng)
    assert same.lower == 0.0 and not same.promoted  # no difference: never promoted
    better = decide("c", "i", [1.0] * 30 + [0.0] * 10, [0.0] * 30 + [0.0] * 10, 0.05, rng)
    assert better.promoted and 0 < better.lower < better.mean_delta
    noisy = decide("c", "i", [1.0, 0.0] * 5, [0.0, 1.0] * 4 + [0.0, 0.0], 0.05, rng)
    assert noisy.mean_delta > 0 and not noisy.promoted
    assert lower_bound([0.5], 0.05, rng) == float("-inf")  # one unit: nothing is known


def test_the_pareto_front_keeps_a_specialist_that_mu_minus_k_sigma_drops() -> None:
    rates = {  # win rate per role over 20 units each
        "c-inc": {"buyer": 0.5, "seller": 0.5},
        "c-all": {"buyer": 0.8, "seller": 0.8},
        "c-mid": {"buyer": 0.65, "seller": 0.65},
        "c-spec": {"buyer": 1.0, "seller": 0.2},  # the buyer specialist: 60 % overall
        "c-weak": {"buyer": 0.4, "seller": 0.4},
    }
    results = []
    for i in range(20):  # every candidate on every unit, wins spread evenly
        for role in ("buyer", "seller"):
            won = {c: float(int((i + 1) * p[role]) > int(i * p[role])) for c, p in rates.items()}
            results.append(_unit(i, won, role))
    table = ratings(results)
    order = rank(rates, table, k=2.0)
    assert order[:2] == ["c-all", "c-mid"] and order.index("c-spec") > 1
    plain = survivors("c-inc", order, elites=2, population=5)
    assert plain == ["c-inc", "c-all", "c-mid"]  # mu - k sigma alone drops the specialist
    tables = role_ratings(results)
    assert sorted(tables) == [("g", "buyer"), ("g", "seller")]
    front = pareto_front(rates, tables, k=2.0)
    assert front == ["c-all", "c-spec"]  # c-all dominates the others
    kept = survivors("c-inc", order, elites=2, population=5, front=front)
    assert kept == ["c-inc", "c-all", "c-mid", "c-spec"]
    # survivors never take the last place: a child still needs one
    assert len(survivors("c-inc", order, elites=2, population=4, front=front)) == 3


def test_flipped_units_are_those_whose_outcomes_differ_and_get_bounded_replicates() -> None:
    units = make_units("dealornodeal", {}, ["bot"], 7, 0, "select", 4, [0])
    a, b, c, d = (u.key for u in units)
    scores = [(a, 1.0), (a, 1.0), (b, 1.0), (b, 0.0), (c, 0.0), (c, float("nan")), (d, 0.0)]
    scores += [(d, 1.0), (c, 0.0)]  # a replicate's outcome counts like another candidate's
    assert flipping(scores) == [b, d]
    plan = replicate_plan(units, [d, b], replicates=2, max_units=3)
    assert [(u.key, r) for u, r in plan] == [(b, 1), (d, 1), (b, 2)]  # replicate 1 first
    assert replicate_plan(units, [], 2, 10) == []


def test_exploration_draws_parents_by_the_metric_too() -> None:
    units = [_unit(i, {"a": 3.0, "b": 1.0, "c": 2.0}) for i in range(4)]
    units += [_unit(9, {"a": 0.0, "b": 5.0, "c": 0.0})]  # b's lucky unit
    table = ratings(units)
    assert optimistic_order(["a", "b", "c", "x"], table, 1.0) == ["a", "b", "c", "x"]
