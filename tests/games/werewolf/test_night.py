"""Night rules (§5): wolf decision modes, protectors, Witch, Seer, dawn resolution."""

from __future__ import annotations

from collections import Counter

from games.werewolf.rules import WerewolfEngine
from tests.games.werewolf.helpers import by_kind, events, first, non_wolf, play, seat_of

BASE = {"belief_reports": "none", "wolf_discussion_rounds": 0}
R8 = ["werewolf", "werewolf", "seer", "doctor", "villager", "villager", "villager", "villager"]


def engine(seed: int = 1, **rules: object) -> WerewolfEngine:
    return WerewolfEngine({**BASE, **rules}, seed=seed)


def night_kinds(e: WerewolfEngine) -> dict[int, str]:
    return {s: e.decision(s).kind for s in e.pending()}


def test_first_night_collects_all_night_roles_simultaneously() -> None:
    e = engine()
    kinds = night_kinds(e)
    assert Counter(kinds.values()) == Counter(wolf_target=2, protect=1, inspect=1)
    assert all(e.decision(s).simultaneous for s in kinds)


def test_doctor_self_protect_flag_controls_self_option() -> None:
    for allowed in (True, False):
        e = engine(doctor_self_protect=allowed)
        doc = seat_of(e, "doctor")
        assert (str(doc) in e.decision(doc).option_ids) is allowed


def test_doctor_repeat_target_false_forbids_last_nights_target() -> None:
    for repeat in (True, False):
        e = engine(doctor_repeat_target=repeat, max_days=3)
        doc = seat_of(e, "doctor")
        policy = by_kind(protect=str(doc), vote="0" if doc != 0 else "1")
        play(e, policy, until=lambda e, s, d: d.kind == "protect" and e.night == 2)
        assert (str(doc) in e.decision(doc).option_ids) is repeat


def test_guard_defaults_no_repeat_and_self_flag() -> None:
    roles = ["werewolf", "werewolf", "seer", "guard", "villager", "villager", "villager"]
    e = engine(roles=roles, guard_self_protect=False)
    g = seat_of(e, "guard")
    assert str(g) not in e.decision(g).option_ids
    target = next(s for s in range(7) if s != g)
    play(e, by_kind(guard=str(target)), until=lambda e, s, d: d.kind == "guard" and e.night == 2)
    if e.alive[target]:
        assert str(target) not in e.decision(g).option_ids


def test_protected_victim_survives_and_protect_event_is_private() -> None:
    e = engine()
    victim = non_wolf(e, exclude=(seat_of(e, "doctor"),))
    play(e, by_kind(wolf_target=str(victim), protect=str(victim)), until=first("speak"))
    assert events(e, "dawn")[0]["dead"] == []
    prot = next(ev for ev in e.log if ev.type == "protect")
    assert prot.visibility.scope == "private" and prot.visibility.seats == (seat_of(e, "doctor"),)


def test_unprotected_victim_dies_at_dawn() -> None:
    e = engine()
    doc = seat_of(e, "doctor")
    victim = non_wolf(e, exclude=(doc,))
    play(e, by_kind(wolf_target=str(victim), protect=str(doc)), until=first("speak"))
    assert events(e, "dawn")[0]["dead"] == [victim]
    assert events(e, "death")[0] == {"seat": victim, "cause": "wolves"}


def split_wolf_votes(e: WerewolfEngine) -> dict[str, object]:
    a, b = [s for s in range(e.n_seats) if e.role[s] != "werewolf"][:2]
    w0, w1 = e.wolves
    return {"wolf_target": lambda e, s, d: str(a if s == w0 else b)}


def test_wolf_tie_no_kill_kills_nobody() -> None:
    e = engine(wolf_tie="no_kill", doctor_self_protect=True)
    doc = seat_of(e, "doctor")
    play(e, by_kind(**split_wolf_votes(e), protect=str(doc)), until=first("speak"))
    assert events(e, "wolf_target")[0]["target"] is None
    assert events(e, "dawn")[0]["dead"] == []


def test_wolf_tie_lowest_seat_takes_lowest_wolfs_choice() -> None:
    e = engine(wolf_tie="lowest_seat")
    a = next(s for s in range(8) if e.role[s] != "werewolf")
    play(e, by_kind(**split_wolf_votes(e)), until=first("speak"))
    assert events(e, "wolf_target")[0]["target"] == a


def test_wolf_tie_random_picks_one_of_the_tied() -> None:
    seen = set()
    for seed in range(12):
        e = engine(seed=seed, wolf_tie="random")
        a, b = [s for s in range(8) if e.role[s] != "werewolf"][:2]
        play(e, by_kind(**split_wolf_votes(e)), until=first("speak"))
        t = events(e, "wolf_target")[0]["target"]
        assert t in (a, b)
        seen.add(t == a)
    assert seen == {True, False}


def test_wolf_targets_and_skip_options() -> None:
    e = engine()
    w = e.wolves[0]
    ids = e.decision(w).option_ids
    assert str(e.wolves[1]) not in ids and str(w) not in ids and "no_kill" not in ids
    e = engine(wolf_targets="any_other", wolf_may_skip=True)
    w = e.wolves[0]
    ids = e.decision(w).option_ids
    assert str(e.wolves[1]) in ids and str(w) not in ids and "no_kill" in ids


def test_single_random_lets_one_wolf_choose() -> None:
    e = engine(wolf_decision="single_random")
    kinds = night_kinds(e)
    assert Counter(kinds.values())["wolf_target"] == 1


def test_wolf_discussion_rounds_on_team_channel() -> None:
    e = WerewolfEngine({"belief_reports": "none", "wolf_discussion_rounds": 2}, seed=3)
    turns = []
    play(
        e,
        lambda e, s, d: (
            (turns.append(s), {"text": "bite Bob"})[1] if d.kind == "wolf_discuss" else None
        ),
        until=first("speak"),
    )
    assert turns == e.wolves * 2
    msgs = [ev for ev in e.log if ev.type == "wolf_message"]
    assert len(msgs) == 4 and all(ev.visibility.seats == tuple(e.wolves) for ev in msgs)


def test_consensus_revotes_then_no_kill() -> None:
    e = engine(wolf_decision="consensus", consensus_retries=2)
    policy = by_kind(**split_wolf_votes(e))
    play(e, policy, until=first("speak"))
    assert len(events(e, "wolf_retry")) == 2
    assert len(events(e, "wolf_vote")) == 6
    assert events(e, "wolf_target") == [{"target": None}]


def test_consensus_zero_retries_and_agreement() -> None:
    e = engine(wolf_decision="consensus", consensus_retries=0)
    play(e, by_kind(**split_wolf_votes(e)), until=first("speak"))
    assert events(e, "wolf_retry") == [] and events(e, "wolf_target") == [{"target": None}]
    e = engine(wolf_decision="consensus")
    v = non_wolf(e, exclude=(seat_of(e, "doctor"),))
    play(e, by_kind(wolf_target=str(v), protect=str(seat_of(e, "doctor"))), until=first("speak"))
    assert events(e, "wolf_target") == [{"target": v}] and events(e, "dawn")[0]["dead"] == [v]


WITCH = ["werewolf", "werewolf", "seer", "witch", "villager", "villager", "villager", "villager"]


def test_witch_sees_victim_and_heal_saves_once() -> None:
    e = engine(roles=WITCH, max_days=4)
    w = seat_of(e, "witch")
    v = non_wolf(e, exclude=(w,))
    play(e, by_kind(wolf_target=str(v), witch_heal="heal"), until=first("speak"))
    assert events(e, "witch_info")[0] == {"victim": v}
    assert events(e, "dawn")[0]["dead"] == []
    assert events(e, "witch_action")[0] == {"heal": True, "poison": None}
    play(e, by_kind(wolf_target=str(v)), until=lambda e, s, d: e.night == 2 and s == w)
    assert e.decision(w).kind == "witch_poison"  # heal potion used up


def test_witch_both_same_night_flag() -> None:
    for both in (False, True):
        e = engine(roles=WITCH, witch_both_same_night=both)
        w = seat_of(e, "witch")
        v = non_wolf(e, exclude=(w,))
        stop = play(e, by_kind(wolf_target=str(v), witch_heal="heal"), until=first("witch_poison"))
        assert (stop is not None and e.night == 1) is both


def test_poison_kills_and_protect_blocks_poison_flag() -> None:
    roles = ["werewolf", "werewolf", "doctor", "witch", "villager", "villager", "villager", "seer"]
    for blocks in (False, True):
        e = engine(roles=roles, protect_blocks_poison=blocks)
        w, doc = seat_of(e, "witch"), seat_of(e, "doctor")
        z = non_wolf(e, exclude=(w, doc))
        pol = by_kind(wolf_target=str(doc), protect=str(z), witch_heal="skip", witch_poison=str(z))
        play(e, pol, until=first("speak"))
        dead = events(e, "dawn")[0]["dead"]
        assert (z in dead) is (not blocks) and doc in dead


def test_witch_self_heal_flag() -> None:
    for allowed in (False, True):
        e = engine(roles=WITCH, witch_self_heal=allowed)
        w = seat_of(e, "witch")
        stop = play(e, by_kind(wolf_target=str(w)), until=first("witch_heal"))
        assert (stop is not None and e.night == 1) is allowed


def test_witch_blind_gets_no_victim_info() -> None:
    e = engine(roles=WITCH, witch_sees_victim=False)
    play(e, until=first("speak"))
    assert events(e, "witch_info") == []


def test_seer_team_and_role_results_are_private() -> None:
    for mode in ("team", "role"):
        e = engine(seer_result=mode)
        seer = seat_of(e, "seer")
        w = e.wolves[0]
        play(e, by_kind(inspect=str(w)), until=first("speak"))
        ev = next(ev for ev in e.log if ev.type == "seer_result")
        assert ev.payload == {"target": w, "result": "wolf" if mode == "team" else "werewolf"}
        assert ev.visibility.seats == (seer,)
        assert e.state(seer)["seer_results"] == {w: ev.payload["result"]}


def test_seer_cannot_reinspect_unless_allowed() -> None:
    for repeat in (False, True):
        e = engine(seer_repeat_target=repeat, doctor_self_protect=True)
        seer, doc = seat_of(e, "seer"), seat_of(e, "doctor")
        t = e.wolves[0]
        pol = by_kind(inspect=str(t), protect=str(seer), vote=str(doc) if doc else "1")
        play(e, pol, until=lambda e, s, d: d.kind == "inspect" and e.night == 2)
        assert (str(t) in e.decision(seer).option_ids) is repeat


def test_seer_result_if_killed_flag() -> None:
    for flag in (True, False):
        e = engine(seer_result_if_killed=flag)
        seer = seat_of(e, "seer")
        play(
            e,
            by_kind(wolf_target=str(seer), protect=str(seat_of(e, "doctor"))),
            until=first("speak"),
        )
        assert events(e, "dawn")[0]["dead"] == [seer]
        assert bool(events(e, "seer_result")) is flag


def test_night_death_reveal_modes() -> None:
    for mode, expect in (("none", None), ("team", "village"), ("role", "villager")):
        e = engine(night_death_reveal=mode)
        v = next(s for s in range(8) if e.role[s] == "villager")
        play(
            e, by_kind(wolf_target=str(v), protect=str(seat_of(e, "doctor"))), until=first("speak")
        )
        reveals = events(e, "dawn")[0]["reveals"]
        assert reveals == ({} if expect is None else {v: expect})


HUNTER = ["werewolf", "werewolf", "seer", "witch", "hunter", "villager", "villager", "villager"]


def test_hunter_killed_by_wolves_shoots_at_dawn() -> None:
    e = engine(roles=HUNTER)
    h = seat_of(e, "hunter")
    target = e.wolves[0]
    play(
        e,
        by_kind(
            wolf_target=str(h), witch_heal="skip", witch_poison="none", hunter_shot=str(target)
        ),
        until=first("speak"),
    )
    assert events(e, "hunter_shot") == [{"seat": h, "target": target, "reveal": None}]
    assert not e.alive[target] and events(e, "death")[-1]["cause"] == "hunter"


def test_poisoned_hunter_shoots_only_with_flag() -> None:
    for flag in (False, True):
        e = engine(roles=HUNTER, hunter_shoots_if_poisoned=flag, hunter_may_decline=False)
        h, w = seat_of(e, "hunter"), seat_of(e, "witch")
        v = non_wolf(e, exclude=(h, w))
        pol = by_kind(wolf_target=str(v), witch_heal="skip", witch_poison=str(h))
        stop = play(e, pol, until=first("hunter_shot"))
        shot = stop is not None and e.night == 1 and e.day == 0
        assert shot is flag
        if flag:
            assert "decline" not in e.decision(h).option_ids
