"""Fixtures: a finished toy run directory and a recorded match."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.arena.live.helpers import toy_tournament


@pytest.fixture(scope="session")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("tui-run")
    t = toy_tournament(tmp, matches=4, concurrency=2)
    asyncio.run(t.run())
    return t.dir.root


@pytest.fixture
def record(run_dir: Path) -> Path:
    return sorted((run_dir / "matches").glob("*.jsonl"))[0]
