"""The importable conformance checks (``arena.testing``) pass a sound game and catch a broken one."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from arena import registry, testing
from tests.arena import toygame


class LeakyEngine(toygame.ToyEngine):
    """The toy game, but every seat's state tells everyone's secret number."""

    def state(self, seat: int | None) -> dict[str, Any]:
        return {**super().state(seat), "secrets": {str(s): v for s, v in enumerate(self.secrets)}}


def leaky_env(**rules: Any) -> Any:
    from arena.env import ArenaEnv

    return ArenaEnv(LeakyEngine, **rules)


def test_a_sound_game_passes_every_check() -> None:
    ran = testing.check_game("toy")
    assert {"check_api", "check_call_order", "check_no_leaks", "check_bot[lowest]"} <= set(ran)
    assert "check_registration" in ran and "check_snapshot_restore" in ran


def test_a_state_that_tells_a_secret_fails_the_leak_check(monkeypatch: pytest.MonkeyPatch) -> None:
    info = dataclasses.replace(
        toygame.INFO,
        game="leakytoy",
        env_id="arena/LeakyToy-v0",
        engine="tests.arena.test_testing:LeakyEngine",
        env="tests.arena.test_testing:leaky_env",
    )
    monkeypatch.setitem(registry._GAMES, "leakytoy", info)
    with pytest.raises(testing.ConformanceError, match="seat 0's state shows a private fact"):
        testing.check_no_leaks("leakytoy", {})


def test_an_env_id_without_a_version_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    info = dataclasses.replace(toygame.INFO, game="oldtoy", env_id="arena/OldToy")
    monkeypatch.setitem(registry._GAMES, "oldtoy", info)
    with pytest.raises(testing.ConformanceError, match="carries no -vN version"):
        testing.check_registration("oldtoy")
