"""``arena plan``: per adjacent pair of a run's board, how sure the order is and what settling
it would take, with the cost of the recorded calls."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli import main
from arena.llm.fakes.scripted import ScriptedEngine
from arena.llm.server import ServerThread
from tests.app.test_board import BOTS, llm_entry, run


def test_plan_prices_the_matches_that_would_settle_each_adjacent_pair(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with ServerThread(ScriptedEngine(seed=2)) as server:
        priced = llm_entry(server.url)
        priced["params"]["backend"]["prices"] = {"input_per_mtok": 1.0, "output_per_mtok": 2.0}
        run_dir = run(tmp_path, "plan", [priced, *BOTS], matches=3)
    capsys.readouterr()
    assert main(["plan", str(run_dir), "--json", "--budget-usd", "0.5"]) == 0
    doc = json.loads(capsys.readouterr().out)
    plan = doc["pairs"]
    assert len(plan) == 2  # three entries: two adjacent pairs
    for p in plan:
        assert 0.0 <= p["p_order"] <= 1.0 and p["mdd"] >= 0 and p["played"] == 6
        assert not p["settled"]  # 6 matches each: below the minimum
        if p["more"] is not None:
            assert p["more"] >= 4 and p["cost_usd"] == pytest.approx(
                p["more"] * p["usd_per_match"], abs=1e-4
            )
    # the model's calls were priced: a pair with it costs money, the bots' pair does not
    with_model = [p for p in plan if "model" in (p["above"], p["below"])]
    assert all(p["usd_per_match"] > 0 and p["tokens_per_match"] > 0 for p in with_model)
    assert sum(b["usd"] for b in doc["budget"]) <= 0.5

    capsys.readouterr()
    assert main(["plan", str(run_dir)]) == 0
    assert "P(order right)" in capsys.readouterr().out
    assert main(["plan", str(run_dir), "--confidence", "1.5"]) == 2
