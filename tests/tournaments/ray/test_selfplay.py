"""Self-play through the Ray executor: its games are tournament matches, so the executor the
command sets plays them, and the run reaches the champion, bank and ratings asyncio reaches."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

pytest.importorskip("ray")

from arena.llm.fakes.context import ContextEngine
from arena.llm.server import ServerThread
from tests.tournaments.ray.ray_setup import ray_cluster  # noqa: F401
from tests.tournaments.selfplay.selfplay_setup import raw_config, seed_bank
from tests.tournaments.selfplay.test_driver import _fingerprint
from tournaments.executor import use_executor
from tournaments.ray.executor import RayExecutor
from tournaments.selfplay.config import parse
from tournaments.selfplay.driver import SelfPlay

pytestmark = [pytest.mark.usefixtures("ray_cluster"), pytest.mark.ray_isolated]


def test_selfplay_on_ray_reaches_what_selfplay_on_asyncio_reaches(tmp_path: Path) -> None:
    with ServerThread(ContextEngine(seed=1)) as server:
        small = {"generations": 1, "units": {"train": 2, "select": 2, "gate": 4}}
        raw = raw_config(server.url, seed_bank(tmp_path / "seed.sqlite"), **small)
        asyncio.run(SelfPlay(parse(raw), tmp_path / "aio").run())
        executor = RayExecutor()
        with use_executor(executor):
            asyncio.run(SelfPlay(parse(raw), tmp_path / "ray").run())
    assert executor.tasks >= 1 and executor.reruns == 0
    assert _fingerprint(tmp_path / "ray") == _fingerprint(tmp_path / "aio")
