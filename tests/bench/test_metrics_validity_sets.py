"""``bench/metrics_validity.py --set NAME``: a named case set is scored per tier and per form."""

from __future__ import annotations

import json

import pytest

from bench import metrics_validity as MV


def test_a_named_set_is_scored_per_set_tier_and_form(capsys: pytest.CaptureFixture[str]) -> None:
    MV.main(["--set", "blind1", "--part", "privacy", "--split", "dev", "--limit", "12",
             "--no-embeddings"])  # fmt: skip
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines() if x.startswith("{")]
    assert {r["set"] for r in rows} == {"blind1"}
    assert {r["tier"] for r in rows if r["figure"] == "privacy_tier"} >= {"T0", "T1b", "cascade"}
    forms = [r for r in rows if r["figure"] == "privacy_form"]
    assert forms and all("fired_by_tier" in r for r in forms)
    (head,) = [r for r in rows if r["figure"] == "privacy_cases"]
    assert head["n"] == 12


def test_an_unknown_set_is_one_clear_error() -> None:
    with pytest.raises(SystemExit, match="unknown set"):
        MV.main(["--set", "nosuchset", "--part", "privacy"])


def test_judge_backends_from_the_command_line() -> None:
    ns = MV.argparse.Namespace(judge="http://127.0.0.1:9/v1", judge_backend=None,
                               judge_model="m")  # fmt: skip
    assert MV.judge_backend(ns) == {"type": "openai", "base_url": "http://127.0.0.1:9/v1",
                                    "model": "m"}  # fmt: skip
    ns.judge = "local"
    assert MV.judge_backend(ns) == {"type": "local"}
