"""Voting and exile (§7) and the Hunter's shot after an exile (§8.2)."""

from __future__ import annotations

from games.werewolf.rules import WerewolfEngine
from tests.games.werewolf.helpers import by_kind, events, first, play, seat_of

BASE = {"belief_reports": "none", "wolf_discussion_rounds": 0, "first_phase": "day"}


def engine(seed: int = 1, **rules: object) -> WerewolfEngine:
    return WerewolfEngine({**BASE, **rules}, seed=seed)


def ballots(plan: dict[int, int | str]):  # type: ignore[no-untyped-def]
    """Voter -> target plan; unplanned voters abstain when allowed, else follow seat 0's plan."""
    return lambda e, s, d: str(plan[s]) if s in plan else None


def run_vote(
    e: WerewolfEngine, plan: dict[int, int | str], revote: dict[int, int] | None = None
) -> None:
    pol = by_kind(vote=ballots(plan), revote=ballots(revote or plan))
    play(e, pol, until=lambda e, s, d: e.phase != "day_1")


def test_vote_options_exclude_self_unless_allowed_and_abstain_flag() -> None:
    e = engine()
    play(e, until=first("vote"))
    ids = e.decision(0).option_ids
    assert "0" not in ids and "abstain" not in ids and len(ids) == 7
    e = engine(allow_self_vote=True, allow_abstain=True)
    play(e, until=first("vote"))
    ids = e.decision(0).option_ids
    assert "0" in ids and "abstain" in ids


def test_simultaneous_ballots_are_secret_then_revealed_named() -> None:
    e = engine()
    plan = {s: (1 if s != 1 else 2) for s in range(8)}
    run_vote(e, plan)
    assert all(ev.visibility.scope == "god" for ev in e.log if ev.type == "ballot")
    result = events(e, "vote_result")[0]
    assert result["ballots"] == plan and result["exiled"] == 1
    assert events(e, "exile")[0] == {"seat": 1, "reveal": None}
    assert not e.alive[1]


def test_counts_only_reveal_publishes_tallies() -> None:
    e = engine(vote_reveal="counts_only")
    run_vote(e, {s: (1 if s < 5 and s != 1 else 2) for s in range(8)})
    result = events(e, "vote_result")[0]
    assert "ballots" not in result and result["counts"] == {1: 4, 2: 4}


def test_sequential_votes_are_public_in_order_and_seen_by_later_voters() -> None:
    e = engine(vote_mode="sequential")
    play(e, until=first("vote"))
    first_speaker = e.day_first
    seen: list[int] = []

    def vote(e: WerewolfEngine, s: int, d: object) -> str:
        shown = [ev.payload["voter"] for ev in e.visible_log(s) if ev.type == "ballot"]
        assert shown == seen  # every earlier ballot, nothing else
        seen.append(s)
        return d.option_ids[0]  # type: ignore[attr-defined]

    play(e, by_kind(vote=vote), until=lambda e, s, d: e.phase != "day_1")
    assert seen[0] == first_speaker and sorted(seen) == list(range(8))
    assert all(ev.visibility.scope == "public" for ev in e.log if ev.type == "ballot")


TIE_PLAN = {0: 1, 2: 1, 3: 1, 4: 1, 1: 2, 5: 2, 6: 2, 7: 2}  # 4-4 between seats 1 and 2


def test_plurality_tie_no_exile_and_random() -> None:
    plan = TIE_PLAN
    e = engine(tie_rule="no_exile")
    run_vote(e, plan)
    assert events(e, "exile")[0]["seat"] is None
    picked = set()
    for seed in range(10):
        e = engine(seed=seed, tie_rule="random")
        run_vote(e, plan)
        picked.add(events(e, "exile")[0]["seat"])
    assert picked == {1, 2}


def test_revote_is_restricted_to_tied_candidates_and_second_tie_exiles_nobody() -> None:
    plan = TIE_PLAN
    e = engine(tie_rule="revote")
    seen_options: list[list[str]] = []

    def revote(e: WerewolfEngine, s: int, d: object) -> str:
        seen_options.append(d.option_ids)  # type: ignore[attr-defined]
        return str(plan[s])

    play(e, by_kind(vote=ballots(plan), revote=revote), until=lambda e, s, d: e.phase != "day_1")
    assert len(seen_options) == 8  # tied candidates vote too
    assert all(set(o) <= {"1", "2"} for o in seen_options)
    results = events(e, "vote_result")
    assert [r["revote"] for r in results] == [False, True]
    assert events(e, "exile")[0]["seat"] is None
    e = engine(tie_rule="revote")
    run_vote(e, plan, revote={s: 2 if s != 2 else 1 for s in range(8)})
    assert events(e, "exile")[0]["seat"] == 2


def test_strict_majority_over_alive_players_or_votes_cast() -> None:
    plan: dict[int, int | str] = {
        0: 1,
        2: 1,
        3: 1,
        4: 1,
        1: 2,
        5: "abstain",
        6: "abstain",
        7: "abstain",
    }
    e = engine(elimination_rule="strict_majority", allow_abstain=True)
    run_vote(e, plan)  # 4 of 8 alive: not a majority
    assert events(e, "exile")[0]["seat"] is None
    e = engine(elimination_rule="strict_majority", majority_base="votes_cast", allow_abstain=True)
    run_vote(e, plan)  # 4 of 5 cast: majority
    assert events(e, "exile")[0]["seat"] == 1
    plan5 = {**plan, 5: 1}
    e = engine(elimination_rule="strict_majority", allow_abstain=True)
    run_vote(e, plan5)
    assert events(e, "exile")[0]["seat"] == 1


def test_all_abstain_exiles_nobody() -> None:
    e = engine(allow_abstain=True)
    run_vote(e, {s: "abstain" for s in range(8)})
    assert events(e, "exile")[0]["seat"] is None


def test_exile_reveal_modes() -> None:
    for mode in ("none", "team", "role"):
        e = engine(exile_reveal=mode)
        target = next(s for s in range(8) if e.role[s] == "villager")
        run_vote(e, {s: target if s != target else (target + 1) % 8 for s in range(8)})
        reveal = events(e, "exile")[0]["reveal"]
        assert reveal == {"none": None, "team": "village", "role": "villager"}[mode]
        assert e.state(0)["revealed"] == ({} if mode == "none" else {target: reveal})


def test_exiled_hunter_shoots_and_may_decline() -> None:
    roles = ["werewolf", "werewolf", "seer", "hunter", "villager", "villager", "villager", "doctor"]
    for decline in (True, False):
        e = engine(roles=roles, hunter_may_decline=decline)
        h = seat_of(e, "hunter")
        stop = play(
            e,
            by_kind(vote=lambda e, s, d, h=h: str(h) if s != h else None),
            until=first("hunter_shot"),
        )
        assert stop is not None and stop[0] == h
        assert ("decline" in e.decision(h).option_ids) is decline
        target = e.wolves[0]
        e.apply(h, str(target))
        assert not e.alive[target] and events(e, "hunter_shot")[0]["target"] == target
