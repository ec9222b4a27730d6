"""The Werewolf state machine dispatches through its tables: every stage method and every
continuation the engine defines is in them, and an unknown stage or tag is a KeyError."""

from __future__ import annotations

import pytest

from games.werewolf.rules import WerewolfEngine


def _methods(prefix: str) -> set[str]:
    return {name[len(prefix) :] for name in dir(WerewolfEngine) if name.startswith(prefix)}


def test_every_stage_and_continuation_method_is_in_a_table() -> None:
    stages = WerewolfEngine.STAGES
    assert _methods("_d_") == set(stages)
    assert _methods("_on_") == {s for s, st in stages.items() if st.on is not None}
    assert _methods("_resolve_") == {s for s, st in stages.items() if st.resolve is not None}
    assert _methods("_next_") == set(WerewolfEngine.NEXT)
    for name, stage in stages.items():  # each entry runs the method of its own name
        assert stage.decide is getattr(WerewolfEngine, f"_d_{name}")


def test_an_unknown_continuation_is_a_key_error() -> None:
    engine = WerewolfEngine({}, seed=1)
    with pytest.raises(KeyError, match="nowhere"):
        engine._continue("nowhere")
