"""One mechanism for named rule sets: a game's presets live on its RuleSet (``PRESETS``), and its
catalog variants name them, so every preset is covered by the per-variant tests."""

from __future__ import annotations

import pytest

from arena import registry
from arena.engine import RuleSet


@pytest.mark.parametrize("game", sorted(registry.games()))
def test_every_preset_is_a_catalog_variant(game: str) -> None:
    rules = registry.rules_class(game)
    variants = registry.get(game).variants
    for name, flags in rules.PRESETS.items():
        named = [v for v in variants.values() if v.get("preset") == name]
        assert named or (flags == {} and {} in variants.values()), f"{game}: preset {name}"
        picked = rules(preset=name)
        assert {k: getattr(picked, k) for k in flags} == flags


def test_the_base_ruleset_applies_presets_and_explicit_flags_win() -> None:
    class Demo(RuleSet):
        PRESETS = {"fast": {"turns": 3, "talk": False}}
        turns: int = 10
        talk: bool = True

    assert Demo(preset="fast") == Demo(turns=3, talk=False)  # type: ignore[call-arg]
    assert Demo(preset="fast", turns=5) == Demo(turns=5, talk=False)  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="unknown preset 'slow'; choose one of \\['fast'\\]"):
        Demo(preset="slow")  # type: ignore[call-arg]
