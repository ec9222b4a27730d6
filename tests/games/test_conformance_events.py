"""Declared event types: every event of every registered game (and variant) is declared.

Seeded bot games of each game and each catalog variant run through the runner; any event type
that is neither the game's declared speech/event types nor the core's own runner types fails.
Declared types that the game's code never names are flagged too, and so are the types the
consumers read (metrics, TUI) that nothing declares.
"""

from __future__ import annotations

import ast
import asyncio
import importlib
import inspect
from pathlib import Path
from typing import Any

import pytest

from arena import registry
from arena.agents import factory
from arena.match_record import RUNNER_EVENT_TYPES
from arena.metrics.settings import MetricsSettings
from arena.results import MatchSpec
from arena.runner import MatchRunner
from arena.sinks import MemorySink

SEEDS = range(4)
CASES = [
    (game, variant)
    for game, info in registry.games().items()
    for variant in (info.variants or {"default": {}})
]


def bot_kinds(game: str) -> list[str]:
    bots = registry.bots(game)
    return [k for k in ("rule", "random") if k in bots] or sorted(bots)[:2]


def play(game: str, rules: dict[str, Any], seed: int) -> set[str]:
    n = registry.engine_class(game)(rules, seed=seed).n_seats
    kinds = bot_kinds(game)
    seats = [kinds[(s + seed) % len(kinds)] for s in range(n)]
    spec = MatchSpec(match_id=f"{game}-{seed}", game=game, seed=seed, rules=rules, seats=seats)
    sink = MemorySink()
    agents = [factory.build(seats[s], seats[s], game) for s in range(n)]
    result = asyncio.run(MatchRunner(spec, agents, [sink]).run())
    assert result.status == "finished", result.reason
    return {e.type for e in sink.events}


@pytest.mark.parametrize(("game", "variant"), CASES)
def test_every_event_type_is_declared(game: str, variant: str) -> None:
    info = registry.get(game)
    rules = (info.variants or {"default": {}})[variant]
    declared = registry.event_types(game) | RUNNER_EVENT_TYPES
    seen: set[str] = set()
    for seed in SEEDS:
        seen |= play(game, rules, seed)
    assert seen - declared == set(), f"{game}/{variant} emits undeclared event types"
    assert seen & registry.event_types(game)  # the game's own events were seen at all


def test_declared_types_are_disjoint_from_the_core_and_within_a_game() -> None:
    for game, info in registry.games().items():
        assert not set(info.speech_types) & set(info.event_types), game
        assert not registry.event_types(game) & RUNNER_EVENT_TYPES, game
        assert len(set(info.event_types)) == len(info.event_types), game


def engine_strings(game: str) -> set[str]:
    """Every string literal in the source of the package (or module) holding the engine."""
    module = importlib.import_module(registry.get(game).engine.partition(":")[0])
    path = Path(inspect.getfile(module))
    files = [path] if path.parent.name == "arena" else sorted(path.parent.glob("*.py"))
    return {
        node.value
        for f in files
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }


@pytest.mark.parametrize("game", sorted(registry.games()))
def test_every_declared_type_is_named_by_the_game(game: str) -> None:
    """A declared type the engine's code never names is stale (like the old "wolf_chat"):
    bots may never reach some events (a persona's non-verbal "act"), so this is read from
    the source rather than from games."""
    strings = engine_strings(game)
    assert sorted(registry.event_types(game) - strings) == []


def test_consumers_read_only_declared_types() -> None:
    """The metrics scan the declared speech types; the TUI's type tests name declared types."""
    from tui import match_model as model

    everything = RUNNER_EVENT_TYPES.union(*(registry.event_types(g) for g in registry.games()))
    assert set(MetricsSettings().message_types) == set(registry.speech_types())
    assert set(model.ERROR_TYPES) <= everything
    assert "wolf_chat" not in everything and "llm_request" not in everything
