"""Ground truth as a timeline: the runner records facts as they change; Knowledge reads them."""

from __future__ import annotations

import asyncio

from arena.events import Event, Visibility
from arena.facts import FactTracker, Knowledge, fact_id
from arena.results import MatchSpec
from arena.runner import MatchRunner
from arena.sinks import MemorySink
from arena.types import PrivateFact
from games.werewolf.bots import BOTS


def fact(owner: int, kind: str, audience: tuple[int, ...], public: bool = False) -> PrivateFact:
    return PrivateFact(owner=owner, kind=kind, key=kind, value="v", audience=audience,
                       public=public)  # fmt: skip


def god(seq: int, type: str, facts: list[PrivateFact]) -> Event:
    return Event(type=type, seq=seq, visibility=Visibility.god(),
                 payload={"facts": [f.model_dump(mode="json") for f in facts]})  # fmt: skip


def test_tracker_reports_new_grown_and_public_facts_only() -> None:
    a, b = fact(0, "role", (0,)), fact(1, "role", (1,))
    tracker = FactTracker([a, b])
    assert tracker.changes([a, b]) == []
    grown = fact(1, "role", (1, 2))
    assert tracker.changes([a, grown]) == [grown]
    born = fact(2, "night_result", (2,))
    assert tracker.changes([a, grown, born]) == [born]
    shown = fact(0, "role", (0,), public=True)
    assert tracker.changes([shown, grown, born]) == [shown]
    assert tracker.changes([shown, grown, born]) == []


def test_knowledge_answers_who_knew_what_when() -> None:
    side = fact_id(1, "side", "side")
    k = Knowledge(
        [
            god(1, "ground_truth", [fact(1, "side", (1,))]),
            god(5, "facts", [fact(1, "side", (1, 3)), fact(3, "night_result", (3,))]),
            god(9, "facts", [fact(1, "side", (1, 3), public=True)]),
        ]
    )
    assert not k.knew(3, side, 4) and k.knew(3, side, 5)
    assert k.knew(1, side, 1) and not k.knew(0, side, 8) and k.knew(0, side, 9)
    assert k.authorised(side, 2) == {1} and k.authorised(side, 6) == {1, 3}
    assert k.authorised(side, 9) is None  # public
    born = fact_id(3, "night_result", "night_result")
    assert not k.knew(3, born, 4) and k.knew(3, born, 5)  # nobody knows a fact before its birth
    assert {f["kind"] for f in k.known_by(3, 4)} == {"side"} - {"side"}
    assert {f["kind"] for f in k.known_by(3, 5)} == {"side", "night_result"}
    assert [f["audience"] for f in k.initial() if f["kind"] == "side"] == [[1]]


def test_knowledge_never_shrinks_and_reads_setup_only_records() -> None:
    k = Knowledge([god(1, "ground_truth", [fact(0, "role", (0, 2))]),
                   god(4, "facts", [fact(0, "role", (0, 3))])])  # fmt: skip
    assert k.authorised(fact_id(0, "role", "role"), 4) == {0, 2, 3}
    old = Knowledge([god(1, "ground_truth", [fact(0, "role", (0,))])])
    assert old.authorised(fact_id(0, "role", "role"), 10_000) == {0}


def werewolf_match(seed: int, rules: dict) -> list[Event]:
    spec = MatchSpec(match_id=f"m{seed}", game="werewolf", seed=seed, rules=rules,
                     seats=["rule"] * 8)  # fmt: skip
    sink = MemorySink()
    agents = [BOTS["rule"](name="rule") for _ in range(8)]
    asyncio.run(MatchRunner(spec, agents, [sink]).run())
    return sink.events


def test_seer_inspections_and_the_final_reveal_reach_the_stream() -> None:
    for rules in ({}, {"seer_result": "role"}):
        events = werewolf_match(3, rules)
        k = Knowledge(events)
        facts_events = [e for e in events if e.type == "facts"]
        assert facts_events and all(e.visibility.scope == "god" for e in facts_events)
        results = [e for e in events if e.type == "seer_result"]
        assert results
        for r in results:
            seer, target = r.visibility.seats[0], r.payload["target"]
            side = fact_id(target, "side", "side")
            # recorded with the inspection's own events, before any further decision
            nxt = next(e for e in facts_events if e.seq > r.seq)
            assert not [e for e in events if r.seq < e.seq < nxt.seq and e.type == "decision"]
            assert k.knew(seer, side, nxt.seq) and not k.knew(seer, side, r.seq)
            role = fact_id(target, "role", "role")
            learns_role = rules.get("seer_result") == "role"
            assert k.knew(seer, role, nxt.seq) == (learns_role or k.knew(seer, role, r.seq))
        over = next(e.seq for e in events if e.type == "game_over")
        end = next(e.seq for e in events if e.type == "match_end")
        roles = [fact_id(s, "role", "role") for s in range(8)]
        hidden = [r for r in roles if k.authorised(r, over) is not None]
        assert hidden  # some roles were still secret when the game ended...
        assert all(k.authorised(r, end) is None for r in roles)  # ...and shown at its end
        shown = next(e for e in facts_events if e.seq > over)
        assert {fact_id(f["owner"], f["kind"], f["key"]) for f in shown.payload["facts"]} >= set(
            hidden
        )


def test_the_wolves_know_every_side_from_setup() -> None:
    events = werewolf_match(1, {})
    gt = next(e for e in events if e.type == "ground_truth").payload
    wolves = sorted(int(s) for s, t in gt["teams"].items() if t == "wolves")
    sides = [f for f in gt["facts"] if f["kind"] == "side"]
    assert len(sides) == 8
    for f in sides:
        assert set(wolves) | {f["owner"]} == set(f["audience"])
