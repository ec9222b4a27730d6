"""The catalog variants. (api_test and seed_test of every variant:
tests/games/test_conformance.py.)"""

from __future__ import annotations

import pettingzoo

import arena
from arena import registry

VARIANTS = registry.get("persona_dialogue").variants


def test_variants_cover_modes_and_a_multi_party_scenario() -> None:
    assert {"round_robin", "free_for_all", "interrogation"} <= set(VARIANTS)
    env = pettingzoo.make("aec", "arena/PersonaDialogue-v0", **VARIANTS["party4"])
    assert len(env.possible_agents) == 4
    assert arena.__version__
