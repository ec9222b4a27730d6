"""The export's dataset card: harness health beside every entry and the run's conditions.

A real run through ``arena run``: an LLM entry against a scripted OpenAI-compatible server on
127.0.0.1 that answers garbage half the time, against a price-bargaining bot; then the card of
its export, in text and in its front matter, against the board ``arena leaderboard`` prints.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from arena.llm.fakes.scripted import ScriptedEngine
from arena.llm.server import ServerThread
from arena.ratings import board
from arena.store import Store
from tests.builders import BARGAINING_BOTS, llm_entry, run_bargaining
from tournaments.export import ExportOptions, export_run

GARBAGE_RATE = 0.5


@pytest.fixture(scope="module")
def garbled(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with ServerThread(ScriptedEngine(seed=3, fault_rates={"garbage": GARBAGE_RATE})) as server:
        yield run_bargaining(
            tmp_path_factory.mktemp("card"), "garbled", [llm_entry(server.url), BARGAINING_BOTS[0]]
        )


def card(run_dir: Path, out: Path) -> tuple[dict[str, Any], str]:
    """The exported card's front matter (``llm_arena``) and its text."""
    export_run(run_dir, ExportOptions(fmt="jsonl", out=out))
    text = (out / "README.md").read_text(encoding="utf-8")
    front = yaml.safe_load(text.split("---\n")[1])
    return front["llm_arena"], text


def test_the_card_carries_each_entrys_harness_errors_and_the_runs_fingerprint(
    garbled: Path, tmp_path: Path
) -> None:
    data, text = card(garbled, tmp_path / "out")
    store = Store(garbled / "arena.sqlite")
    results = store.results()
    store.close()
    expected = board.boards(results, bootstrap=100)[0]
    rows = {r["agent"]: r for r in data["leaderboard"]}
    # the card's health is the board's, figure for figure
    for row in expected["rows"]:
        assert rows[row["agent"]]["harness_error"] == row["health"]["refused"]
        assert rows[row["agent"]]["forfeit"] == row["health"]["forfeit"]
    model = rows["model"]["harness_error"]
    assert model["of"] >= 40 and model["low"] <= GARBAGE_RATE <= model["high"]
    assert "answers refused" in rows["model"]["flag"] and rows["boulware"]["flag"] is None
    assert rows["boulware"]["harness_error"]["share"] == 0.0
    shown = f"{model['share']:.1%} [{model['low']:.1%}, {model['high']:.1%}]"
    assert f"| {shown} |" in text and "Flagged: model." in text
    # one season; its fingerprint is the one every match recorded
    (season,) = data["conditions"]["seasons"]
    assert season["matches"] == len(results) and data["conditions"]["unknown_matches"] == 0
    assert {r.conditions["shared"] for r in results if r.conditions} == {season["shared"]}
    assert season["entries"] == results[0].conditions["entries"]  # type: ignore[index]
    assert f"fingerprint `{season['shared']}`" in text and "season 1 of 1" in text
    assert json.dumps(data)  # plain data all the way down


def test_a_run_with_two_conditions_shows_two_seasons_and_what_differs(
    garbled: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "run"
    shutil.copytree(garbled, copy)
    db = sqlite3.connect(copy / "arena.sqlite")
    # half the matches as if played before the model entry's prompt template was edited
    rows = db.execute("SELECT c.match_id, c.data FROM conditions c JOIN matches m"
                      " ON m.match_id = c.match_id ORDER BY m.idx").fetchall()  # fmt: skip
    for match_id, raw in rows[: len(rows) // 2]:
        doc = json.loads(raw)
        doc["entry"]["model"]["prompt"]["hash"] = "0" * 16
        doc["entries"]["model"] = "f" * 16
        db.execute("UPDATE conditions SET data=? WHERE match_id=?", (json.dumps(doc), match_id))
    db.commit()
    db.close()
    data, text = card(copy, tmp_path / "out")
    first, second = data["conditions"]["seasons"]
    assert first["matches"] + second["matches"] == len(rows)
    assert any(d.startswith("entry.model.prompt.hash") for d in second["differs"])
    assert "played under 2 different conditions" in text and "differs from season 1" in text


def test_a_run_recorded_before_health_and_conditions_reads_as_unknown(
    garbled: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "run"
    shutil.copytree(garbled, copy)
    db = sqlite3.connect(copy / "arena.sqlite")
    db.execute("DROP TABLE seat_health")
    db.execute("DROP TABLE conditions")
    db.commit()
    db.close()
    data, text = card(copy, tmp_path / "out")
    assert all(r["harness_error"]["share"] is None for r in data["leaderboard"])
    assert all(r["flag"] is None for r in data["leaderboard"])  # unknown is not clean, nor flagged
    assert data["conditions"]["seasons"] == [] and data["conditions"]["unknown_matches"] > 0
    assert "| unknown |" in text and "conditions unknown" in text
