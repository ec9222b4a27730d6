"""Hidden-information fuzz: no seat ever sees a role/side it was not granted, and no event a
seat can see links a quest card to a player (spec avalon.md §5)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from games.avalon.rules import AvalonEngine
from tests.games.avalon.helpers import random_policy, run

CONFIGS: list[dict[str, Any]] = [
    {},
    {"n_players": 6, "role_preset": "percival_morgana", "lady_of_the_lake": True},
    {"n_players": 7, "roles": ["merlin", "percival", "servant", "servant", "assassin", "mordred", "oberon"]},
    {"n_players": 8, "evil_see_roles": True, "vote_reveal": "counts_only", "conference_rounds": 2},
    {"n_players": 10, "roles": ["merlin", "percival", "servant", "servant", "servant", "servant",
                                "assassin", "morgana", "mordred", "oberon"], "lady_of_the_lake": True},
    {"preset": "avalonbench"},
    {"n_players": 9, "knowledge_model": "full_reveal", "belief_reports": "after_each_quest",
     "good_must_succeed": False, "fifth_proposal_rule": "auto_approve"},
]  # fmt: skip
GAMES = 2100


def claims(payload: dict[str, Any]) -> list[tuple[str, int, Any]]:
    """(kind, seat, value) statements an event makes about players' hidden identities."""
    out: list[tuple[str, int, Any]] = []
    if "role" in payload and "seat" in payload:
        out.append(("role", payload["seat"], payload["role"]))
    for s, r in (payload.get("roles") or {}).items():
        out.append(("role", int(s), r))
    for s in payload.get("evil") or []:
        out.append(("side", s, "evil"))
    for s in payload.get("merlin_candidates") or []:
        out.append(("merlin_candidate", s, True))
    if "side" in payload and "target" in payload:
        out.append(("side", payload["target"], payload["side"]))
    if "assassin" in payload and "target" not in payload:
        out.append(("role", payload["assassin"], "assassin"))
    return out


def check_game(eng: AvalonEngine) -> None:
    n = eng.n_seats
    facts = {(f.kind, f.owner): f for f in eng.private_facts()}
    for e in eng.log:
        if e.visibility.scope == "god":
            continue
        assert "cards" not in e.payload and "card" not in e.payload
        assert "p_good" not in e.payload and "p_merlin" not in e.payload
        if e.phase == "quest":
            assert e.type == "quest_result" and e.actor is None
            assert set(e.payload) == {"quest", "team", "fails", "fails_needed", "result"}
        for seat in range(n):
            if not e.visibility.visible_to(seat):
                continue
            for kind, owner, value in claims(e.payload):
                fact = facts[(kind, owner)]
                assert fact.value == value, (e.type, kind, owner)
                assert fact.known_by(seat), (e.type, seat, kind, owner, value)
    for seat in range(n):
        st = eng.state(seat)
        assert "roles" not in st
        for j, r in st["known_roles"].items():
            assert facts[("role", int(j))].known_by(seat) and r == eng.role_of[int(j)]
        for j in st["known_evil"] + st["known_good"]:
            assert facts[("side", j)].known_by(seat)
        assert "conference" not in st or eng.side[seat] == "evil"


@pytest.mark.slow  # 2,100 games: the conformance leak fuzz covers Avalon in make test-fast
def test_no_seat_learns_a_hidden_identity_or_a_card_owner_over_many_random_games() -> None:
    rng = random.Random(20261129)
    labels: set[str] = set()
    for g in range(GAMES):
        flags = {**CONFIGS[g % len(CONFIGS)], "reveal_roles_at_end": False}
        if g % 3:
            flags["discussion_pre_rounds"] = 0
        eng = AvalonEngine(flags, seed=g)
        run(eng, random_policy(rng, speak=0.1))
        check_game(eng)
        labels.add(eng.outcome().label)
    assert labels == {"good_win", "evil_win_quests", "evil_win_hammer", "evil_win_assassination"}


def test_roles_become_public_only_at_the_end_when_revealed() -> None:
    rng = random.Random(1)
    eng = AvalonEngine({"discussion_pre_rounds": 0}, seed=5)
    run(eng, random_policy(rng), until=lambda e: e.phase == "belief")
    assert not any(f.public for f in eng.private_facts())
    assert "roles" not in eng.state(0)
    run(eng, random_policy(rng))
    assert all(f.public for f in eng.private_facts())
    assert eng.state(0)["roles"] == {str(s): r for s, r in enumerate(eng.role_of)}
