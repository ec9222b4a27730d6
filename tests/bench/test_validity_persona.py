"""The persona validation set: shape, the frozen test split, and the scorer's arithmetic."""

from __future__ import annotations

from collections import Counter

from bench import validity_persona as V


def test_set_is_large_labelled_and_split_by_form() -> None:
    cases = V.load_cases(V.DATA, "all")
    assert len(cases) >= 300 and len({c["id"] for c in cases}) == len(cases)
    for c in cases:
        assert c["split"] in ("dev", "test") and c["label"] in ("contradiction", "consistent")
        assert c["persona"] and c["say"] and c["form"]
        V.card_of(c["persona"])  # every sheet exists in the library
    per_form = Counter((c["form"], c["split"]) for c in cases)
    for form in {c["form"] for c in cases}:
        assert abs(per_form[(form, "dev")] - per_form[(form, "test")]) <= 2
    assert sum(bool(c.get("earlier")) for c in cases) >= 20  # self-contradiction cases


def test_test_split_is_unchanged_since_it_was_written() -> None:
    assert V.split_digest(V.DATA, "test") == V.TEST_SHA256


def test_prf_counts_and_missing() -> None:
    r = V.prf([True, True, False, None, False], [True, False, True, True, False])
    assert (r["tp"], r["fp"], r["fn"], r["missing"]) == (1, 1, 1, 1)
    assert r["precision"] == 0.5 and r["recall"] == 0.5 and r["f1"] == 0.5
