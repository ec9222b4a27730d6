"""A self-play run whose operator is ``demonstrate``: the children read examples from their
parent's best train games, and the run ends with its usual report."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import yaml

from arena.llm.fakes.context import ContextEngine
from arena.llm.server import ServerThread
from tests.tournaments.selfplay.selfplay_setup import small_config
from tournaments.selfplay.candidate import EXPLORING
from tournaments.selfplay.config import parse
from tournaments.selfplay.driver import SelfPlay


def run_demonstrating(root: Path, units: dict[str, Any]) -> dict[str, Any]:
    """A self-play run whose only operator is ``demonstrate``, on the context test server."""
    with ServerThread(ContextEngine(seed=1)) as server:
        raw = small_config(
            server.url, None, operators={"demonstrate": 1}, metric="score", units=units
        )
        report: dict[str, Any] = asyncio.run(SelfPlay(parse(raw), root).run())
    return report


def test_demonstrate_children_carry_examples_from_their_parents_games(tmp_path: Path) -> None:
    report = run_demonstrating(tmp_path / "sp", {"train": 4, "select": 2, "gate": 4})
    population = json.loads((tmp_path / "sp" / "r0" / "g001" / "population.json").read_text())
    children = [c for c in population if c["operator"] == "demonstrate"]
    assert children, [c["operator"] for c in population]
    for child in children:
        assert child["examples"] and child["extra_instructions"] is None
        assert all('"choice"' in e["answer"] and e["situation"] for e in child["examples"])
        assert child["parents"] and child["generation"] == 1
    # the child plays with its examples: its agent entry in generation 1 carries them
    g1 = tmp_path / "sp" / "r0" / "g001" / "play" / "config.yaml"
    entries = {a["name"]: a for a in yaml.safe_load(g1.read_text())["agents"]}
    for child in children:
        assert entries[child["id"]]["params"]["examples"] == child["examples"]
    assert report["repeats"][0]["stopped"] is None


def test_exploring_train_games_sample_while_select_games_play_as_the_base(
    tmp_path: Path,
) -> None:
    run_demonstrating(
        tmp_path / "sp", {"train": 2, "select": 2, "gate": 4, "train_temperature": 1.3}
    )
    g0 = tmp_path / "sp" / "r0" / "g000"
    agents = {
        a["name"]: a for a in yaml.safe_load((g0 / "play" / "config.yaml").read_text())["agents"]
    }
    seats = {}
    for path in sorted((g0 / "play" / "matches").glob("*.jsonl")):
        start = json.loads(path.read_text().splitlines()[0])
        seats[path.name] = start["payload"]["seats"]
    train = {k: v for k, v in seats.items() if re.search(r"-t\d{4}-", k)}
    select = {k: v for k, v in seats.items() if re.search(r"-s\d{4}-", k)}
    assert train and select
    for names in train.values():  # the candidate's train seat samples at 1.3
        (mine,) = [n for n in names.values() if n.startswith("c-")]
        assert mine.endswith(EXPLORING)
        assert agents[mine]["params"]["backend"]["temperature"] == 1.3
    for names in select.values():  # select games play the base as configured
        (mine,) = [n for n in names.values() if n.startswith("c-")]
        assert EXPLORING not in mine and "temperature" not in agents[mine]["params"]["backend"]
    # the exploring games are still the candidate's train games: demonstrations read them
    population = json.loads((tmp_path / "sp" / "r0" / "g001" / "population.json").read_text())
    assert any(c["operator"] == "demonstrate" for c in population)


def test_a_slot_no_operator_can_fill_is_on_record_with_the_reason(tmp_path: Path) -> None:
    # generation 0 has no train games yet, so `demonstrate` cannot make the seed a child
    run_demonstrating(tmp_path / "sp", {"train": 2, "select": 2, "gate": 4})
    g0 = tmp_path / "sp" / "r0" / "g000"
    assert len(json.loads((g0 / "population.json").read_text())) == 1  # the seed alone
    proposals = json.loads((g0 / "proposals.json").read_text())
    assert [p["slot"] for p in proposals] == [0, 1] and not any(p["filled"] for p in proposals)
    for p in proposals:
        assert len(p["attempts"]) == 6
        assert all(a["operator"] == "demonstrate" for a in p["attempts"])
        assert all("no train game of the parent" in a["outcome"] for a in p["attempts"])
    # generation 1 reads the seed's train games: its children are on record as filled
    g1 = json.loads((tmp_path / "sp" / "r0" / "g001" / "proposals.json").read_text())
    assert any(p["filled"] and p["attempts"][-1]["outcome"].startswith("child c-") for p in g1)
    summary = json.loads((g0 / "generation.json").read_text())
    assert summary["population"] == 3 and len(summary["candidates"]) == 1
