"""Seasons: results pool only when their conditions agree."""

from __future__ import annotations

from typing import Any

from arena.ratings.seasons import UNKNOWN, differences, seasons
from arena.results import MatchResult


def conditions(shared: str = "s1", **entries: str) -> dict[str, Any]:
    return {
        "version": 1, "game": "g", "rules_version": 1, "shared": shared,
        "entries": entries, "entry": {e: {"kind": "llm", "prompt": {"hash": h}} for e, h in entries.items()},
    }  # fmt: skip


def result(i: int, cond: dict[str, Any] | None) -> MatchResult:
    return MatchResult(match_id=f"m{i}", game="g", seed=i, status="finished", outcome="x",
                       conditions=cond)  # fmt: skip


def test_matches_agreeing_on_every_shared_entry_pool_into_one_season() -> None:
    found = seasons([result(0, conditions(a="1", b="2")), result(1, conditions(a="1", c="3"))])
    assert len(found) == 1 and len(found[0].results) == 2


def test_an_entry_with_two_fingerprints_splits_the_board_and_says_what_differs() -> None:
    found = seasons([result(0, conditions(a="1", b="2")), result(1, conditions(a="9", b="2")),
                     result(2, conditions(a="1", b="2"))])  # fmt: skip
    assert [len(s.results) for s in found] == [2, 1]
    assert differences(found[0], found[1]) == ["entry.a.prompt.hash: 1 -> 9"]


def test_other_shared_conditions_split_and_old_records_are_a_season_of_their_own() -> None:
    found = seasons([result(0, conditions("s1", a="1")), result(1, conditions("s2", a="1")),
                     result(2, None), result(3, None)])  # fmt: skip
    assert [s.shared for s in found] == ["s1", "s2", UNKNOWN]
    assert len(found[2].results) == 2
    assert differences(found[0], found[2]) == [
        "conditions unknown (recorded before runs kept them)"
    ]


def test_rating_each_game_apart_pools_games_but_not_two_rule_sets_of_one() -> None:
    a = result(0, conditions("toy-rules", x="1"))
    b = result(1, conditions("duel-rules", x="2")).model_copy(update={"game": "duel"})
    c = result(2, conditions("toy-rules-v2", x="1"))
    assert len(seasons([a, b])) == 2  # by entry: an entry in two games is not one condition
    assert [len(s.results) for s in seasons([a, b], per_game=True)] == [2]
    assert [len(s.results) for s in seasons([a, b, c], per_game=True)] == [2, 1]
