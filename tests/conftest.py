"""Shared fixtures: the toy game is registered for core tests that must not depend on a real game."""

from __future__ import annotations

from arena import registry

registry.register_game(
    registry.GameInfo(
        game="toy",
        env_id="arena/Toy-v0",
        engine="tests.arena.toygame:ToyEngine",
        env="tests.arena.toygame:env",
        bots="tests.arena.toygame:BOTS",
        description="test-only toy game",
    )
)
