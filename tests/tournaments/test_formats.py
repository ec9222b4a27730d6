"""Formats produce the intended seat / role balance; seeds derive from the match identity."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from arena import registry
from tournaments import config as tconfig
from tournaments import schedule

AGENTS = [
    {"name": "rule", "kind": "werewolf.rule"},
    {"name": "random", "kind": "random"},
    {"name": "rnd2", "kind": "random"},
]


def werewolf(**over: Any) -> tconfig.RunConfig:
    raw = {"game": "werewolf", "rules": {"preset": "classic8"}, "agents": AGENTS, **over}
    return tconfig.parse(raw)


def deal(cfg: tconfig.RunConfig, seed: int) -> tuple[dict[int, str], dict[int, str]]:
    engine = registry.engine_class(cfg.game)(cfg.rules, seed=seed)
    return engine.teams(), engine.roles()


def test_balanced_seating_gives_every_entry_each_role_and_seat_equally_often() -> None:
    cfg = werewolf(lineups=[{"rule": 4, "random": 4}], seating="balanced", matches=40)
    roles: Counter[tuple[str, str]] = Counter()
    seats: Counter[tuple[str, int]] = Counter()
    for spec in schedule.plan(cfg):
        assert Counter(spec.seats) == {"rule": 4, "random": 4}
        _, dealt = deal(cfg, spec.seed)
        for seat, entry in enumerate(spec.seats):
            roles[(entry, dealt[seat])] += 1
            seats[(entry, seat)] += 1
    for role, n in (("werewolf", 80), ("seer", 40), ("doctor", 40), ("villager", 160)):
        assert roles[("rule", role)] == roles[("random", role)] == n // 2, role
    assert all(17 <= seats[(e, s)] <= 23 for e in ("rule", "random") for s in range(8))


def test_head_to_head_fills_whole_sides_and_swaps_them() -> None:
    cfg = werewolf(lineups=[{"vs": ["rule", "random"]}], matches=10)
    wolves: Counter[str] = Counter()
    for spec in schedule.plan(cfg):
        teams, _ = deal(cfg, spec.seed)
        by_team = {t: {spec.seats[s] for s in teams if teams[s] == t} for t in set(teams.values())}
        assert all(len(v) == 1 for v in by_team.values()) and len(set(spec.seats)) == 2
        wolves[next(iter(by_team["wolves"]))] += 1
    assert wolves == {"rule": 5, "random": 5}


def test_head_to_head_in_a_free_for_all_alternates_seats() -> None:
    cfg = tconfig.parse(
        {
            "game": "toy",
            "rules": {"n_players": 4},
            "agents": [{"name": "a", "kind": "random"}, {"name": "b", "kind": "toy.lowest"}],
            "lineups": [{"vs": ["a", "b"]}],
            "matches": 2,
        }
    )
    assert [s.seats for s in schedule.plan(cfg)] == [["a", "b", "a", "b"], ["b", "a", "b", "a"]]


def test_pairs_play_every_pair_of_entries() -> None:
    cfg = werewolf(lineups="pairs", matches=2)
    pairs = Counter(frozenset(s.seats) for s in schedule.plan(cfg))
    assert pairs == {
        frozenset({"rule", "random"}): 2,
        frozenset({"rule", "rnd2"}): 2,
        frozenset({"random", "rnd2"}): 2,
    }


def test_gauntlet_plays_candidates_against_every_baseline_sides_swapped() -> None:
    cfg = werewolf(
        format="gauntlet",
        gauntlet={"candidates": ["rule"], "baselines": ["random", "rnd2"]},
        matches=4,
    )
    specs = schedule.plan(cfg)
    assert len(specs) == 8
    cells: Counter[tuple[str, str]] = Counter()
    for spec in specs:
        assert "rule" in spec.seats and len(set(spec.seats)) == 2
        teams, _ = deal(cfg, spec.seed)
        wolf = spec.seats[next(s for s in teams if teams[s] == "wolves")]
        other = next(e for e in spec.seats if e != "rule")
        cells[(other, "rule" if wolf == "rule" else "baseline")] += 1
    assert cells == {
        ("random", "rule"): 2,
        ("random", "baseline"): 2,
        ("rnd2", "rule"): 2,
        ("rnd2", "baseline"): 2,
    }


def test_team_lineups_seat_each_team_by_its_entry() -> None:
    cfg = werewolf(lineups=[{"village": "rule", "wolves": "random"}], matches=6)
    for spec in schedule.plan(cfg):
        teams, _ = deal(cfg, spec.seed)
        assert all(
            spec.seats[s] == ("rule" if t == "village" else "random") for s, t in teams.items()
        )


def test_repeats_have_independent_seeds_and_the_plan_is_deterministic() -> None:
    cfg = werewolf(lineups=[{"rule": 4, "random": 4}], matches=5, repeats=3, master_seed=9)
    a, b = schedule.plan(cfg), schedule.plan(cfg)
    assert a == b
    assert len({s.match_id for s in a}) == 15 and len({s.seed for s in a}) == 15
    by_repeat = [[s.seed for s in a if s.repeat == r] for r in range(3)]
    assert len({tuple(x) for x in by_repeat}) == 3
    other = schedule.plan(werewolf(lineups=[{"rule": 4, "random": 4}], matches=5, master_seed=10))
    assert not {s.seed for s in other} & {s.seed for s in a}


def test_adding_a_lineup_keeps_the_seeds_of_the_others() -> None:
    one = schedule.plan(werewolf(lineups=[{"rule": 4, "random": 4}], matches=4))
    two = schedule.plan(
        werewolf(lineups=[{"vs": ["rule", "rnd2"]}, {"rule": 4, "random": 4}], matches=4)
    )
    assert {s.seed for s in one} <= {s.seed for s in two}


@pytest.mark.parametrize(
    ("over", "needle"),
    [
        ({"lineups": [["rule"] * 7]}, "lineups.0: 7 seats given, the game has 8"),
        ({"lineups": [["rule"] * 7 + ["zed"]]}, "lineups.0: unknown agent entry(ies) ['zed']"),
        ({"lineups": [{"rule": 3, "random": 3}]}, "seat counts add up to 6, the game has 8"),
        ({"lineups": [{"rule": 9, "random": -1}]}, "lineups.0.random: seat count must be >= 1"),
        ({"lineups": [{"village": "rule", "elves": "random"}]}, "unknown team(s) ['elves']"),
        ({"lineups": [{"village": "rule"}]}, "no entry for team(s) ['wolves']"),
        ({"lineups": [{"vs": ["rule", "rule"]}]}, "cannot play itself"),
        ({"lineups": [{"vs": ["rule", "zed"]}]}, "lineups.0.vs: unknown agent entry 'zed'"),
        ({"format": "gauntlet"}, "gauntlet: format 'gauntlet' needs"),
        (
            {"format": "gauntlet", "gauntlet": {"candidates": ["zed"], "baselines": ["rule"]}},
            "gauntlet.candidates.0: unknown agent entry 'zed'",
        ),
        (
            {"format": "gauntlet", "gauntlet": {"candidates": ["rule"], "baselines": ["rule"]}},
            "both candidates and baselines",
        ),
        ({"format": "rating_driven", "rating_driven": {"budget": -5}}, "rating_driven.budget"),
        ({"format": "rating_driven", "rating_driven": {"sigma_threshold": 0}}, "sigma_threshold"),
        ({"format": "rating_driven", "rating_driven": {"pool": ["rule"]}}, "needs at least 2"),
        ({"rating_driven": {"budget": 5}}, "rating_driven: only used with format"),
        (
            {
                "format": "gauntlet",
                "lineups": "pairs",
                "gauntlet": {"candidates": ["rule"], "baselines": ["random"]},
            },
            "lineups: only used with format 'round_robin'",
        ),
        ({"ratings": {"freeze": ["zed"]}}, "ratings.freeze.0: unknown agent entry 'zed'"),
        ({"format": "knockout"}, "format: Input should be"),
    ],
)
def test_bad_format_configs_name_the_field(over: dict[str, Any], needle: str) -> None:
    with pytest.raises(tconfig.ConfigError) as info:
        werewolf(**over)
    assert any(needle in p for p in info.value.problems), info.value.problems


def test_every_problem_is_reported_at_once() -> None:
    with pytest.raises(tconfig.ConfigError) as info:
        werewolf(lineups=[["rule"] * 3, {"vs": ["zed", "rule"]}], ratings={"freeze": ["q"]})
    assert len(info.value.problems) == 3


def test_seatings_chosen_from_the_deal_are_not_public() -> None:
    balanced = schedule.plan(werewolf(lineups=[{"rule": 4, "random": 4}], seating="balanced"))
    assert all(not s.public_seating for s in balanced)
    h2h = schedule.plan(werewolf(lineups=[{"vs": ["rule", "random"]}], matches=4))
    for spec in h2h:
        teams, _ = deal(werewolf(), spec.seed)
        assert spec.by_team is not None
        assert [spec.by_team[teams[s]] for s in range(8)] == spec.seats
    rotate = schedule.plan(werewolf(lineups=[{"rule": 4, "random": 4}], seating="rotate"))
    assert all(s.public_seating and s.by_team is None for s in rotate)


async def test_the_runner_keeps_a_role_balanced_seating_out_of_public_view() -> None:
    from arena.agents import factory
    from arena.runner import MatchRunner

    cfg = werewolf(lineups=[{"rule": 4, "random": 4}], seating="balanced", matches=1)
    spec = schedule.plan(cfg)[0]

    def make(name: str, seat: int) -> Any:
        return factory.build(name, cfg.entry(name).kind, "werewolf")

    runner = MatchRunner(spec, make, [])
    await runner.run()
    start = runner.recorder.events[0]
    assert start.type == "match_start" and start.payload["seats"] == {}
    truth = next(e for e in runner.recorder.events if e.type == "ground_truth")
    assert truth.visibility.scope == "god" and truth.payload["seats"]["0"] == spec.seats[0]
