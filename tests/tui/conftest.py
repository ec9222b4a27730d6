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


def _werewolf_run(tmp: Path, seating: str) -> Path:
    """One finished Werewolf match of rule bots and random players (``seating: balanced``
    chooses seats from the dealt roles, so that seating is secret; ``rotate`` is public)."""
    from tournaments.config import parse
    from tournaments.executor import Tournament

    config = parse(
        {
            "name": f"ww-{seating}",
            "game": "werewolf",
            "rules": {"preset": "classic8"},
            "agents": [
                {"name": "rule", "kind": "werewolf.rule"},
                {"name": "random", "kind": "random"},
            ],
            "lineups": [{"rule": 4, "random": 4}],
            "matches": 1,
            "seating": seating,
            "master_seed": 7,
            "output_dir": str(tmp),
        }
    )
    t = Tournament(config, tmp / "run", "run", extra_sinks=None)
    asyncio.run(t.run())
    return t.dir.root


@pytest.fixture(scope="session")
def secret_seating_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _werewolf_run(tmp_path_factory.mktemp("ww-secret"), "balanced")


@pytest.fixture(scope="session")
def public_seating_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _werewolf_run(tmp_path_factory.mktemp("ww-public"), "rotate")
