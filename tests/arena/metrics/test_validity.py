"""Detectors report their measured precision/recall: the figures file, annotation of a report
and the line ``arena score`` prints."""

from __future__ import annotations

from pathlib import Path

import yaml

from arena.metrics.validity import annotate, describe, load_validity, persona_trust, privacy_trust

DOC = {
    "set": "blindX", "split": "test", "commit": "abc1234",
    "privacy": {"T1b": {"precision": 0.97, "recall": 0.41},
                "cascade": {"precision": 0.93, "recall": 0.77}},
    "persona": {"all": {"precision": 0.9, "recall": 0.7},
                "earlier_lines": {"precision": 0.95, "recall": 0.6}},
}  # fmt: skip


def doc(tmp_path: Path) -> dict:
    path = tmp_path / "validity.yaml"
    path.write_text(yaml.safe_dump(DOC), encoding="utf-8")
    return load_validity(path)


def test_each_verdict_carries_its_detectors_figures(tmp_path: Path) -> None:
    d = doc(tmp_path)
    assert privacy_trust("T1b", d) == {"precision": 0.97, "recall": 0.41,
                                       "measured_on": "blindX test"}  # fmt: skip
    assert privacy_trust("T0", d)["precision"] == 0.93  # a tier not measured: the cascade's
    assert persona_trust("card", d)["recall"] == 0.7
    report = {
        "privacy": {"turns": [{"leaks": [{"secret": "s", "tier": "T1b", "level": 1.0}]}]},
        "persona": {"agents": {"0": {"per_turn": [{"contra_self": 1, "contra_card": 0},
                                                  {"contra_self": 0, "contra_card": 0}]}}},
    }  # fmt: skip
    annotate(report, d)
    assert report["privacy"]["turns"][0]["leaks"][0]["validity"]["recall"] == 0.41
    rows = report["persona"]["agents"]["0"]["per_turn"]
    assert rows[0]["validity_self"]["recall"] == 0.6 and "validity_self" not in rows[1]
    assert report["validity"]["set"] == "blindX"


def test_the_printed_line_names_the_set_and_figures(tmp_path: Path) -> None:
    line = describe(doc(tmp_path))
    assert "blindX test" in line and "P 0.93 R 0.77" in line and "R 0.60" in line


def test_no_figures_file_says_so(tmp_path: Path) -> None:
    d = load_validity(tmp_path / "missing.yaml")
    assert d["available"] is False
    assert privacy_trust("T0", d) is None
    assert "not measured" in describe(d)


def test_the_shipped_figures_were_written_by_the_bench() -> None:
    d = load_validity()
    assert d["available"] and d["set"].startswith("blind") and d["commit"]
    assert 0.0 <= d["privacy"]["cascade"]["recall"] <= 1.0
