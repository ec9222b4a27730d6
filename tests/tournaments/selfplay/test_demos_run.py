"""A self-play run whose operator is ``demonstrate``: the children read examples from their
parent's best train games, and the run ends with its usual report."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from arena.llm.fakes.context import ContextEngine
from arena.llm.server import ServerThread
from tests.tournaments.selfplay.selfplay_setup import small_config
from tournaments.selfplay.config import parse
from tournaments.selfplay.demos import HEADER
from tournaments.selfplay.driver import SelfPlay


def test_demonstrate_children_carry_examples_from_their_parents_games(tmp_path: Path) -> None:
    with ServerThread(ContextEngine(seed=1)) as server:
        raw = small_config(
            server.url,
            None,
            operators={"demonstrate": 1},
            metric="score",
            units={"train": 4, "select": 2, "gate": 4},
        )
        report = asyncio.run(SelfPlay(parse(raw), tmp_path / "sp").run())
    population = json.loads((tmp_path / "sp" / "r0" / "g001" / "population.json").read_text())
    children = [c for c in population if c["operator"] == "demonstrate"]
    assert children, [c["operator"] for c in population]
    for child in children:
        assert HEADER in child["extra_instructions"] and '"choice"' in child["extra_instructions"]
        assert child["parents"] and child["generation"] == 1
    assert report["repeats"][0]["stopped"] is None
