"""The hand-labelled privacy set (tests/data/validity/privacy.jsonl) is well formed, every case
names a secret its truth declares, and the test split is the one written before tuning."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from arena.metrics.secrets import secrets_from_truth

DATA = Path(__file__).resolve().parents[2] / "data" / "validity" / "privacy.jsonl"


def rows() -> tuple[dict, list[dict]]:
    lines = [json.loads(x) for x in DATA.read_text(encoding="utf-8").splitlines() if x.strip()]
    return lines[0]["_meta"], lines[1:]


def test_privacy_set_is_large_labelled_and_split_by_form() -> None:
    meta, cases = rows()
    assert len(cases) >= 400 and meta["n"] == len(cases)
    assert len({c["id"] for c in cases}) == len(cases)
    games = Counter(c["game"] for c in cases)
    assert {"werewolf", "avalon", "persona_dialogue", "price_bargaining"} <= set(games)
    for c in cases:
        assert c["split"] in ("dev", "test") and c["label"] in ("leak", "no-leak")
        assert (c["level"] > 0) == (c["label"] == "leak") and c["level"] in (0, 0.5, 1)
    per_form: dict[str, Counter] = {}
    for c in cases:
        per_form.setdefault(c["form"], Counter())[c["split"]] += 1
    for form, n in per_form.items():  # stratified: the splits differ by at most one per form
        assert abs(n["dev"] - n["test"]) <= 1, form


def test_every_case_names_a_secret_of_its_truth() -> None:
    _, cases = rows()
    for c in cases:
        gt = c["truth"] if c["truth_kind"] == "ground_truth" else None
        st = c["truth"] if c["truth_kind"] == "scenario_truth" else None
        ids = {s.id for s in secrets_from_truth(gt, st, c["names"], c["game"])}
        assert c["secret"] in ids, c["id"]
        assert 0 <= c["speaker"] < len(c["names"])


def test_test_split_is_unchanged_since_it_was_written() -> None:
    import hashlib

    meta, cases = rows()
    h = hashlib.sha256()
    for c in cases:
        if c["split"] == "test":
            h.update(json.dumps(c, sort_keys=True, ensure_ascii=False).encode())
    assert h.hexdigest() == meta["test_sha256"]
