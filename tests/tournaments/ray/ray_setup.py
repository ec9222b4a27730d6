"""What the Ray tests share: the local cluster (one per test session) and what its worker
processes must know — the test-only games, registered in every worker by a setup hook (a
worker does not run conftest.py), with bots that kill their own worker on purpose."""

from __future__ import annotations

import dataclasses
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena import registry
from arena.agents.base import Agent
from arena.llm.config import BackendConfig
from arena.llm.messages import ChatRequest, ChatResult
from arena.types import Action, Decision, Observation
from tests.arena.toygame import INFO as TOY_INFO
from tests.arena.toygame import LowestAgent, ToyEngine

ROOT = Path(__file__).resolve().parents[3]
# Set in the child pytest process each Ray test runs in (tests/tournaments/ray/conftest.py).
CHILD = "ARENA_RAY_TEST_CHILD"


def in_child() -> bool:
    return bool(os.environ.get(CHILD))


class RayToyEngine(ToyEngine):
    game = "raytoy"


class DiesOnceAgent(Agent):
    """Plays the lowest option, but SIGKILLs its worker process (no cleanup, as the OOM killer
    or a lost node would) the first time it acts in match ``match`` — ``marker`` remembers
    across processes that it did."""

    kind = "dies_once"

    def __init__(
        self, name: str | None = None, marker: str = "", match: str = "", **params: Any
    ) -> None:
        super().__init__(name, **params)
        self.marker, self.match = marker, match

    async def act(self, observation: Observation, decision: Decision) -> Action | str:
        if observation.match_id == self.match and not os.path.exists(self.marker):
            Path(self.marker).write_text(str(os.getpid()))
            os.kill(os.getpid(), signal.SIGKILL)
        return decision.options[0].id


class DiesAlwaysAgent(Agent):
    """Kills its worker every time it acts in match ``match``: that match can never finish."""

    kind = "dies_always"

    def __init__(self, name: str | None = None, match: str = "", **params: Any) -> None:
        super().__init__(name, **params)
        self.match = match

    async def act(self, observation: Observation, decision: Decision) -> Action | str:
        if observation.match_id == self.match:
            os._exit(1)
        return decision.options[0].id


BOTS = {"lowest": LowestAgent, "dies_once": DiesOnceAgent, "dies_always": DiesAlwaysAgent}

GAMES = [
    TOY_INFO,
    # the toy game under another name, with the bots that kill their worker
    dataclasses.replace(
        TOY_INFO,
        game="raytoy",
        env_id="arena/RayToy-v0",
        engine="tests.tournaments.ray.ray_setup:RayToyEngine",
        bots="tests.tournaments.ray.ray_setup:BOTS",
        description="test-only toy game whose bots can kill their worker",
    ),
]


def setup() -> None:
    """Ray's ``worker_process_setup_hook``: runs in every worker and actor process."""
    for info in GAMES:
        if info.game not in registry.games():
            registry.register_game(info)


setup()  # the test process too (toy is registered by conftest.py already)


class EchoModel:
    """A scripted model for actor tests: the reply names the request's last message (so a
    reply can be checked against its request) and every batch waits ``delay_s`` (so calls are
    still in flight when a test kills the actor)."""

    def __init__(self, delay_s: float) -> None:
        self.delay_s = delay_s

    def run_batch(
        self, requests: list[ChatRequest], rank: bool = True, kv: Any = None
    ) -> list[ChatResult]:
        import time

        time.sleep(self.delay_s)
        return [
            ChatResult(text="echo:" + r.messages[-1]["content"], model="echo") for r in requests
        ]


def echo_model(config: BackendConfig) -> EchoModel:
    return EchoModel(delay_s=0.3)


@pytest.fixture(scope="session")
def ray_cluster() -> Iterator[Any]:
    """A two-CPU local cluster for the whole (child) session, shut down at its end. The
    parent process starts none: it only hands each Ray test to a child."""
    ray = pytest.importorskip("ray")
    if not in_child():
        yield None
        return
    started = not ray.is_initialized()
    if started:
        path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
        ray.init(
            num_cpus=2,
            include_dashboard=False,
            logging_level="warning",
            runtime_env={
                "env_vars": {
                    "PYTHONPATH": path,
                    "HF_HUB_OFFLINE": "1",
                    "TRANSFORMERS_OFFLINE": "1",
                },
                "worker_process_setup_hook": "tests.tournaments.ray.ray_setup.setup",
            },
        )
    yield ray
    if started and ray.is_initialized():
        ray.shutdown()
