"""Start knowledge per role (spec avalon.md §3.2), as events and as private facts."""

from __future__ import annotations

import pytest

from games.avalon.rules import AvalonEngine

FULL10 = ["merlin", "percival", "servant", "servant", "servant", "servant",
          "assassin", "morgana", "mordred", "oberon"]  # fmt: skip


def seat_of(eng: AvalonEngine, role: str) -> int:
    return eng.role_of.index(role)


def shown_evil(eng: AvalonEngine, seat: int) -> set[int]:
    evs = [e for e in eng.log if e.type == "sees_evil" and e.visibility.seats == (seat,)]
    return set(evs[0].payload["evil"]) if evs else set()


@pytest.mark.parametrize("seed", range(6))
def test_merlin_sees_every_evil_player_except_mordred(seed: int) -> None:
    eng = AvalonEngine({"n_players": 10, "roles": FULL10}, seed=seed)
    m = seat_of(eng, "merlin")
    expected = {s for s, r in enumerate(eng.role_of) if r in ("assassin", "morgana", "oberon")}
    assert shown_evil(eng, m) == expected
    assert set(eng.state(m)["known_evil"]) == expected
    assert seat_of(eng, "mordred") not in eng.state(m)["known_evil"]


@pytest.mark.parametrize("seed", range(6))
def test_percival_sees_merlin_and_morgana_without_telling_which(seed: int) -> None:
    eng = AvalonEngine({"n_players": 10, "roles": FULL10}, seed=seed)
    p = seat_of(eng, "percival")
    ev = next(e for e in eng.log if e.type == "sees_merlin_candidates")
    assert ev.visibility.seats == (p,)
    assert set(ev.payload["merlin_candidates"]) == {seat_of(eng, "merlin"), seat_of(eng, "morgana")}
    assert "role" not in ev.payload and "roles" not in ev.payload
    st = eng.state(p)
    assert st["known_roles"] == {} and st["known_evil"] == [] and st["known_good"] == []


def test_percival_candidate_order_is_random_not_by_seat() -> None:
    firsts = set()
    for seed in range(40):
        eng = AvalonEngine({"n_players": 10, "roles": FULL10}, seed=seed)
        cands = next(e for e in eng.log if e.type == "sees_merlin_candidates").payload
        firsts.add(eng.role_of[cands["merlin_candidates"][0]])
    assert firsts == {"merlin", "morgana"}


def test_percival_without_morgana_knows_merlin() -> None:
    roles = ["merlin", "percival", "servant", "assassin", "minion"]
    eng = AvalonEngine({"roles": roles}, seed=2)
    p, m = seat_of(eng, "percival"), seat_of(eng, "merlin")
    assert eng.state(p)["merlin_candidates"] == [m]
    assert eng.state(p)["known_roles"] == {str(m): "merlin"}


@pytest.mark.parametrize("seed", range(6))
def test_evil_see_each_other_except_oberon_and_oberon_sees_nobody(seed: int) -> None:
    eng = AvalonEngine({"n_players": 10, "roles": FULL10}, seed=seed)
    evil = {
        s for s, r in enumerate(eng.role_of) if r in ("assassin", "morgana", "mordred", "oberon")
    }
    ob = seat_of(eng, "oberon")
    for s in evil - {ob}:
        assert shown_evil(eng, s) == evil - {s, ob}
        assert eng.state(s)["known_roles"] == {}  # evil_see_roles is off
    assert shown_evil(eng, ob) == set() and eng.state(ob)["known_evil"] == []


@pytest.mark.parametrize("seed", range(4))
def test_servants_know_nothing(seed: int) -> None:
    eng = AvalonEngine({"n_players": 10, "roles": FULL10}, seed=seed)
    for s, r in enumerate(eng.role_of):
        if r == "servant":
            st = eng.state(s)
            assert st["known_evil"] == st["known_good"] == [] and st["known_roles"] == {}
            assert [e.type for e in eng.visible_log(s) if e.visibility.scope != "public"] == [
                "role"
            ]


def test_evil_see_roles_shows_teammates_roles_but_not_oberon() -> None:
    eng = AvalonEngine({"n_players": 10, "roles": FULL10, "evil_see_roles": True}, seed=1)
    a = seat_of(eng, "assassin")
    known = eng.state(a)["known_roles"]
    assert known == {str(seat_of(eng, r)): r for r in ("morgana", "mordred")}
    fact = next(
        f for f in eng.private_facts() if f.owner == seat_of(eng, "mordred") and f.kind == "role"
    )
    assert a in fact.audience and seat_of(eng, "merlin") not in fact.audience


def test_full_reveal_shows_merlin_and_all_evil_the_whole_side_vector() -> None:
    eng = AvalonEngine({"n_players": 10, "roles": FULL10, "knowledge_model": "full_reveal"}, seed=1)
    evil = {s for s in range(10) if eng.teams()[s] == "evil"}
    assert set(eng.state(seat_of(eng, "merlin"))["known_evil"]) == evil
    for s in evil:
        assert set(eng.state(s)["known_evil"]) == evil - {s}


def test_full_reveal_equals_standard_for_five_player_basic() -> None:
    for seed in range(10):
        a = AvalonEngine({"knowledge_model": "full_reveal"}, seed=seed)
        b = AvalonEngine({}, seed=seed)
        assert [a.state(s)["known_evil"] for s in range(5)] == [
            b.state(s)["known_evil"] for s in range(5)
        ]


@pytest.mark.parametrize("seed", range(4))
def test_private_fact_audiences_match_the_knowledge_table(seed: int) -> None:
    eng = AvalonEngine({"n_players": 10, "roles": FULL10}, seed=seed)
    roles = eng.role_of
    merlin, perc = seat_of(eng, "merlin"), seat_of(eng, "percival")
    non_oberon_evil = {s for s, r in enumerate(roles) if r in ("assassin", "morgana", "mordred")}
    for f in eng.private_facts():
        r = roles[f.owner]
        if f.kind == "role":
            assert set(f.audience) == {f.owner}
        elif f.kind == "side":
            want = {f.owner}
            if r in ("assassin", "morgana", "oberon"):
                want.add(merlin)
            if r in ("assassin", "morgana", "mordred"):
                want |= non_oberon_evil
            assert set(f.audience) == want, (r, f)
        elif f.kind == "merlin_candidate":
            assert set(f.audience) == {f.owner, perc} and r in ("merlin", "morgana")
        assert not f.public
