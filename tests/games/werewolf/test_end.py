"""Win conditions, the day cap, rewards (§9), belief reports and dead players' view."""

from __future__ import annotations

from games.werewolf.rules import WerewolfEngine
from tests.games.werewolf.helpers import by_kind, events, first, play

BASE = {"belief_reports": "none", "wolf_discussion_rounds": 0}


def engine(seed: int = 1, **rules: object) -> WerewolfEngine:
    return WerewolfEngine({**BASE, **rules}, seed=seed)


def hunt_wolves(e: WerewolfEngine, s: int, d: object) -> str | None:
    """Everyone votes for the lowest alive wolf (a wolf votes for the other wolf)."""
    wolves = [w for w in e.alive_wolves() if w != s]
    return str(wolves[0]) if wolves else None


def test_village_wins_when_no_wolf_is_alive_and_rewards_pm1() -> None:
    e = engine(first_phase="day", max_days=5)
    doc = e.role.index("doctor")
    play(e, by_kind(vote=hunt_wolves, wolf_target=lambda e, s, d: str(doc), protect=str(doc)))
    out = e.outcome()
    assert out is not None and out.label == "village_win" and out.winners == ("village",)
    assert all(out.rewards[s] == (1.0 if e.role[s] != "werewolf" else -1.0) for s in range(8))
    over = events(e, "game_over")[0]
    assert over["roles"] == dict(enumerate(e.role)) and over["winners"] == ["village"]


def test_zero_one_rewards_and_draw_half() -> None:
    e = engine(first_phase="day", max_days=5, reward_scheme="zero_one")
    doc = e.role.index("doctor")
    play(e, by_kind(vote=hunt_wolves, wolf_target=lambda e, s, d: str(doc), protect=str(doc)))
    assert sorted(set(e.outcome().rewards.values())) == [0.0, 1.0]
    e = engine(max_days=1, reward_scheme="zero_one", allow_abstain=True)
    play(e, by_kind(**never_kill(e)))
    assert e.outcome().label == "draw_cap" and set(e.outcome().rewards.values()) == {0.5}


def never_kill(e: WerewolfEngine) -> dict[str, object]:
    doc = e.role.index("doctor")
    return {"wolf_target": str(doc), "protect": str(doc), "vote": "abstain"}


def test_cap_outcome_after_max_days() -> None:
    for cap, label, winners in (
        ("draw", "draw_cap", ()),
        ("wolves", "wolves_win", ("wolves",)),
        ("village", "village_win", ("village",)),
    ):
        e = engine(max_days=2, cap_outcome=cap, allow_abstain=True)
        play(e, by_kind(**never_kill(e)))
        out = e.outcome()
        assert (out.label, out.winners, e.day) == (label, winners, 2)
        assert "cap" in (out.reason or "")
        if cap == "draw":
            assert set(out.rewards.values()) == {0.0}


def wolves_kill_villagers(e: WerewolfEngine, s: int, d: object) -> str:
    v = [t for t in e.alive_seats() if e.role[t] == "villager"]
    return str(v[0]) if v else d.option_ids[0]  # type: ignore[attr-defined]


def test_parity_wins_for_wolves() -> None:
    e = engine(allow_abstain=True, max_days=10)
    doc = e.role.index("doctor")
    play(e, by_kind(wolf_target=wolves_kill_villagers, protect=str(doc), vote="abstain"))
    out = e.outcome()
    assert out.label == "wolves_win"
    alive = e.alive_seats()
    assert sum(e.role[s] == "werewolf" for s in alive) >= sum(
        e.role[s] != "werewolf" for s in alive
    )


def test_full_elimination_continues_past_parity() -> None:
    e = engine(allow_abstain=True, win_condition="full_elimination", max_days=20)
    pol = by_kind(
        wolf_target=lambda e, s, d: d.option_ids[0], protect=str(e.wolves[0]), vote="abstain"
    )
    play(e, pol)
    assert e.outcome().label == "wolves_win"
    assert all(e.role[s] == "werewolf" for s in e.alive_seats())


def test_side_elimination_villagers_only_ends_when_villagers_are_dead() -> None:
    for scope in ("villagers_only", "both"):
        e = engine(
            allow_abstain=True, win_condition="side_elimination", side_elimination_scope=scope
        )
        doc = e.role.index("doctor")
        play(e, by_kind(wolf_target=wolves_kill_villagers, protect=str(doc), vote="abstain"))
        assert e.outcome().label == "wolves_win"
        assert not any(e.alive[s] for s in range(8) if e.role[s] == "villager")
        specials_alive = [s for s in e.alive_seats() if e.role[s] in ("seer", "doctor")]
        assert specials_alive  # doctor self-protects; the villagers fall first


def test_side_elimination_both_counts_specials() -> None:
    for scope in ("both", "villagers_only"):
        e = engine(
            allow_abstain=True, win_condition="side_elimination", side_elimination_scope=scope
        )
        specials = [s for s in range(8) if e.role[s] in ("seer", "doctor")]

        def target(e: WerewolfEngine, s: int, d: object, sp: list[int] = specials) -> str:
            return str(next(t for t in sp if e.alive[t]))

        pol = by_kind(wolf_target=target, protect=str(e.wolves[0]), vote="abstain")
        play(e, pol, until=lambda e, s, d: e.night == 3)
        villagers_alive = sum(e.alive[s] for s in range(8) if e.role[s] == "villager")
        assert villagers_alive == 4 and not any(e.alive[s] for s in specials)
        assert e.is_over() is (scope == "both")
        if scope == "both":
            assert e.outcome().label == "wolves_win" and e.night == 2


def test_belief_end_asks_every_seat_before_roles_are_revealed() -> None:
    e = engine(belief_reports="end", max_days=2)
    asked: list[int] = []

    def belief(e: WerewolfEngine, s: int, d: object) -> dict[str, object]:
        asked.append(s)
        assert not events(e, "game_over")
        return {"belief": {e.n((s + 1) % 8): 0.9, str((s + 2) % 8): 0.1, str(s): 0.5}}

    play(e, by_kind(belief=belief))
    assert asked == list(range(8))
    reports = [ev for ev in e.log if ev.type == "belief"]
    assert len(reports) == 8 and all(ev.visibility.scope == "god" for ev in reports)
    assert reports[0].payload == {"seat": 0, "beliefs": {1: 0.9, 2: 0.1}}  # self dropped
    assert e.log.index(reports[-1]) < next(
        i for i, ev in enumerate(e.log) if ev.type == "game_over"
    )


def test_belief_end_of_day_asks_alive_seats_each_day_and_none_never() -> None:
    e = engine(belief_reports="end_of_day", max_days=3, allow_abstain=True)
    rounds: list[tuple[int, list[int]]] = []

    def belief(e: WerewolfEngine, s: int, d: object) -> str:
        if s == min(e.sim_seats):
            rounds.append((e.day, list(e.sim_seats)))
        return "pass"

    play(e, by_kind(belief=belief, **never_kill(e)))
    assert [d for d, _ in rounds] == [1, 2, 3]
    assert all(seats == e.alive_seats() for _, seats in rounds)
    e = engine(belief_reports="none", max_days=2)
    assert play(e, until=first("belief")) is None


def test_dead_seat_stops_observing_unless_dead_observe() -> None:
    for observe in (False, True):
        e = engine(dead_observe=observe, first_phase="day", max_days=3)
        victim = next(s for s in range(8) if e.role[s] == "villager")
        play(e, by_kind(vote=lambda e, s, d, v=victim: str(v) if s != v else None))
        exile_idx = next(i for i, ev in enumerate(e.log) if ev.type == "exile")
        later_public = [ev for ev in e.log[exile_idx + 1 :] if ev.visibility.scope == "public"]
        seen = e.visible_log(victim)
        if observe:
            assert all(ev in seen for ev in later_public)
        else:
            assert [ev for ev in later_public if ev in seen and ev.type != "game_over"] == []
            assert seen[-1].type == "game_over"
            assert e.state(victim)["alive"] == e.frozen[victim]["alive"]
