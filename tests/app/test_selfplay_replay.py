"""``arena selfplay --dry-run`` counts replays and the replicates of flipped units."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from app.cli import main


def test_the_estimate_counts_replays_and_replicates_at_most(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = tmp_path / "ok.yaml"
    raw = {
        "game": "dealornodeal",
        "base": {"kind": "llm", "params": {}},
        "styles": ["Be brief."],
        "panel": [{"name": "bot", "kind": "rule"}],
        "population": 4,
        "elites": 1,
        "generations": 3,
        "units": {"train": 2, "select": 4, "gate": 10},
        "selection": {"replicates": 2, "replicate_share": 0.5},
        "replay": {"fraction": 0.25},
    }
    cfg.write_text(yaml.safe_dump(raw))
    assert main(["selfplay", str(cfg), "--dry-run", "--json", "--out", str(tmp_path / "out")]) == 0
    est = json.loads(capsys.readouterr().out)
    # play: 3 generations x 4 candidates x (2 + 4 seeds + half of the 4 seeds replicated)
    # x 2 seats; replay: a quarter of a generation's 48 play games, per generation
    assert est["games"]["play"] == 3 * 4 * (2 + 4 + 2) * 2
    assert est["games"]["replay"] == 3 * (4 * 6 * 2 // 4)
    assert not (tmp_path / "out").exists()
