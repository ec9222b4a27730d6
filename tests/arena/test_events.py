from __future__ import annotations

import pytest

from arena.events import Event, GameEvent, Visibility, visible_events


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
