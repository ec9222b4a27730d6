"""Shared fixtures: the toy game is registered for core tests that must not depend on a real
game, and one scripted LLM server on loopback serves every test that asks for ``scripted``."""

from __future__ import annotations

import os
import random
import time
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from arena import registry
from arena.llm.config import BackendConfig
from arena.llm.fakes.scripted import Fault, ScriptedEngine, parse_latency
from arena.llm.server import ServerThread
from tests.arena import toygame

registry.register_game(toygame.INFO)
os.environ.setdefault("HF_HUB_OFFLINE", "1")

# Property tests: no per-example deadline (a loaded 2-core machine is not a bug), and in CI a
# derandomized search so a run is reproducible; locally hypothesis explores freely.
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile(
    "ci", deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """On a pytest-xdist worker, the tests marked slow come first (in the same order on every
    worker): the long ones start while the short ones can still fill the other workers, instead
    of one long test ending the run on one worker while the others idle."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist, called only where it runs
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadgroup`` means the groups of tests/scheduling.py."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from tests.scheduling import GroupScheduling  # imports xdist, a dev dependency

    return GroupScheduling(config, log)


class Scripted:
    """What the ``scripted`` fixture gives a test: the shared scripted ``arena serve``."""

    def __init__(self, server: ServerThread, engine: ScriptedEngine) -> None:
        self.server = server
        self.engine = engine

    @property
    def url(self) -> str:
        return self.server.url

    def faults(self, *kinds: str, retry_after: float = 1.0) -> None:
        for k in kinds:
            self.engine.queue.append(Fault(k, retry_after))

    def config(self, **kw: object) -> BackendConfig:
        base: dict[str, object] = {
            "base_url": self.url,
            "model": "scripted",
            # generous: only the hang test relies on a timeout firing, and it sets its own
            "timeout_s": 30.0,
            "backoff_base_s": 0.01,
            "backoff_max_s": 0.05,
        }
        base.update(kw)
        return BackendConfig.model_validate(base)


@pytest.fixture(scope="session")
def _server() -> Iterator[tuple[ServerThread, ScriptedEngine]]:
    """One scripted ``arena serve`` on a free loopback port for the session (per xdist worker):
    these tests exercise its answers, not its start-up."""
    engine = ScriptedEngine(seed=1, hang_s=5.0)
    with ServerThread(engine) as server:
        yield server, engine


def _reset(engine: ScriptedEngine) -> None:
    """The engine as freshly made: a test sees the same answers whichever tests ran before."""
    engine.queue.clear()
    engine.fault_rates = {}
    engine.retry_after_s = 1.0
    engine._latency = parse_latency("const:0")
    engine._rng = random.Random(f"scripted:{engine.seed}")
    engine.served = 0
    engine.requests.clear()
    engine.keep_requests = False


def _drain(engine: ScriptedEngine, bound_s: float = 30.0) -> None:
    """Wait (bounded) until no request is in flight: a request the previous test sent is
    handled, and recorded if recording is on, whenever the server reaches it, so on a loaded
    machine one could land in the next test's ``engine.requests`` (seen: a persona-dialogue
    prompt from the test before, without the marker the next test checks)."""
    deadline = time.monotonic() + bound_s
    while engine.in_flight and time.monotonic() < deadline:
        time.sleep(0.01)


@pytest.fixture
def scripted(_server: tuple[ServerThread, ScriptedEngine]) -> Iterator[Scripted]:
    server, engine = _server
    _drain(engine)
    _reset(engine)
    yield Scripted(server, engine)
    _reset(engine)
