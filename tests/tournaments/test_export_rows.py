"""Rows of one match: one per applied decision, holding the exact text the seat was shown."""

from __future__ import annotations

import json

import pytest

from tests.tournaments.exported import GARBAGE, play
from tournaments.export import RowFilter, match_rows

GAMES = [
    ("werewolf", {"preset": "classic8"}, ["werewolf.rule", "random"]),
    ("avalon", {"n_players": 5}, ["avalon.rule", "avalon.random"]),
    ("dealornodeal", {}, ["dealornodeal.boulware", "dealornodeal.random"]),
]
# games with choice decisions (the witness refuses only those; free text takes any answer)
CHOICES = {"werewolf", "avalon"}


@pytest.mark.parametrize(("game", "rules", "kinds"), GAMES, ids=[g[0] for g in GAMES])
@pytest.mark.parametrize("seed", [1, 2])
def test_each_row_holds_the_observation_the_seat_was_last_shown(
    game: str, rules: dict[str, object], kinds: list[str], seed: int
) -> None:
    played = play(game, rules, seed, kinds, noise=0.2)
    rows = list(match_rows(played.events, played.result))
    assert len(rows) == played.result.n_decisions
    for seat, witness in enumerate(played.witnesses):
        mine = [r for r in rows if r["seat"] == seat]
        assert [r["observation"] for r in mine] == [x["text"] for x in witness.expected]
        assert [r["invalid"] for r in mine] == [x["invalid"] for x in witness.expected]
        assert [r["fallback"] for r in mine] == [x["fallback"] for x in witness.expected]
        assert [r["seat_step"] for r in mine] == list(range(len(mine)))
    refused = [r for r in rows if r["invalid"]]
    if game not in CHOICES:
        assert not refused
        return
    assert refused, "the noise made some answers refused"
    assert all(GARBAGE in e for r in refused for e in r["invalid_errors"])
    assert any(r["fallback"] and r["fallback_policy"] == "random_legal" for r in rows)


def test_rows_join_back_to_their_decision_records() -> None:
    played = play("werewolf", {"preset": "classic8"}, 5, ["werewolf.rule", "random"], 0.1)
    by_seq = {e.seq: e for e in played.events}
    seats = {s.seat: s for s in played.result.seats}
    for row in match_rows(played.events, played.result):
        event = by_seq[row["step"]]
        assert event.type == "decision" and event.actor == row["seat"]
        assert json.loads(row["action"]) == event.payload["action"]
        assert row["phase"] == event.phase and row["decision_kind"] == event.payload["kind"]
        ids = [o["id"] for o in row["options"]]
        assert set(row["action_choices"]) <= set(ids) or row["free_text"]
        seat = seats[row["seat"]]
        assert (row["agent"], row["role"], row["result"], row["reward"]) == (
            seat.agent,
            seat.role,
            seat.result,
            seat.reward,
        )
        assert row["outcome"] == played.result.outcome and "seed" not in row


def test_a_filter_keeps_only_the_seats_it_names() -> None:
    played = play("avalon", {"n_players": 5}, 4, ["avalon.rule", "avalon.random"], 0.0)
    every = list(match_rows(played.events, played.result))
    role = played.result.seats[2].role
    for keep, wanted in [
        (RowFilter(seat=2), {2}),
        (RowFilter(role=role), {s.seat for s in played.result.seats if s.role == role}),
        (RowFilter(agent="entry1"), {1, 3}),
        (RowFilter(outcome="win"), {s.seat for s in played.result.seats if s.result == "win"}),
        (RowFilter(agent="entry1", seat=2), set()),
    ]:
        rows = list(match_rows(played.events, played.result, keep))
        assert {r["seat"] for r in rows} == wanted
        assert rows == [r for r in every if r["seat"] in wanted]  # the same rows, unchanged


def test_the_god_view_adds_seed_ground_truth_and_spectator_transcript() -> None:
    played = play("werewolf", {"preset": "classic8"}, 3, ["werewolf.rule"], 0.0)
    rows = list(match_rows(played.events, played.result, god=True))
    truth = json.loads(rows[0]["ground_truth"])
    assert rows[0]["seed"] == played.result.seed
    assert truth["roles"] == {str(s.seat): s.role for s in played.result.seats}
    last = rows[-1]["spectator_view"]
    assert all(len(r["spectator_view"]) <= len(last) for r in rows)
    wolf_lines = [e.text for e in played.events if e.visibility.scope == "team" and e.text]
    assert wolf_lines and all(line in last for line in wolf_lines[:3])
