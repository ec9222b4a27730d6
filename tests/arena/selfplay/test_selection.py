"""Units, ids, ratings and the gate: the pure parts of self-play."""

from __future__ import annotations

import numpy as np

from arena.results import MatchResult, SeatResult
from arena.selfplay import candidate as cand
from arena.selfplay.gate import decide, lower_bound
from arena.selfplay.select import (
    Rating,
    pareto_front,
    rank,
    ratings,
    role_ratings,
    survivors,
)
from arena.selfplay.units import episode_id, flipping, make_units, replicate_plan


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
        __import__("arena.selfplay.config", fromlist=["EntrySpec"]).EntrySpec(
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


def _duel(i: int, a: str, b: str, a_wins: bool) -> MatchResult:
    ra, rb = (1.0, 0.0) if a_wins else (0.0, 1.0)
    return MatchResult(
        match_id=f"m{i}",
        game="g",
        seed=i,
        index=i,
        status="finished",
        outcome="x",
        seats=[
            SeatResult(
                seat=0,
                name="A",
                agent=a,
                team="0",
                role="*",
                reward=ra,
                result="win" if a_wins else "loss",
            ),
            SeatResult(
                seat=1,
                name="B",
                agent=b,
                team="1",
                role="*",
                reward=rb,
                result="loss" if a_wins else "win",
            ),
        ],
    )


def test_one_lucky_win_never_outranks_thirty_games_at_equal_mu() -> None:
    table = {"lucky": Rating(30.0, 7.0, 1), "steady": Rating(30.0, 1.5, 30)}
    assert rank(["lucky", "steady"], table, k=2.0) == ["steady", "lucky"]
    # and from real folds: one win against the panel vs 30 games at a 50 % rate
    results = [_duel(0, "lucky", "bot", True)]
    results += [_duel(1 + i, "steady", "bot", i % 2 == 0) for i in range(30)]
    table = ratings(results)
    assert table["lucky"].games == 1 and table["steady"].games == 30
    assert table["lucky"].sigma > table["steady"].sigma
    assert rank(["lucky", "steady"], table, 3.0)[0] == "steady"


def test_gate_promotes_only_on_a_positive_lower_bound() -> None:
    rng = np.random.default_rng(0)
    same = decide("c", "i", [1.0, 0.0] * 20, [1.0, 0.0] * 20, 0.05, rng)
    assert same.lower == 0.0 and not same.promoted  # no difference: never promoted
    better = decide("c", "i", [1.0] * 30 + [0.0] * 10, [0.0] * 30 + [0.0] * 10, 0.05, rng)
    assert better.promoted and 0 < better.lower < better.mean_delta
    noisy = decide("c", "i", [1.0, 0.0] * 5, [0.0, 1.0] * 4 + [0.0, 0.0], 0.05, rng)
    assert noisy.mean_delta > 0 and not noisy.promoted
    assert lower_bound([0.5], 0.05, rng) == float("-inf")  # one unit: nothing is known


def _as_role(result: MatchResult, role: str) -> MatchResult:
    seats = [result.seats[0].model_copy(update={"role": role}), result.seats[1]]
    return result.model_copy(update={"seats": seats, "match_id": f"{result.match_id}-{role}"})


def test_the_pareto_front_keeps_a_specialist_that_mu_minus_k_sigma_drops() -> None:
    rates = {  # win rate per role over 20 games each
        "c-inc": {"buyer": 0.5, "seller": 0.5},
        "c-all": {"buyer": 0.8, "seller": 0.8},
        "c-mid": {"buyer": 0.65, "seller": 0.65},
        "c-spec": {"buyer": 1.0, "seller": 0.2},  # the buyer specialist: 60 % overall
        "c-weak": {"buyer": 0.4, "seller": 0.4},
    }
    results = []
    for i in range(20):  # the candidates' games interleaved, wins spread evenly
        for cid, by_role in rates.items():
            for role, p in by_role.items():
                won = int((i + 1) * p) > int(i * p)
                results.append(_as_role(_duel(len(results), cid, "bot", won), role))
    table = ratings(results)
    order = rank(rates, table, k=2.0)
    assert order[:2] == ["c-all", "c-mid"] and order.index("c-spec") > 1
    plain = survivors("c-inc", order, elites=2, population=5)
    assert plain == ["c-inc", "c-all", "c-mid"]  # mu - k sigma alone drops the specialist
    tables = role_ratings(results, lambda name: name.startswith("c-"))
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
