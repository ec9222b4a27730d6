"""`arena leaderboard RUN_DIR --metrics`: privacy columns beside the ratings (§C9)."""

from __future__ import annotations

import asyncio
import csv
import io
import json
from pathlib import Path

import pytest

from app.cli import main
from tournaments import config as tconfig
from tournaments.executor import Tournament


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("lb")
    cfg = tconfig.parse({
        "name": "m", "game": "bargaining", "rules": {}, "matches": 6, "concurrency": 2,
        "master_seed": 5, "output_dir": str(tmp),
        "agents": [{"name": "discloser", "kind": "bargaining.discloser"},
                   {"name": "quiet", "kind": "bargaining.offer_at_reservation"}],
    })  # fmt: skip
    asyncio.run(Tournament(cfg, tmp / "runs" / "r", "r").run())
    return tmp / "runs" / "r"


def test_metrics_flag_scores_missing_reports_and_adds_columns_to_json(run_dir, capsys) -> None:
    (run_dir / "metrics").mkdir(exist_ok=True)
    for p in (run_dir / "metrics").glob("*.json"):
        p.unlink()
    assert main(["leaderboard", str(run_dir), "--json", "--metrics"]) == 0
    doc = json.loads(capsys.readouterr().out)
    n_matches = len(list((run_dir / "matches").glob("*.jsonl")))
    assert len(list((run_dir / "metrics").glob("*.json"))) == n_matches
    rows = {r["agent"]: r for r in doc["rows"]}
    # the discloser states its reservation price in every match; the other never does
    assert rows["discloser"]["leak_rate"] == 1.0 and rows["quiet"]["leak_rate"] == 0.0
    assert rows["discloser"]["leak_rate_n"] == n_matches
    assert rows["discloser"]["mu"] is not None  # beside the ratings, not instead of them
    assert doc["metrics_columns"]["quiet"]["weighted_leak"] == 0.0
    assert main(["leaderboard", str(run_dir), "--json"]) == 0
    assert "leak_rate" not in json.loads(capsys.readouterr().out)["rows"][0]


def test_metrics_columns_in_csv_and_table(run_dir, capsys) -> None:
    assert main(["leaderboard", str(run_dir), "--csv", "--metrics"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    by = {r["agent"]: r for r in rows}
    assert float(by["discloser"]["leak_rate"]) == 1.0 and by["quiet"]["leak_rate"] == "0.0"
    assert {"leak_rate_lo", "leak_rate_hi", "leak_rate_missing"} <= set(rows[0])
    assert main(["leaderboard", str(run_dir), "--metrics"]) == 0
    out = capsys.readouterr().out
    assert "Privacy and persona" in out and "leak_" in out and "μ−3σ" in out
