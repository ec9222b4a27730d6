"""Per-flag rules tests (spec avalon.md §4, §6) with scripted players."""

from __future__ import annotations

import pytest

from arena.types import InvalidAction
from games.avalon.rules import AvalonEngine
from tests.games.avalon.helpers import evil_seats, good_seats, run, scripted

QUIET = {"discussion_pre_rounds": 0, "belief_reports": "none", "first_leader": 0}


def good_team(eng: AvalonEngine) -> list[int]:
    size = eng.state(None)["team_sizes"][eng.quest - 1]
    return good_seats(eng)[:size]


def dirty_team(eng: AvalonEngine) -> list[int]:
    size = eng.state(None)["team_sizes"][eng.quest - 1]
    return sorted([evil_seats(eng)[0], *good_seats(eng)[: size - 1]])


def test_fifth_rejected_proposal_is_an_evil_win_under_hammer() -> None:
    eng = AvalonEngine(QUIET, seed=3)
    run(eng, scripted(votes="reject"))
    assert eng.outcome().label == "evil_win_hammer"
    assert [p["attempt"] for p in eng.proposals] == [1, 2, 3, 4, 5]
    assert [p["leader"] for p in eng.proposals] == [0, 1, 2, 3, 4]
    assert eng.outcome().winners == ("evil",)


def test_fifth_proposal_is_approved_without_a_vote_under_auto_approve() -> None:
    eng = AvalonEngine({**QUIET, "fifth_proposal_rule": "auto_approve"}, seed=3)
    run(eng, scripted(votes="reject", team=good_team), until=lambda e: len(e.quests) == 1)
    assert [p["auto_approved"] for p in eng.proposals] == [False] * 4 + [True]
    assert sum(e.type == "vote_result" for e in eng.log) == 4
    assert eng.quests[0]["result"] == "success" and eng.attempt == 1


def test_leader_moves_after_every_proposal_and_vote_track_resets_per_quest() -> None:
    eng = AvalonEngine({**QUIET, "first_leader": 2}, seed=1)
    run(eng, scripted(votes="approve", team=good_team), until=lambda e: len(e.quests) == 2)
    assert [p["leader"] for p in eng.proposals] == [2, 3]
    assert eng.leader == 4 and eng.attempt == 1 and eng.quest == 3


def test_a_tied_vote_rejects() -> None:
    eng = AvalonEngine({**QUIET, "n_players": 6}, seed=2)
    eng.apply(0, ",".join(str(s) for s in range(2)))
    for s in range(6):
        eng.apply(s, "approve" if s < 3 else "reject")
    assert eng.proposals[0]["approved"] is False and eng.attempt == 2


def test_good_players_may_only_succeed_when_good_must_succeed() -> None:
    eng = AvalonEngine(QUIET, seed=4)
    run(eng, scripted(team=dirty_team), until=lambda e: e.phase == "quest")
    good = next(s for s in eng.team if eng.teams()[s] == "good")
    evil = next(s for s in eng.team if eng.teams()[s] == "evil")
    assert eng.decision(good).option_ids == ["success"]
    with pytest.raises(InvalidAction):
        eng.apply(good, "fail")
    assert eng.decision(evil).option_ids == ["success", "fail"]


def test_good_players_may_fail_when_good_must_succeed_is_off() -> None:
    eng = AvalonEngine({**QUIET, "good_must_succeed": False}, seed=4)
    run(eng, scripted(team=good_team), until=lambda e: e.phase == "quest")
    for s in eng.team:
        eng.apply(s, "fail")
    assert eng.quests[0] == {
        "quest": 1,
        "team": eng.quests[0]["team"],
        "fails": 2,
        "result": "fail",
    }


@pytest.mark.parametrize(("n", "needed"), [(5, 1), (6, 1), (7, 2), (8, 2), (9, 2), (10, 2)])
def test_quest_four_needs_two_fails_with_seven_or_more_players(n: int, needed: int) -> None:
    eng = AvalonEngine({**QUIET, "n_players": n}, seed=n)
    # quests 1-3 succeed and fail alternately so that quest 4 decides nothing yet
    plan = {1: good_team, 2: dirty_team, 3: good_team, 4: dirty_team}
    run(eng, scripted(cards="fail", team=lambda e: plan[e.quest](e)),
        until=lambda e: len(e.quests) == 4)  # fmt: skip
    q4 = eng.quests[3]
    assert q4["fails"] == 1 and q4["result"] == ("fail" if needed == 1 else "success")
    assert (
        next(e for e in reversed(eng.log) if e.type == "quest_result").payload["fails_needed"]
        == needed
    )


def test_three_failed_quests_win_for_evil() -> None:
    eng = AvalonEngine(QUIET, seed=5)
    run(eng, scripted(cards="fail", team=dirty_team))
    assert eng.outcome().label == "evil_win_quests" and len(eng.quests) == 3


@pytest.mark.parametrize("hit", [True, False])
def test_assassination_decides_after_three_successes(hit: bool) -> None:
    eng = AvalonEngine({**QUIET, "assassination_conference": "none"}, seed=6)
    run(eng, scripted(team=good_team), until=lambda e: e.phase == "assassinate")
    merlin = eng.role_of.index("merlin")
    other = next(s for s in good_seats(eng) if s != merlin)
    assert eng.pending() == [eng.assassin]
    non_assassin = next(s for s in range(5) if s != eng.assassin)
    with pytest.raises(InvalidAction):
        eng.apply(non_assassin, str(merlin))
    with pytest.raises(InvalidAction):
        eng.apply(eng.assassin, str(eng.assassin))
    eng.apply(eng.assassin, str(merlin if hit else other))
    assert eng.outcome().label == ("evil_win_assassination" if hit else "good_win")


def test_no_merlin_means_three_successes_win_outright() -> None:
    roles = ["servant", "servant", "servant", "minion", "minion"]
    eng = AvalonEngine({**QUIET, "roles": roles}, seed=1)
    run(eng, scripted(team=good_team))
    assert eng.outcome().label == "good_win"
    assert not any(e.type == "assassination_phase" for e in eng.log)


def test_evil_conference_reveals_the_evil_team_on_a_team_channel() -> None:
    roles = ["merlin", "servant", "servant", "servant", "assassin", "oberon", "minion"]
    eng = AvalonEngine({**QUIET, "n_players": 7, "roles": roles, "conference_rounds": 2}, seed=2)
    run(eng, scripted(team=good_team), until=lambda e: e.phase == "confer")
    evil = evil_seats(eng)
    reveal = next(e for e in eng.log if e.type == "evil_revealed")
    assert reveal.visibility.scope == "team" and list(reveal.visibility.seats) == evil
    assert reveal.payload["assassin"] == eng.assassin
    oberon = eng.role_of.index("oberon")
    assert set(eng.state(oberon)["known_evil"]) == set(evil) - {oberon}
    spoken = []
    while eng.phase == "confer":
        seat = eng.pending()[0]
        spoken.append(seat)
        eng.apply(seat, f"I suspect seat {seat}")
    assert spoken == evil * 2 and eng.phase == "assassinate"
    msgs = [e for e in eng.log if e.type == "message"]
    assert all(m.visibility.scope == "team" and list(m.visibility.seats) == evil for m in msgs)
    assert [m["seat"] for m in eng.state(eng.assassin)["conference"]] == evil * 2
    assert "conference" not in eng.state(good_seats(eng)[0])


def test_discussion_rounds_start_with_the_leader_and_wrap() -> None:
    eng = AvalonEngine({**QUIET, "first_leader": 3, "discussion_pre_rounds": 2,
                        "discussion_post_rounds": 1}, seed=1)  # fmt: skip
    order = []
    while eng.phase == "discuss_pre":
        order.append(eng.pending()[0])
        eng.apply(order[-1], "hello")
    assert order == [3, 4, 0, 1, 2] * 2 and eng.phase == "propose"
    eng.apply(3, "0,1")
    post = []
    while eng.phase == "discuss_post":
        post.append(eng.pending()[0])
        eng.apply(post[-1], "pass")
    assert post == [3, 4, 0, 1, 2] and eng.phase == "vote"
    assert sum(e.type == "message" for e in eng.log) == 10


def test_messages_longer_than_the_limit_are_refused() -> None:
    eng = AvalonEngine({**QUIET, "discussion_pre_rounds": 1, "max_message_chars": 10}, seed=1)
    with pytest.raises(InvalidAction):
        eng.apply(0, "x" * 11)
    eng.apply(0, "x" * 10)


def test_counts_only_hides_who_voted_how() -> None:
    eng = AvalonEngine({**QUIET, "vote_reveal": "counts_only"}, seed=1)
    run(eng, scripted(votes="approve", team=good_team), until=lambda e: e.phase == "quest")
    result = next(e for e in eng.log if e.type == "vote_result")
    assert result.payload["votes"] is None and result.payload["approvals"] == 5
    ballots = next(e for e in eng.log if e.type == "vote_ballots")
    assert ballots.visibility.scope == "god"
    assert eng.state(0)["proposals"][0]["votes"] is None


@pytest.mark.parametrize(("bad", "why"), [("0", "choose 2"), ("0,0", "twice"), ("0,9", "legal"),
                                          ("0,1,2", "choose 2"), ("Zed,Alice", "legal")])  # fmt: skip
def test_bad_team_proposals_are_refused_and_state_is_unchanged(bad: str, why: str) -> None:
    eng = AvalonEngine(QUIET, seed=1)
    before = eng.snapshot()
    with pytest.raises(InvalidAction, match=why):
        eng.apply(0, bad)
    assert eng.snapshot() == before
    eng.apply(0, "Alice, Bruno")
    assert eng.team == [0, 1]


def test_lady_of_the_lake_examines_privately_and_passes_the_token() -> None:
    eng = AvalonEngine({**QUIET, "lady_of_the_lake": True, "first_leader": 2}, seed=9)
    assert eng.lady_holder == 1
    plan = {1: good_team, 2: dirty_team}
    run(eng, scripted(cards="fail", team=lambda e: plan[e.quest](e)),
        until=lambda e: e.phase == "lady")  # fmt: skip
    assert eng.quest == 2 and eng.pending() == [1]
    assert "1" not in eng.decision(1).option_ids
    eng.apply(1, "3")
    pub = next(e for e in eng.log if e.type == "lady")
    res = next(e for e in eng.log if e.type == "lady_result")
    assert pub.visibility.scope == "public" and "side" not in pub.payload
    assert res.visibility.seats == (1,) and res.payload["side"] == eng.teams()[3]
    assert eng.lady_holder == 3 and eng.quest == 3
    assert 3 in (eng.state(1)["known_evil"] + eng.state(1)["known_good"])
    fact = next(f for f in eng.private_facts() if f.owner == 3 and f.kind == "side")
    assert 1 in fact.audience


@pytest.mark.parametrize(("mode", "checkpoints"), [("none", []), ("end", ["end"]),
                          ("after_each_quest", ["quest_1", "quest_2", "end"])])  # fmt: skip
def test_belief_report_checkpoints_follow_the_flag(mode: str, checkpoints: list[str]) -> None:
    eng = AvalonEngine({**QUIET, "belief_reports": mode}, seed=6)

    def pol(e, seat, d):  # type: ignore[no-untyped-def]
        if d.kind == "belief":
            assert d.belief_only and d.simultaneous
            return {"belief": {str(j): 0.25 for j in range(5) if j != seat}}
        return scripted(cards="fail", team=dirty_team)(e, seat, d)

    run(eng, pol)
    got = [e.payload["checkpoint"] for e in eng.log if e.type == "belief"]
    assert got == [c for c in checkpoints for _ in range(5)]
    assert all(e.visibility.scope == "god" for e in eng.log if e.type == "belief")
    over = next(i for i, e in enumerate(eng.log) if e.type == "game_over")
    assert all(i < over for i, e in enumerate(eng.log) if e.type == "belief")


def test_beliefs_ride_on_any_action_and_bad_keys_are_refused() -> None:
    eng = AvalonEngine(QUIET, seed=1)
    with pytest.raises(InvalidAction, match="unknown player"):
        eng.apply(0, {"choice": ["0", "1"], "belief": {"Nobody": 0.5}})
    eng.apply(0, {"choice": ["0", "1"], "belief": {"Bruno": 0.2, "2": 0.9, "merlin:3": 0.5}})
    ev = next(e for e in eng.log if e.type == "belief")
    assert ev.visibility.scope == "god" and ev.payload["checkpoint"] == "propose"
    assert ev.payload["p_good"] == {"1": 0.2, "2": 0.9} and ev.payload["p_merlin"] == {"3": 0.5}


@pytest.mark.parametrize(("scheme", "lose"), [("pm1", -1.0), ("zero_one", 0.0)])
def test_reward_scheme(scheme: str, lose: float) -> None:
    eng = AvalonEngine({**QUIET, "reward_scheme": scheme}, seed=3)
    run(eng, scripted(votes="reject"))
    rewards = eng.outcome().rewards
    assert {rewards[s] for s in evil_seats(eng)} == {1.0}
    assert {rewards[s] for s in good_seats(eng)} == {lose}


@pytest.mark.parametrize("reveal", [True, False])
def test_roles_are_revealed_at_the_end_only_when_the_flag_says_so(reveal: bool) -> None:
    eng = AvalonEngine({**QUIET, "reveal_roles_at_end": reveal}, seed=3)
    run(eng, scripted(votes="reject"))
    over = eng.log[-1]
    assert over.type == "game_over" and (over.payload["roles"] is not None) == reveal
    assert all(f.public == reveal for f in eng.private_facts())


def test_first_leader_random_is_seeded() -> None:
    leaders = {AvalonEngine({"first_leader": "random"}, seed=s).leader for s in range(40)}
    assert leaders == set(range(5))
    assert AvalonEngine({}, seed=7).leader == AvalonEngine({}, seed=7).leader
