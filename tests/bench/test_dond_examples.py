"""The worked-examples bench on the real bundled model: a pool from exploring games, then the
same held-out deals without and with it, paired."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import dond_examples  # noqa: E402


def test_the_agents_differ_only_in_temperature_and_examples() -> None:
    ex = [{"situation": "Turn 1 of 10", "answer": '{"choice": "pass"}'}]
    plain, explorer, shown = (
        dond_examples.agent(),
        dond_examples.agent(1.0),
        dond_examples.agent(0.0, ex),
    )
    assert plain.config.backend.temperature == 0.0 and not plain.config.examples
    assert explorer.config.backend.temperature == 1.0 and not explorer.config.examples
    assert [e.model_dump() for e in shown.config.examples] == ex
    assert plain.config.backend.type == "local" and plain.config.backend.model_path is None


@pytest.mark.slow
def test_the_bench_prints_the_pool_both_agents_and_the_paired_difference(
    capsys: pytest.CaptureFixture[str],
) -> None:
    rc = dond_examples.main(["--train", "2", "--deals", "1", "--seed", "2000"])
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    if rc == 1:  # every exploring game scored the same: said, and nothing else played
        assert [r["figure"] for r in rows] == ["train", "no pool"]
        return
    figures = [r["figure"] for r in rows]
    assert figures == ["train", "eval without examples", "eval with examples",
                       "paired difference (with - without)"]  # fmt: skip
    train, without, with_, diff = rows
    assert train["units"] == 4 and train["pool_examples"] > 0
    assert max(train["scores"]) in train["pool_games"]
    assert without["units"] == with_["units"] == diff["units"] == 2
    assert diff["delta"] == pytest.approx(with_["mean_score"] - without["mean_score"], abs=1e-3)
