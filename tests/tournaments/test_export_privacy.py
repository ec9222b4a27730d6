"""A seat's rows hold nothing only other seats saw: fuzzed over Werewolf and Avalon seeds.

The secrets of a seat are gathered independently of the export: every line another seat was
shown (the runner's own rendering, read by the witnesses) that this seat was never shown,
and every text of an event that was not delivered to it (team channels, night results,
god-only records). None may appear anywhere in the seat's rows; every fact a row lists is
one the seat was allowed to know at that point of the match.
"""

from __future__ import annotations

import pytest

from arena.facts import Knowledge
from tests.tournaments.exported import Played, play
from tournaments.export import RowFilter, match_rows

CASES = [
    ("werewolf", {"preset": "classic8"}, ["werewolf.rule", "random"]),
    ("werewolf", {"n_players": 7, "roles": ["werewolf", "werewolf", "seer", "doctor",
                                             "villager", "villager", "villager"]},
     ["random"]),
    ("avalon", {"n_players": 5}, ["avalon.rule", "avalon.random"]),
    ("avalon", {"n_players": 7, "role_preset": "percival_morgana"}, ["avalon.rule"]),
]  # fmt: skip
SEEDS = range(6)
MIN_LEN = 12  # shorter lines ("Night 1 falls.") are no one's secret


def lines_in(value: object) -> set[str]:
    """Every line of every string anywhere in ``value`` (rows are line-structured text:
    comparing whole lines keeps "Choose one of: a" from matching "Choose one of: a, b")."""
    if isinstance(value, str):
        return set(value.splitlines())
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        return set().union(*(lines_in(v) for v in value)) if value else set()
    return set()


def secrets_of(played: Played, seat: int) -> set[str]:
    mine = {line for text in played.witnesses[seat].texts for line in text.splitlines()}
    others = {
        line
        for s, w in enumerate(played.witnesses)
        if s != seat
        for text in w.texts
        for line in text.splitlines()
    }
    hidden = {e.text for e in played.events if e.text and not e.delivered_to(seat)}
    return {x for x in (others - mine) | hidden if len(x) >= MIN_LEN and x not in mine}


@pytest.mark.parametrize(("game", "rules", "kinds"), CASES, ids=lambda v: str(v)[:24])
def test_a_seats_rows_hold_no_other_seats_private_facts(
    game: str, rules: dict[str, object], kinds: list[str]
) -> None:
    checked = 0
    for seed in SEEDS:
        played = play(game, rules, seed, kinds, noise=0.1)
        knowledge = Knowledge(played.events)
        for seat in range(len(played.witnesses)):
            rows = list(match_rows(played.events, played.result, RowFilter(seat=seat)))
            assert {r["seat"] for r in rows} <= {seat}
            leaked = sorted(secrets_of(played, seat) & lines_in(rows))
            assert not leaked, f"seed {seed} seat {seat} holds {leaked[:3]}"
            for row in rows:
                allowed = {
                    (f["owner"], f["kind"], f["key"]) for f in knowledge.known_by(seat, row["step"])
                }
                listed = {(f["owner"], f["kind"], f["key"]) for f in row["known_facts"]}
                assert listed == allowed
                assert not {"seed", "ground_truth", "spectator_view"} & set(row)
            checked += bool(rows)
    assert checked >= len(SEEDS) * 5  # the seats with decisions were all checked


def test_the_secrets_are_real_so_the_check_can_fail() -> None:
    played = play("werewolf", {"preset": "classic8"}, 0, ["werewolf.rule"], 0.0)
    god = lines_in(list(match_rows(played.events, played.result, god=True)))
    for seat in range(len(played.witnesses)):
        assert secrets_of(played, seat) & god  # the spectator's view holds them
