"""Fixtures: a scripted ``arena serve`` on a free loopback port, shared per module."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from arena.llm.config import BackendConfig
from arena.llm.fakes.scripted import ScriptedEngine, parse_latency
from arena.llm.server import ServerThread

os.environ.setdefault("HF_HUB_OFFLINE", "1")


class Scripted:
    def __init__(self, server: ServerThread, engine: ScriptedEngine) -> None:
        self.server = server
        self.engine = engine

    @property
    def url(self) -> str:
        return self.server.url

    def faults(self, *kinds: str, retry_after: float = 1.0) -> None:
        from arena.llm.fakes.scripted import Fault

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


@pytest.fixture(scope="module")
def _server() -> Iterator[tuple[ServerThread, ScriptedEngine]]:
    engine = ScriptedEngine(seed=1, hang_s=5.0)
    with ServerThread(engine) as server:
        yield server, engine


@pytest.fixture
def scripted(_server: tuple[ServerThread, ScriptedEngine]) -> Iterator[Scripted]:
    server, engine = _server
    engine.queue.clear()
    engine.fault_rates = {}
    engine._latency = parse_latency("const:0")
    yield Scripted(server, engine)
    engine.queue.clear()
    engine.fault_rates = {}
    engine._latency = parse_latency("const:0")
