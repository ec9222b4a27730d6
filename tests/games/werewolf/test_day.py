"""Day discussion (§6): round robin, random order, bidding, async ticks, polls, last words."""

from __future__ import annotations

from arena.types import Decision
from games.werewolf.rules import WerewolfEngine
from tests.games.werewolf.helpers import by_kind, events, first, play, seat_of

BASE = {"belief_reports": "none", "wolf_discussion_rounds": 0}


def engine(seed: int = 1, **rules: object) -> WerewolfEngine:
    return WerewolfEngine({**BASE, **rules}, seed=seed)


def day_turns(e: WerewolfEngine, day: int) -> list[int]:
    out, current = [], 0
    for ev in e.log:
        if ev.type == "phase" and ev.payload["phase"] == "day":
            current = ev.payload["number"]
        elif ev.type == "turn" and current == day:
            out.append(ev.payload["seat"])
    return out


def test_round_robin_rotates_start_seat_each_day() -> None:
    e = engine(first_phase="day", discussion_rounds=2, max_days=3, tie_rule="no_exile")
    play(e, by_kind(vote=lambda e, s, d: d.option_ids[0], wolf_target=None))
    alive1 = list(range(8))
    assert day_turns(e, 1) == alive1 * 2
    d2 = day_turns(e, 2)
    assert d2 and d2[0] == min(s for s in d2 if s > 0)
    assert len(d2) == 2 * len(set(d2))


def test_round_robin_fixed_always_starts_at_lowest_alive_seat() -> None:
    e = engine(first_phase="day", first_speaker="fixed", max_days=3)
    play(e)
    for day in (1, 2):
        turns = day_turns(e, day)
        if turns:
            assert turns[0] == min(turns)


def test_random_order_permutes_each_round_or_reuses() -> None:
    fresh_differs = False
    for seed in range(5):
        e = engine(
            seed=seed, first_phase="day", discussion_mode="random_order", discussion_rounds=3
        )
        play(e, until=first("vote"))
        turns = day_turns(e, 1)
        rounds = [turns[i : i + 8] for i in range(0, 24, 8)]
        assert all(sorted(r) == list(range(8)) for r in rounds)
        fresh_differs |= len({tuple(r) for r in rounds}) > 1
        e = engine(
            seed=seed, first_phase="day", discussion_mode="random_order",
            discussion_rounds=3, random_order_reuse=True,
        )  # fmt: skip
        play(e, until=first("vote"))
        turns = day_turns(e, 1)
        assert turns[:8] == turns[8:16] == turns[16:24]
    assert fresh_differs


def test_messages_are_public_and_pass_is_silent() -> None:
    e = engine(first_phase="day")
    play(e, by_kind(speak=lambda e, s, d: {"text": f"hello from {s}"} if s % 2 else "pass"),
         until=first("vote"))  # fmt: skip
    msgs = events(e, "message")
    assert [m["seat"] for m in msgs] == [1, 3, 5, 7]
    assert all(ev.visibility.scope == "public" for ev in e.log if ev.type == "message")


def test_bidding_excludes_previous_speaker_and_ends_on_zero() -> None:
    e = engine(first_phase="day", discussion_mode="bidding", bidding_max_turns=5)
    bidders_per_round: list[list[int]] = []

    def bid(e: WerewolfEngine, s: int, d: object) -> str:
        if not bidders_per_round or s == min(e.sim_seats):
            bidders_per_round.append(list(e.sim_seats))
        return "2" if len(bidders_per_round) <= 2 else "0"

    play(e, by_kind(bid=bid), until=first("vote"))
    turns = day_turns(e, 1)
    assert len(turns) == 2 and len(bidders_per_round) == 3
    assert turns[0] not in bidders_per_round[1] and len(bidders_per_round[0]) == 8
    bid_events = [ev for ev in e.log if ev.type == "bid"]
    assert bid_events and all(ev.visibility.scope == "god" for ev in bid_events)


def test_bidding_max_turns_and_visible_bids() -> None:
    e = engine(first_phase="day", discussion_mode="bidding", bidding_max_turns=3, bids_visible=True)
    play(e, by_kind(bid="1"), until=first("vote"))
    assert len(day_turns(e, 1)) == 3
    assert all(ev.visibility.scope == "public" for ev in e.log if ev.type == "bid")


def test_bidding_highest_bid_wins() -> None:
    e = engine(first_phase="day", discussion_mode="bidding", bidding_max_turns=1)
    play(e, by_kind(bid=lambda e, s, d: "4" if s == 5 else "1"), until=first("vote"))
    assert day_turns(e, 1) == [5]


def test_bidding_tie_lottery_gives_named_player_an_extra_ticket() -> None:
    wins = 0
    trials = 300
    for seed in range(trials):
        e = engine(seed=seed, first_phase="day", discussion_mode="bidding", bidding_max_turns=2)
        a, b = 3, 6
        name_a = e.n(a)

        def speak(e: WerewolfEngine, s: int, d: object, name: str = name_a) -> dict[str, str]:
            return {"text": f"{name}, what do you think?"}

        def bid(e: WerewolfEngine, s: int, d: object, a: int = a, b: int = b) -> str:
            if e.turns == 0:
                return "4" if s == 0 else "0"
            return "3" if s in (a, b) else "0"

        play(e, by_kind(bid=bid, speak=speak), until=first("vote"))
        second = day_turns(e, 1)[1]
        assert second in (a, b)
        wins += second == a
    assert 0.56 < wins / trials < 0.78  # 2 tickets of 3 -> 2/3


def test_async_quiet_ticks_end_the_day() -> None:
    e = engine(first_phase="day", discussion_mode="async", async_quiet_ticks=3)
    play(e, by_kind(async_tick="wait"), until=first("vote"))
    ticks = events(e, "tick")
    assert [t["tick"] for t in ticks] == [1, 2, 3] and all(t["messages"] == 0 for t in ticks)


def test_async_messages_delivered_together_and_capped() -> None:
    e = engine(first_phase="day", discussion_mode="async", async_max_ticks=6,
               async_max_msgs_per_player=2, async_quiet_ticks=5)  # fmt: skip
    seen_capped = []

    def tick(e: WerewolfEngine, s: int, d: object) -> object:
        if s in (2, 4):
            if not d.free_text:  # type: ignore[attr-defined]
                seen_capped.append((s, e.tick))
                return "wait"
            return {"text": f"seat {s} tick {e.tick}"}
        return "wait"

    play(e, by_kind(async_tick=tick), until=first("vote"))
    msgs = events(e, "message")
    assert [m["tick"] for m in msgs] == [1, 1, 2, 2]
    assert {m["seat"] for m in msgs} == {2, 4}
    assert {s for s, t in seen_capped} == {2, 4} and min(t for _, t in seen_capped) == 3
    assert events(e, "tick")[-1]["tick"] == 6  # 4 quiet ticks < 5: ran to max ticks


def test_async_delivery_order_uses_engine_rng() -> None:
    orders = set()
    for seed in range(10):
        e = engine(seed=seed, first_phase="day", discussion_mode="async", async_max_ticks=1)
        play(e, by_kind(async_tick=lambda e, s, d: {"text": f"m{s}"}), until=first("vote"))
        orders.add(tuple(m["seat"] for m in events(e, "message")))
    assert len(orders) > 1 and all(sorted(o) == list(range(8)) for o in orders)


def test_poll_after_each_turn_is_private_and_non_binding() -> None:
    e = engine(first_phase="day", poll_after_each_turn=True)
    play(e, until=first("vote"))
    polls = [ev for ev in e.log if ev.type == "poll"]
    assert len(polls) == 8 * 8
    assert all(ev.visibility.scope == "god" for ev in polls)
    e = engine(first_phase="day")
    play(e, until=first("vote"))
    assert events(e, "poll") == []


def exile_day1(e: WerewolfEngine, target: int) -> dict[str, object]:
    return {"vote": lambda e, s, d: str(target) if s != target else None}


def test_last_words_modes() -> None:
    cases = {
        "none": (0, 0),
        "exiled": (0, 1),
        "all_deaths": (1, 1),
        "first_night_and_exiled": (1, 1),
    }
    for mode, (night_lw, exile_lw) in cases.items():
        e = engine(last_words=mode)
        doc = seat_of(e, "doctor")
        victim = next(s for s in range(8) if e.role[s] == "villager")
        target = next(s for s in range(8) if e.role[s] == "villager" and s != victim)
        pol = by_kind(
            wolf_target=str(victim), protect=str(doc), last_words={"text": "farewell"},
            **exile_day1(e, target),
        )  # fmt: skip
        play(e, pol, until=lambda e, s, d: e.night == 2)
        lw = events(e, "last_words")
        assert [x["seat"] for x in lw] == [victim] * night_lw + [target] * exile_lw, mode


def test_first_night_and_exiled_skips_later_night_victims() -> None:
    e = engine(last_words="first_night_and_exiled", allow_abstain=True)
    doc = seat_of(e, "doctor")
    vill = [s for s in range(8) if e.role[s] == "villager"]
    pol = by_kind(
        wolf_target=lambda e, s, d: str(vill[e.night - 1]), protect=str(doc),
        vote="abstain", last_words={"text": "bye"},
    )  # fmt: skip
    play(e, pol, until=lambda e, s, d: e.day == 2 and d.kind == "speak")
    assert [d["dead"] for d in events(e, "dawn")] == [[vill[0]], [vill[1]]]
    assert [x["seat"] for x in events(e, "last_words")] == [vill[0]]


def test_a_turn_to_speak_offers_the_seats_own_sentences_and_knowledge() -> None:
    e = engine(seed=3, first_phase="night", max_days=2)
    seen: list[tuple[int, list[str], str]] = []

    def speak(e: WerewolfEngine, s: int, d: Decision) -> str:
        seen.append((s, list(d.menu), d.prompt))
        return "pass"

    play(e, by_kind(speak=speak))
    assert seen
    for s, menu, prompt in seen:
        others = [e.n(t) for t in range(e.n_seats) if t != s]
        assert f"You are {e.n(s)}." in prompt
        assert not any(e.n(s) in m.split() or m.startswith(e.n(s) + " ") for m in menu)
        assert all(m.startswith("I suspect ") or " is " in m for m in menu)
        assert {m[len("I suspect ") : -1] for m in menu if m.startswith("I suspect ")} <= set(
            others
        )
    seer = e.role.index("seer")
    said = [m for s, menu, _ in seen if s == seer for m in menu if " is " in m]
    results = e.seer_results.get(seer, {})
    assert said and all(any(m.startswith(e.n(t) + " ") for t in results) for m in said)
