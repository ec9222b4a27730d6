from __future__ import annotations

import pytest

from arena.events import SCHEMA_VERSION, Event, GameEvent, Speech, Visibility, visible_events


def test_visibility_scopes() -> None:
    assert Visibility.public().visible_to(3)
    assert not Visibility.god().visible_to(3)
    assert Visibility.god().visible_to(None)  # spectators see everything
    team = Visibility.for_team("wolves", [1, 4])
    assert team.visible_to(4) and not team.visible_to(2)
    assert Visibility.private(2).visible_to(2) and not Visibility.private(2).visible_to(1)


def test_visibility_must_be_well_formed() -> None:
    with pytest.raises(ValueError):
        Visibility(scope="private")
    with pytest.raises(ValueError):
        Visibility(scope="public", seats=(1,))
    with pytest.raises(ValueError):
        Visibility(scope="team", seats=(1,))


def test_stamped_event_round_trips_and_comparable_drops_time() -> None:
    draft = GameEvent(
        type="x", payload={"a": 1, "latency_s": 0.3}, visibility=Visibility.private(1)
    )
    ev = Event.stamp(draft, run_id="r", match_id="m", seq=4)
    back = Event.model_validate_json(ev.model_dump_json())
    assert back == ev
    assert "ts" not in ev.comparable() and "latency_s" not in ev.comparable()["payload"]
    assert visible_events([ev], 2) == [] and visible_events([ev], 1) == [ev]


def test_audience_decides_delivery_and_must_stay_inside_the_visibility() -> None:
    team = Visibility.for_team("wolves", [1, 3])
    ev = GameEvent(type="x", visibility=team, audience=(3,))  # seat 1 no longer observes
    assert ev.delivered_to(3) and not ev.delivered_to(1) and ev.delivered_to(None)
    assert ev.delivered_seats(5) == (3,)
    with pytest.raises(ValueError):
        GameEvent(type="x", visibility=team, audience=(2,))
    with pytest.raises(ValueError):
        GameEvent(type="x", visibility=Visibility.god(), audience=(0,))
    with pytest.raises(ValueError):
        GameEvent(type="x", speech=Speech(body="hi"))  # speech needs a speaker


def test_a_v1_record_reads_with_the_audience_its_visibility_admits() -> None:
    line = (
        '{"type": "message", "phase": "day_1", "actor": 1, "payload": {"text": "hi"}, '
        '"visibility": {"scope": "team", "seats": [1, 2], "team": "wolves"}, "text": "B: hi", '
        '"v": 1, "run_id": "r", "match_id": "m", "seq": 7, "ts": 1.0}'
    )
    ev = Event.model_validate_json(line)
    assert ev.v == 1 and ev.audience is None and ev.speech is None
    assert ev.delivered_seats(4) == (1, 2) and not ev.delivered_to(0)
    public = Event.model_validate_json(
        line.replace('"scope": "team", "seats": [1, 2], "team": "wolves"', '"scope": "public"')
    )
    assert public.delivered_seats(3) == (0, 1, 2)
    assert (
        Event.stamp(GameEvent(type="x"), run_id="r", match_id="m", seq=0).v == SCHEMA_VERSION == 2
    )


def test_engine_fixes_the_audience_at_emission_from_the_observers() -> None:
    from tests.arena.toygame import ToyEngine

    class Leaving(ToyEngine):
        gone: set[int] = set()

        def observers(self) -> frozenset[int] | None:
            return frozenset(s for s in range(self.n_seats) if s not in self.gone)

    e = Leaving({"n_players": 4})
    e.gone = {2}
    pub = e.emit("news", "all hear this", actor=None)
    own = e.emit("act", "P2 waves", actor=2)
    team = e.emit("chat", "psst", visibility=Visibility.for_team("t", [1, 2]))
    side = e.emit("note", "for 2", visibility=Visibility.private(2))
    god = e.emit("truth", visibility=Visibility.god())
    assert pub.audience == (0, 1, 3)  # seat 2 stopped observing
    assert own.audience == (0, 1, 2, 3)  # a seat always receives what it did itself
    assert team.audience == (1,) and side.audience == (2,) and god.audience == ()
    e.gone = set()
    assert pub.audience == (0, 1, 3)  # fixed for good when emitted
    assert pub not in e.visible_log(2) and side in e.visible_log(2)


def test_speech_text_is_rendered_from_structure_and_own_lines_read_you() -> None:
    from arena.transcript import line
    from tests.arena.toygame import ToyEngine

    e = ToyEngine({"n_players": 3})
    wolves = Visibility.for_team("wolves", [0, 1])
    a = e.emit_speech("message", 0, "hello")
    b = e.emit_speech("wolf_message", 0, "kill P2", visibility=wolves)
    c = e.emit_speech("message", 0, "psst", visibility=Visibility.private(0, 2))
    d = e.emit_speech("last_words", 1, "bye", label="last words")
    assert [x.text for x in (a, b, c, d)] == [
        "P0: hello", "[wolves] P0: kill P2", "P0 → P2 (private): psst", "P1 (last words): bye"
    ]  # fmt: skip
    names = e.names
    assert [line(x, 0, names) for x in (a, b, c)] == [
        "You: hello", "[wolves] You: kill P2", "You → P2 (private): psst"
    ]  # fmt: skip
    assert line(c, 2, names) == "P0 → you (private): psst"
    assert line(d, 1, names) == "You (last words): bye" and line(d, 0, names) == d.text
    with pytest.raises(ValueError):
        e.emit("message", "P0: typed by hand", actor=0, speech=Speech(body="x"))


def test_an_emitted_event_copies_like_a_validated_one() -> None:
    from arena.events import GameEvent, Visibility

    fast = GameEvent.emitted("note", "day", 1, {"k": 1}, Visibility.public(), "t", (0, 1), None)
    slow = GameEvent(type="note", phase="day", actor=1, payload={"k": 1}, text="t", audience=(0, 1))
    assert fast.model_copy(update={"text": "u"}).text == "u"
    assert fast.model_dump() == slow.model_dump()
