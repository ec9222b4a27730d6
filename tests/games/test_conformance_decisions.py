"""Every decision an engine builds is a valid :class:`Decision`: engines build theirs without
pydantic validation on the step path (``Decision.trusted``), so the checks run here, over
every registered game and variant, on decisions met in real play."""

from __future__ import annotations

import random
from typing import Any

import pytest

from arena import registry
from arena.types import Decision, InvalidAction
from tests.games.fingerprints import _answer, variants

VARIANTS = [(g, v, rules) for g, v, _env, rules in variants()]


@pytest.mark.parametrize(
    ("game", "variant", "rules"), VARIANTS, ids=[f"{g}-{v}" for g, v, _ in VARIANTS]
)
def test_every_decision_met_in_play_validates(
    game: str, variant: str, rules: dict[str, Any]
) -> None:
    engine = registry.engine_class(game)(rules, seed=0)
    seen: set[str] = set()
    for seed in range(3):
        rng = random.Random(seed)
        engine.reset(seed)
        steps = 0
        while not engine.is_over() and steps < 3000:
            seat = engine.current_pending()[0]
            decision = engine.current_decision(seat)
            dumped = decision.model_dump()
            assert Decision.model_validate(dumped).model_dump() == dumped
            seen.add(decision.kind)
            info = {"legal": decision.option_ids, "free_text": decision.free_text,
                    "min_choices": decision.min_choices, "max_choices": decision.max_choices}  # fmt: skip
            try:
                engine.apply(seat, _answer(rng, info))
            except InvalidAction:  # an invalid random answer: the engine's fallback stands in
                engine.apply(seat, engine.fallback(seat))
            steps += 1
        assert engine.is_over()
    assert seen


def test_a_trusted_decision_names_only_real_fields() -> None:
    with pytest.raises(TypeError, match="no field"):
        Decision.trusted(kind="vote", optoins=[])
