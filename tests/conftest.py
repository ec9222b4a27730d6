"""Shared fixtures: the toy game is registered for core tests that must not depend on a real game."""

from __future__ import annotations

from arena import registry
from tests.arena import toygame

registry.register_game(toygame.INFO)

# Property tests: no per-example deadline (a loaded 2-core machine is not a bug), and in CI a
# derandomized search so a run is reproducible; locally hypothesis explores freely.
import os  # noqa: E402

from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile(
    "ci", deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("ci" if os.environ.get("CI") else "dev")
