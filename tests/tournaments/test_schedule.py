"""A round robin seats every combination of its entries equally often, whatever the seating;
the plan says which pairs of entries a format leaves apart."""

from __future__ import annotations

import asyncio
from collections import Counter
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest
import yaml

from arena.errors import ConfigError
from tournaments import config as tconfig
from tournaments import schedule
from tournaments.executor import Tournament

EXAMPLES = Path(__file__).parents[2] / "tournaments" / "examples"
ROUND_ROBINS = [
    p
    for p in sorted(EXAMPLES.glob("*.yaml"))
    if yaml.safe_load(p.read_text()).get("format", "round_robin") == "round_robin"
]
SEATINGS = ["rotate", "random", "balanced"]


def toy(n_players: int, n_entries: int, **over: Any) -> tconfig.RunConfig:
    kinds = ["random", "toy.lowest"]
    raw = {
        "game": "toy",
        "rules": {"n_players": n_players},
        "agents": [{"name": f"e{i}", "kind": kinds[i % 2]} for i in range(n_entries)],
        "matches": 6,
        "master_seed": 5,
        **over,
    }
    return tconfig.parse(raw)


def pair_counts(specs: list[Any]) -> Counter[tuple[str, str]]:
    return Counter(p for s in specs for p in combinations(sorted(set(s.seats)), 2))


def test_examples_are_found() -> None:
    names = {p.stem for p in ROUND_ROBINS}
    assert {"dealornodeal_bots", "bargaining_bots", "persona_bots", "werewolf_bots"} <= names


@pytest.mark.parametrize("path", ROUND_ROBINS, ids=lambda p: p.stem)
def test_every_example_round_robin_seats_every_pair(path: Path) -> None:
    """Every pair of entries meets; without explicit lineups (or with ``pairs``) every pair,
    and every combination of as many entries as the game has seats, equally often."""
    cfg = tconfig.load(path)
    specs = schedule.plan(cfg)
    names = sorted(a.name for a in cfg.agents)
    pairs = pair_counts(specs)
    assert set(pairs) == set(combinations(names, 2)), pairs
    if isinstance(cfg.lineups, list):
        return  # explicit lineups: exactly what they name is played (demo.yaml: uneven by design)
    assert len(set(pairs.values())) == 1, pairs
    k = schedule.n_seats(cfg)
    if len(names) > k:
        tables = Counter(frozenset(s.seats) for s in specs)
        assert set(tables) == {frozenset(c) for c in combinations(names, k)}
        assert set(tables.values()) == {cfg.matches * cfg.repeats}


@pytest.mark.parametrize("seating", SEATINGS)
def test_more_entries_than_seats_play_every_pair_equally_often(seating: str) -> None:
    cfg = toy(2, 4, seating=seating, repeats=2)
    specs = schedule.plan(cfg)
    assert len(specs) == 6 * 6 * 2 == schedule.total_planned(cfg)
    assert len(specs) == tconfig.planned_matches(cfg, 2)
    assert pair_counts(specs) == dict.fromkeys(combinations([f"e{i}" for i in range(4)], 2), 12)
    assert all(len(set(s.seats)) == 2 for s in specs)
    assert len({s.seed for s in specs}) == len(specs) and specs == schedule.plan(cfg)
    assert len({s.match_id for s in specs}) == len(specs)
    if seating == "rotate":  # each of a pair sits first as often as the other
        first = Counter((s.seats[0], frozenset(s.seats)) for s in specs)
        assert set(first.values()) == {6}


@pytest.mark.parametrize("seating", SEATINGS)
def test_a_three_seat_game_plays_every_three_of_five_entries_equally_often(seating: str) -> None:
    cfg = toy(3, 5, seating=seating)
    specs = schedule.plan(cfg)
    tables = Counter(frozenset(s.seats) for s in specs)
    names = [f"e{i}" for i in range(5)]
    assert tables == {frozenset(c): 6 for c in combinations(names, 3)}
    # so every pair too: each pair is in 3 of the 10 tables
    assert set(pair_counts(specs).values()) == {18}
    if seating == "rotate":  # and each entry of a table sits in each seat equally often
        seats = Counter((e, i, frozenset(s.seats)) for s in specs for i, e in enumerate(s.seats))
        assert set(seats.values()) == {2}


def test_no_more_entries_than_seats_keeps_the_plan_it_had() -> None:
    """Every entry is at every table already: seats and seeds are those of earlier versions."""
    cfg = toy(4, 3, matches=3)
    specs = schedule.plan(cfg)
    assert [s.seats for s in specs] == [
        ["e0", "e1", "e2", "e0"],
        ["e1", "e2", "e0", "e1"],
        ["e2", "e0", "e1", "e2"],
    ]
    assert [s.seed for s in specs] == [schedule.match_seed(cfg, 0, "default", k) for k in range(3)]


def test_the_limit_on_planned_matches_counts_every_combination() -> None:
    with pytest.raises(ConfigError, match="would plan 660,000 matches"):
        toy(2, 12, matches=10_000)
    assert tconfig.planned_matches(toy(2, 12, matches=10), 2) == 660


def test_a_resumed_run_finds_every_match_of_its_plan_done(tmp_path: Path) -> None:
    cfg = toy(2, 3, matches=2, output_dir=str(tmp_path))
    first = asyncio.run(Tournament(cfg, tmp_path / "r", "r").run())
    again = Tournament(cfg, tmp_path / "r", "r")
    assert again.specs == schedule.plan(cfg, "r")
    assert [r.match_id for r in asyncio.run(again.run())] == [r.match_id for r in first]
    assert len(first) == 6 and pair_counts(again.specs) == {
        ("e0", "e1"): 2,
        ("e0", "e2"): 2,
        ("e1", "e2"): 2,
    }


def test_the_plan_says_which_pairs_a_format_leaves_apart() -> None:
    gauntlet = toy(
        2, 4, format="gauntlet", gauntlet={"candidates": ["e0"], "baselines": ["e1", "e2"]}
    )
    note = schedule.coverage_note(gauntlet, schedule.plan(gauntlet))
    assert note == (
        "coverage: 2 of 6 pairs meet; never meet: e0 vs e3, e1 vs e2, e1 vs e3, e2 vs e3"
    )
    lineups = toy(2, 3, lineups=[{"vs": ["e0", "e1"]}])
    assert schedule.coverage(lineups, schedule.plan(lineups)).never == [("e0", "e2"), ("e1", "e2")]
    full = toy(2, 4)
    assert schedule.coverage_note(full, schedule.plan(full)) == (
        "coverage: all 6 pairs meet, 6 times each"
    )
    driven = toy(2, 3, format="rating_driven")
    assert "not planned" in schedule.coverage_note(driven, schedule.plan(driven))


def test_a_lineup_with_its_own_matches_plays_that_many_and_keeps_its_seeds() -> None:
    base = toy(3, 3, lineups=[{"vs": ["e0", "e1"]}, {"e0": 1, "e1": 1, "e2": 1}], matches=2)
    own = base.model_copy(
        update={"lineups": [{"vs": ["e0", "e1"], "matches": 5}, {"e0": 1, "e1": 1, "e2": 1}]}
    )
    tconfig.check(own)
    specs = schedule.plan(own)
    assert len(specs) == schedule.total_planned(own) == tconfig.planned_matches(own) == 5 + 2
    # the first two matches of each lineup are those of the plan without its own count
    seeds = [s.seed for s in schedule.plan(base)]
    assert [s.seed for s in specs[:2]] == seeds[:2] and [s.seed for s in specs[5:]] == seeds[2:]


@pytest.mark.parametrize("count", [0, True, "3", 2.5])
def test_a_lineup_matches_that_is_not_a_count_is_refused(count: object) -> None:
    with pytest.raises(ConfigError, match=r"lineups\.0\.matches"):
        toy(3, 3, lineups=[{"vs": ["e0", "e1"], "matches": count}])
