"""Avalon measures (spec §9) on scripted and bot games."""

from __future__ import annotations

from typing import Any

import pytest

from arena.events import Event, GameEvent
from arena.ratings.measures import aggregate as arena_aggregate
from arena.stats import wilson
from games.avalon.bots import RandomBot, RuleBot
from games.avalon.measures import (
    agent_measures,
    aggregate,
    deduction,
    label_shares,
    match_measures,
)
from games.avalon.rules import AvalonEngine
from tests.games.avalon.helpers import run, scripted
from tests.games.played import play


def test_deduction_accuracy_and_cross_entropy_of_a_known_report() -> None:
    sides = {1: "good", 2: "evil", 3: "good", 4: "evil"}
    d = deduction({1: 0.9, 2: 0.1, 3: 0.5, 4: 0.8}, sides, exclude={2})
    assert d["da"] == pytest.approx((1 + 1 + 0.5 + 0) / 4)
    assert d["da_nt"] == pytest.approx((1 + 0.5 + 0) / 3)
    import math

    want = -(math.log(0.9) + math.log(0.9) + math.log(0.5) + math.log(0.2)) / 4
    assert d["bce"] == pytest.approx(want)


def test_a_constant_prior_reporter_scores_the_reference_point() -> None:
    sides = {1: "good", 2: "good", 3: "evil", 4: "evil"}
    assert deduction({j: 0.5 for j in sides}, sides, set())["da"] == 0.5
    assert deduction({j: 0.75 for j in sides}, sides, set())["da"] == 0.5


def test_leadership_and_influence_on_a_hammer_game() -> None:
    eng = AvalonEngine({"discussion_pre_rounds": 0, "first_leader": 0}, seed=3)
    run(eng, scripted(votes="reject"))
    mm = match_measures(eng.log)
    assert mm["label"] == "evil_win_hammer"
    for s in range(5):
        m = mm["seats"][s]
        assert m["lead"] == 0.0 and m["inf"] == 1.0 and m["pivotal"] == 0.0
        assert m["won"] == (eng.side[s] == "evil") and m["belief_missing"]
        assert m["da"] is None and m["dec"] is None  # missing reports stay missing


def test_assassin_hit_and_merlin_survival_are_recorded() -> None:
    eng = AvalonEngine({"discussion_pre_rounds": 0, "belief_reports": "none"}, seed=6)
    good = [s for s in range(5) if eng.side[s] == "good"]
    merlin = eng.role_of.index("merlin")

    def team(e: AvalonEngine) -> list[int]:
        return good[: e.state(None)["team_sizes"][e.quest - 1]]

    run(eng, scripted(team=team, target=merlin))
    # the JSONL records, read back as typed Events, give the same measures as the drafts
    mm = match_measures([Event.model_validate_json(e.model_dump_json()) for e in eng.log])
    assert mm == match_measures(eng.log)
    assert mm["seats"][eng.assassin]["assassin_hit"] == 1.0
    assert mm["seats"][merlin]["merlin_survived"] == 0.0
    assert mm["label"] == "evil_win_assassination"


def by_side(entry: str, seat: int) -> RuleBot | RandomBot:
    return RuleBot(name=entry) if entry == "rule" else RandomBot(name=entry)


def test_aggregate_reports_side_and_role_win_rates_with_intervals() -> None:
    matches: list[tuple[dict[str, Any], dict[int, str]]] = []
    logs: list[tuple[list[GameEvent], dict[int, str]]] = []
    for seed in range(40):
        match = play("avalon", {}, seed, by_side, by_team={"good": "rule", "evil": "random"})
        seats = {s: a.name for s, a in enumerate(match.agents)}
        matches.append((match_measures(match.engine.log), seats))
        logs.append((match.engine.log, seats))
    agg = aggregate(matches, seed=1)
    rule = agg["agents"]["rule"]
    assert rule["wr_evil"]["n"] == 0 and rule["wr_good"]["n"] == 120
    assert rule["wr_evil"]["ci"] is None  # no seat on that side: no interval
    lo, hi = rule["wr_good"]["ci"]
    assert lo <= rule["wr_good"]["value"] <= hi
    assert "rule/merlin" in agg["agents"] and agg["agents"]["rule/merlin"]["seats"] == 40
    da = agg["agents"]["rule"]["da"]
    assert da["n"] == 120 and da["ci"][0] <= da["mean"] <= da["ci"][1]
    assert agg["agents"]["random"]["dec"]["mean"] is not None
    assert aggregate(matches, seed=1) == agg  # the bootstrap RNG is seeded
    # the arena's hook (per agent entry, pooled over matches) gives the same figures
    hooked = arena_aggregate(
        "avalon", [agent_measures(eng_log, seats) for eng_log, seats in logs], seed=1
    )
    assert hooked["rule"]["win_rate_good"].value == pytest.approx(rule["wr_good"]["value"])
    assert "win_rate_evil" not in hooked["rule"]  # rule only ever played good
    assert hooked["rule"]["deduction_accuracy"].value == pytest.approx(da["mean"])
    assert hooked["rule"]["deduction_accuracy"].n == 40  # matches, where Avalon counts seats
    dec = agg["agents"]["random"]["dec"]
    assert hooked["random"]["deception"].value == pytest.approx(dec["mean"])
    shares = label_shares([mm["label"] for mm, _ in matches])
    assert sum(shares.values()) == pytest.approx(1.0)


def test_wilson_interval_matches_the_closed_form() -> None:
    lo, hi = wilson(38, 100)
    assert lo == pytest.approx(0.2910, abs=1e-4) and hi == pytest.approx(0.4779, abs=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)  # arena.stats: one defined behaviour without trials
