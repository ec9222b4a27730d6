"""Tables written to a pipe (logs, CI) keep whole names: no 80-column cut."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import yaml

from tests.builders import planner_run

ROOT = Path(__file__).resolve().parents[2]
LONG = "a-rather-long-entry-name-that-an-80-column-table-cuts"


def test_run_and_leaderboard_tables_keep_whole_names_when_piped(tmp_path: Path) -> None:
    doc = {
        "name": "piped",
        "game": "price_bargaining",
        "agents": [
            {"name": LONG, "kind": "price_bargaining.boulware"},
            {"name": "conceder", "kind": "price_bargaining.conceder"},
        ],
        "matches": 2,
        "master_seed": 5,
        "output_dir": str(tmp_path / "runs"),
    }
    config = tmp_path / "piped.yaml"
    config.write_text(yaml.safe_dump(doc), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    env["PYTHONPATH"] = str(ROOT)
    run = subprocess.run(
        [sys.executable, "-m", "app.cli", "run", str(config), "--quiet", "--no-broker",
         "--no-metrics", "--run-id", "piped"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert LONG in run.stdout
    board = subprocess.run(
        [sys.executable, "-m", "app.cli", "leaderboard", str(tmp_path / "runs" / "piped")],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert board.returncode == 0, board.stderr
    assert LONG in board.stdout and "…" not in board.stdout


def run_then_board(tmp_path: Path, doc: dict[str, object], columns: str | None) -> tuple[str, str]:
    """``arena run`` of ``doc`` (piped, ``COLUMNS`` as given), then ``arena leaderboard
    --json`` of the run: (the run's output, the board's)."""
    config = tmp_path / "cfg.yaml"
    config.write_text(yaml.safe_dump({**doc, "output_dir": str(tmp_path / "runs")}), "utf-8")
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    env.update({"PYTHONPATH": str(ROOT), **({"COLUMNS": columns} if columns else {})})
    outs = []
    for argv in (["run", str(config), "--quiet", "--no-broker", "--no-metrics", "--run-id", "r"],
                 ["leaderboard", str(tmp_path / "runs" / "r"), "--json"]):  # fmt: skip
        done = subprocess.run([sys.executable, "-m", "app.cli", *argv], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300)  # fmt: skip
        assert done.returncode == 0, done.stderr
        outs.append(done.stdout)
    return outs[0], outs[1]


def test_the_end_of_run_board_shows_each_rating_with_its_interval(tmp_path: Path) -> None:
    """``arena run``'s board prints rank, μ and win rate with the 95% intervals that
    ``arena leaderboard`` computes for the same run (same seed and resamples), not σ."""
    doc = {
        "name": "ci",
        "game": "price_bargaining",
        "agents": [
            {"name": "boulware", "kind": "price_bargaining.boulware"},
            {"name": "conceder", "kind": "price_bargaining.conceder"},
        ],
        "matches": 4,
        "master_seed": 8,
        "ratings": {"bootstrap": 200},
    }
    out, board = run_then_board(tmp_path, doc, columns="300")
    rows = json.loads(board)["rows"]
    lines = out.splitlines()
    header = next(line for line in lines if "agent" in line and "μ" in line)
    assert "μ [95% CI]" in header and "σ" not in header
    for row in rows:
        line = next(line for line in lines if f" {row['agent']} " in line)
        assert f"{row['mu']:.2f} [{row['mu_low']:.2f}, {row['mu_high']:.2f}]" in line
        assert f"{row['rank']} [{row['rank_low']}, {row['rank_high']}]" in line


def test_a_rating_driven_run_says_why_it_stopped_planning(tmp_path: Path) -> None:
    doc = planner_run(budget=12)
    out, _ = run_then_board(tmp_path, doc, None)
    # 12 matches cannot settle four entries (each needs 10 matches first): the budget stops it,
    # and the run names the pairs still open
    line = next(x for x in out.splitlines() if x.startswith("rating-driven, repeat 0"))
    assert "stopped after 12 matches — the budget was spent; not settled: " in line
    assert "arena plan says how many more" in line
    stops = (tmp_path / "runs" / "r" / "matchmaking.jsonl").read_text(encoding="utf-8")
    assert json.loads(stops.splitlines()[-1])["reason"] == "budget"
