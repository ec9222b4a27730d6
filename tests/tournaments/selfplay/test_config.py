"""The self-play config: every problem named once, good configs parse."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena.errors import ConfigError
from tournaments.selfplay.config import parse


def good(**change: Any) -> dict[str, Any]:
    raw: dict[str, Any] = {
        "game": "dealornodeal",
        "base": {"kind": "llm", "params": {"backend": {"model": "scripted"}}},
        "styles": ["Be brief."],
        "panel": [{"name": "bot", "kind": "rule"}],
    }
    raw.update(change)
    return raw


def problems(raw: dict[str, Any]) -> list[str]:
    with pytest.raises(ConfigError) as err:
        parse(raw, source="c")
    return err.value.problems


def test_a_good_config_parses_with_defaults() -> None:
    config = parse(good())
    assert config.game == "dealornodeal"
    assert config.units.gate == 32 and config.gate.alpha == 0.05
    assert config.selection.k == 2.0


def test_schema_problems_are_one_message_each() -> None:
    found = problems(good(population=1, units={"gate": 1}, colour="blue"))
    assert found == [
        "c: population: Input should be greater than or equal to 2",
        "c: units.gate: Input should be greater than or equal to 2",
        "c: colour: unknown field",
    ]


def test_cross_field_problems_are_all_reported(tmp_path: Path) -> None:
    found = problems(
        good(
            base={"kind": "rule"},
            panel=[{"name": "bot", "kind": "nosuch"}, {"name": "c-x", "kind": "rule"}],
            operators={"mutate": 1, "restyle": 1},
            styles=[],
            elites=4,
            population=4,
            reflector="magic",
            seed_context={"bank": str(tmp_path / "missing.sqlite")},
            units={"seats": [0, 5]},
        )
    )
    text = "\n".join(found)
    for needle in [
        "base.kind: candidates are LLM contexts",
        "panel.0.kind: unknown agent kind 'nosuch'",
        "panel.1.name: names starting 'c-' are kept for candidates",
        "operators.mutate: unknown operator",
        "styles: the restyle operator needs a pool of styles",
        "elites: must be smaller than population",
        "reflector: scripted, scripted:directives or a backend mapping",
        "seed_context.bank: no such bank",
        "units.seats.1: seat 5 outside 0..1",
    ]:
        assert needle in text, (needle, found)
    assert len(found) == 9


def test_the_context_owns_style_and_memory() -> None:
    found = problems(good(base={"kind": "llm", "params": {"style": "x", "memory": []}}))
    assert found == [
        "c: base.params.memory: set by the candidate's context (seed_context)",
        "c: base.params.style: set by the candidate's context (seed_context)",
    ]


def test_unknown_game_and_phase() -> None:
    assert problems(good(game="chess")) == [
        "c: game: unknown game 'chess'" + problems(good(game="chess"))[0].split("'chess'")[1]
    ]
    found = problems(good(budget={"per_phase": {"lunch": {"games": 3}}}))
    assert "unknown phase(s) ['lunch']" in found[0]


def test_every_selfplay_example_is_valid() -> None:
    """Self-play examples live apart from tournament examples (a different schema)."""
    from pathlib import Path

    from tournaments.selfplay.config import load as load_selfplay

    root = Path(__file__).resolve().parents[3] / "tournaments" / "examples" / "selfplay"
    examples = sorted(root.glob("*.yaml"))
    assert examples
    for path in examples:
        load_selfplay(path)


def test_replay_and_selection_knobs_are_validated() -> None:
    config = parse(good(replay={"fraction": 0.25, "buffer": 50, "alpha": 2}))
    assert config.replay.games(40) == 10 and config.replay.buffer == 50
    assert parse(good()).replay.games(1000) == 0  # off by default
    found = problems(
        good(
            replay={"fraction": -1, "buffer": 0, "alpha": 30},
            selection={"replicates": -1, "replicate_share": 0, "pareto": "maybe"},
        )
    )
    assert found == [
        "c: selection.pareto: Input should be a valid boolean, unable to interpret input",
        "c: selection.replicates: Input should be greater than or equal to 0",
        "c: selection.replicate_share: Input should be greater than 0",
        "c: replay.fraction: Input should be greater than or equal to 0",
        "c: replay.buffer: Input should be greater than or equal to 1",
        "c: replay.alpha: Input should be less than or equal to 20",
    ]
    assert problems(good(replay={"fraction": 0.5, "rare": 0, "split": 0})) == [
        "c: replay: rare + split must be > 0 (no state would have a priority)"
    ]


def test_rules_and_panel_params_are_checked_as_arena_run_checks_them() -> None:
    # one shared check (arena.config_checks): rules strictly typed, panel params known
    found = problems(
        good(
            rules={"max_turns": True},
            panel=[{"name": "bot", "kind": "rule", "params": {"colour": 1}}],
        )
    )
    assert found == [
        "c: rules.max_turns: Input should be a valid integer",
        "c: panel.0.params: unknown parameter(s) ['colour'] for linear; accepted: beta, slip",
    ]


def test_field_values_and_cross_field_problems_are_reported_in_one_pass() -> None:
    """A bad value (population), an unknown game and a bad operator: all at once."""
    found = problems(good(population=1, game="chess", operators={"mutate": 1.0}))
    for needle in ("population", "game: unknown game 'chess'", "operators.mutate: unknown"):
        assert any(needle in p for p in found), (needle, found)
    found = problems(good(repeats=0, panel=[{"name": "c-1", "kind": "random", "x": 1}]))
    for needle in ("repeats", "panel.0.x", "panel.0.name: names starting 'c-'"):
        assert any(needle in p for p in found), (needle, found)
