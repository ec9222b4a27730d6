"""Persona-consistency detectors against the hand-labelled set (tests/data/validity/persona.yaml).

Each case is one utterance of a library character, with the character's own earlier lines; the
label says whether it contradicts the persona sheet or those earlier lines. Tiers:

- ``claims``: the offline slot-claim detector (arena.metrics.persona.consistency): the
  utterance's turn is flagged when it contradicts the card or the claim memory.
- ``nli``: an NLI model from a local directory (``--nli-path``; never downloaded).
- ``judge``: the LLM persona judge over any arena.llm backend (``--judge-backend JSON``).
- ``claims+judge`` / ``claims+nli``: flagged when either flags it.

Prints one JSON line per figure: precision, recall and F1 per tier overall and per form on the
chosen split (default: test; thresholds are tuned on dev only). Forms without a contradiction
report the false-positive count instead of recall.

Run: .venv/bin/python bench/validity_persona.py [--split test|dev|all] [--judge-backend JSON]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import yaml

from arena.metrics import persona as P
from arena.metrics.agreement import agreement
from arena.metrics.persona_judge import PersonaItem

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
DATA = ROOT / "tests" / "data" / "validity" / "persona.yaml"
# sha256 of the test split as written (commit ab12800, before any detector change): an edit of
# a test case after the fact shows as test_digest_ok = false
TEST_SHA256 = "faf644b3c110d7daf4ed08c9a654fd54246adc943a0f64d0def7dabe07e08d2d"


def load_cases(path: Path = DATA, split: str = "test") -> list[dict[str, Any]]:
    cases = yaml.safe_load(path.read_text(encoding="utf-8"))
    return [c for c in cases if split == "all" or c["split"] == split]


def recorded_digest(path: Path) -> str:
    """The test split's digest as written: a ``# test_sha256:`` header comment, else (the
    project's own set) the digest recorded here."""
    m = re.search(r"^#\s*test_sha256:\s*([0-9a-f]{64})\s*$", path.read_text(encoding="utf-8"),
                  re.MULTILINE)  # fmt: skip
    return m.group(1) if m else TEST_SHA256


def split_digest(path: Path = DATA, split: str = "test") -> str:
    h = hashlib.sha256()
    for c in load_cases(path, split):
        h.update(json.dumps(c, sort_keys=True, ensure_ascii=False).encode())
    return h.hexdigest()


def card_of(pid: str) -> tuple[P.Card, str]:
    """The library persona as a metrics card (as the persona game's truth builds it)."""
    from personas.loader import load_library

    persona = load_library().persona(pid)
    facts = [{"slot": f.slot, "value": f.value, "multi_valued": f.is_multi,
              "aliases": list(f.aliases)} for f in persona.all_facts()]  # fmt: skip
    card = P.Card(facts, persona.name, "")
    sheet = "; ".join(f"{f['slot']}: {f['value']}" for f in facts)
    return card, sheet


def claims_tier(cases: list[dict[str, Any]], age_tol: float = 0.0) -> list[bool | None]:
    out: list[bool | None] = []
    for c in cases:
        card, _ = card_of(c["persona"])
        occ = {str(v) for v in card.values("occupation")}
        turns = [(t, False) for t in c.get("earlier") or []] + [(c["say"], False)]
        last = P.consistency(turns, card, age_tol, occ)["per_turn"][-1]
        out.append(bool(last["contra_card"] or last["contra_self"]))
    return out


def items_of(cases: list[dict[str, Any]]) -> list[PersonaItem]:
    items = []
    for c in cases:
        card, sheet = card_of(c["persona"])
        items.append(PersonaItem(name=card.name, sheet=sheet, earlier=list(c.get("earlier") or []),
                                 utterance=c["say"]))  # fmt: skip
    return items


def prf(pred: Sequence[bool | None], gold: Sequence[bool]) -> dict[str, Any]:
    """Precision/recall/F1 over the judged cases; a missing verdict (None) is counted apart."""
    tp = sum(bool(p) and g for p, g in zip(pred, gold, strict=True) if p is not None)
    fp = sum(bool(p) and not g for p, g in zip(pred, gold, strict=True) if p is not None)
    fn = sum((not p) and g for p, g in zip(pred, gold, strict=True) if p is not None)
    n_pos = sum(gold)
    p = tp / (tp + fp) if tp + fp else None
    r = tp / (tp + fn) if tp + fn else None
    f1 = None if p is None or r is None else (2 * p * r / (p + r) if p + r else 0.0)
    return {"precision": _r(p), "recall": _r(r), "f1": _r(f1), "tp": tp, "fp": fp, "fn": fn,
            "n": len(gold), "n_contradictions": n_pos,
            "missing": sum(x is None for x in pred)}  # fmt: skip


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, 3)


def union(a: Sequence[bool | None], b: Sequence[bool | None]) -> list[bool | None]:
    return [
        None if x is None and y is None else bool(x) or bool(y) for x, y in zip(a, b, strict=True)
    ]


def report(tiers: dict[str, list[bool | None]], cases: list[dict[str, Any]], split: str,
           emit: Callable[[dict[str, Any]], None],
           models: dict[str, str] | None = None) -> dict[str, dict[str, Any]]:  # fmt: skip
    models = models or {}
    gold = [c["label"] == "contradiction" for c in cases]
    overall = {}
    for tier, pred in tiers.items():
        overall[tier] = prf(pred, gold)
        emit({"figure": f"persona_{tier}_contradiction", "split": split, **overall[tier]})
        agree = agreement(pred, gold, (True, False))
        emit({"figure": f"persona_{tier}_agreement_with_labels", "split": split,
              "model": models.get(tier), **{k: _r(v) if isinstance(v, float) else v
                                            for k, v in agree.items()}})  # fmt: skip
        self_idx = [i for i, c in enumerate(cases) if c.get("earlier")]
        if self_idx:
            emit({"figure": f"persona_{tier}_with_earlier_lines", "split": split,
                  **prf([pred[i] for i in self_idx], [gold[i] for i in self_idx])})  # fmt: skip
        card_idx = [i for i, c in enumerate(cases) if not c.get("earlier")]
        if card_idx:
            emit({"figure": f"persona_{tier}_without_earlier_lines", "split": split,
                  **prf([pred[i] for i in card_idx], [gold[i] for i in card_idx])})  # fmt: skip
        neutral = [i for i, g in enumerate(gold) if not g]
        if neutral:
            called = sum(not pred[i] for i in neutral if pred[i] is not None)
            emit({"figure": f"persona_{tier}_consistent_called_consistent", "split": split,
                  "n": len(neutral), "value": _r(called / len(neutral)),
                  "target": 0.90})  # fmt: skip
        for form in sorted({c["form"] for c in cases}):
            idx = [i for i, c in enumerate(cases) if c["form"] == form]
            emit({"figure": f"persona_{tier}_form", "form": form, "split": split,
                  **prf([pred[i] for i in idx], [gold[i] for i in idx])})  # fmt: skip
    return overall


def run(split: str = "test", judge_backend: dict[str, Any] | None = None,
        nli_path: str | None = None, judge_cache: str | None = None, limit: int | None = None,
        emit: Callable[[dict[str, Any]], None] | None = None,
        path: Path = DATA) -> dict[str, dict[str, Any]]:  # fmt: skip
    emit = emit or (lambda d: print(json.dumps(d, ensure_ascii=False)))
    cases = load_cases(path, split)
    emit({"figure": "persona_cases", "split": split, "n": len(cases),
          "test_digest_ok": split_digest(path) == recorded_digest(path)})  # fmt: skip
    if limit:  # an evenly spaced subset, so every form is represented (slow judges)
        cases = cases[:: max(1, len(cases) // limit)][:limit]
    tiers: dict[str, list[bool | None]] = {"claims": claims_tier(cases)}
    models = {"claims": "offline claim extractor"}
    if nli_path is not None:
        from arena.metrics.persona_judge import NLIUnavailable, PersonaNLI

        try:
            nli = PersonaNLI(nli_path)
        except NLIUnavailable as err:
            emit({"figure": "persona_nli_unavailable", "reason": str(err)})
        else:
            tiers["nli"] = nli.judge_all(items_of(cases))
            models["nli"] = models["claims+nli"] = str(nli_path)
            tiers["claims+nli"] = union(tiers["claims"], tiers["nli"])
    if judge_backend is not None:
        from arena.metrics.persona_judge import PersonaJudge
        from arena.metrics.settings import JudgeSettings

        js = JudgeSettings(backend=judge_backend, **({"cache_path": judge_cache} if judge_cache
                                                      else {}))  # fmt: skip
        judge = PersonaJudge(js)
        tiers["judge"] = judge.judge_all(items_of(cases))
        models["judge"] = models["claims+judge"] = judge.model
        tiers["claims+judge"] = union(tiers["claims"], tiers["judge"])
        emit({"figure": "persona_judge_calls", "model": judge.model, **judge.stats()})
    return report(tiers, cases, split, emit, models)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--split", default="test", choices=["test", "dev", "all"])
    ap.add_argument("--judge-backend", help="JSON of an arena.llm BackendConfig for the judge")
    ap.add_argument("--judge-cache", help="judge cache path (default: the JudgeSettings one)")
    ap.add_argument("--nli-path", help="local NLI model directory (never downloaded)")
    ap.add_argument("--limit", type=int, help="N evenly spaced cases only (slow judges)")
    args = ap.parse_args(argv)
    backend = json.loads(args.judge_backend) if args.judge_backend else None
    run(args.split, backend, args.nli_path, args.judge_cache, args.limit)
    return 0


if __name__ == "__main__":
    sys.exit(main())
