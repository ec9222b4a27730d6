"""``arena selfplay``: bad input is one message per problem, exit 2 and nothing written; the
dry run prints an estimate and writes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from app.cli import main


def test_bad_config_exits_2_with_each_problem_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    cfg = tmp_path / "bad.yaml"
    cfg.write_text(
        yaml.safe_dump(
            {
                "game": "dealornodeal",
                "base": {"kind": "rule"},
                "panel": [{"name": "bot", "kind": "nosuch"}],
                "operators": {"mutate": 1},
            }
        )
    )
    assert main(["selfplay", str(cfg), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 3 and all(line.startswith("error: ") for line in err)
    assert "base.kind" in err[0] and "panel.0.kind" in err[1] and "operators.mutate" in err[2]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.yaml"]
    assert main(["selfplay", "--resume", str(tmp_path / "nothing")]) == 2


def test_dry_run_prints_the_estimate_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = tmp_path / "ok.yaml"
    cfg.write_text(
        yaml.safe_dump(
            {
                "game": "dealornodeal",
                "base": {"kind": "llm", "params": {}},
                "styles": ["Be brief."],
                "panel": [{"name": "bot", "kind": "rule"}],
                "population": 4,
                "elites": 1,
                "generations": 3,
                "units": {"train": 2, "select": 4, "gate": 10},
            }
        )
    )
    assert main(["selfplay", str(cfg), "--dry-run", "--out", str(tmp_path / "out")]) == 0
    est = json.loads(capsys.readouterr().out)
    # 3 generations x 4 candidates x (2 + 4 seeds) x 2 seats; gate: 10 seeds x 2 seats x 4
    assert est["games"]["play"] == 3 * 4 * 6 * 2
    assert est["games"]["gate"] == 10 * 2 * 4
    assert est["steps_per_game"] > 0 and est["total_llm_calls"] > 0
    assert not (tmp_path / "out").exists()
