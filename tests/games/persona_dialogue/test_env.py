"""PettingZoo conformance of every catalog variant."""

from __future__ import annotations

import pettingzoo
import pytest
from pettingzoo.test import api_test, seed_test

import arena
from arena import registry

VARIANTS = registry.get("persona_dialogue").variants


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_api_test_passes(variant: str) -> None:
    env = pettingzoo.make("aec", "arena/PersonaDialogue-v0", **VARIANTS[variant])
    api_test(env, num_cycles=60)


@pytest.mark.parametrize("variant", ["round_robin", "free_for_all", "interrogation"])
def test_seed_test_passes(variant: str) -> None:
    rules = VARIANTS[variant]
    seed_test(lambda: pettingzoo.make("aec", "arena/PersonaDialogue-v0", **rules), num_cycles=30)


def test_variants_cover_modes_and_a_multi_party_scenario() -> None:
    assert {"round_robin", "free_for_all", "interrogation"} <= set(VARIANTS)
    env = pettingzoo.make("aec", "arena/PersonaDialogue-v0", **VARIANTS["party4"])
    assert len(env.possible_agents) == 4
    assert arena.__version__
