"""Validity of the metric detectors on the project's hand-labelled sets (issue 16): precision,
recall and F1 per tier and per form on the test split (``--split dev`` to tune on dev).

Parts: ``privacy`` (tests/data/validity/privacy.jsonl, the leak cascade of metrics.md §A3);
``persona`` registers itself in ``PARTS`` the same way. Prints one JSON line per figure.

Sets: ``--set NAME`` reads ``NAME_privacy.jsonl`` / ``NAME_persona.yaml`` (e.g. ``blind1``, the
blind sets written by someone who never read the detectors); the default set is the project's
own ``privacy.jsonl`` / ``persona.yaml``. Every figure line carries its set.

Run: .venv/bin/python bench/metrics_validity.py [--set NAME] [--part privacy|persona|all]
     [--split test] [--no-embeddings] [--limit N] [--judge BACKEND] [--write-uncertainty PATH]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

DATA = ROOT / "tests" / "data" / "validity"

# Forms whose evidence is in the words themselves (issue 16 "hard-evidence forms").
PRIVACY_HARD_FORMS = (
    "verbatim", "alias", "number_words", "exact_cue", "near_cue", "refusal_value",
)  # fmt: skip
PRIVACY_TIERS = ("T0", "T1a", "T1b", "T2", "hard", "T3", "cascade")


_SET = {"name": "default"}


def emit(figure: str, **fields: Any) -> None:
    print(json.dumps({"figure": figure, "set": _SET["name"], **fields}, sort_keys=False),
          flush=True)  # fmt: skip


def privacy_file(set_name: str) -> str:
    return "privacy.jsonl" if set_name == "default" else f"{set_name}_privacy.jsonl"


def persona_file(set_name: str) -> str:
    return "persona.yaml" if set_name == "default" else f"{set_name}_persona.yaml"


def load_cases(name: str, split: str = "test", limit: int | None = None) -> list[dict[str, Any]]:
    """The cases of ``DATA/name`` in ``split`` (``all``: both); the first line is the header."""
    out = []
    for line in (DATA / name).read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        if "_meta" in row:
            continue
        if split in ("all", row["split"]):
            out.append(row)
    return out[:limit] if limit else out


def split_digest(name: str, split: str = "test") -> str:
    """sha256 over the split's cases as stored: the header records the test split's digest at
    the time it was written, before any tuning, so an edit after the fact shows."""
    h = hashlib.sha256()
    for row in load_cases(name, split):
        h.update(json.dumps(row, sort_keys=True, ensure_ascii=False).encode())
    return h.hexdigest()


def header(name: str) -> dict[str, Any]:
    first = (DATA / name).read_text(encoding="utf-8").split("\n", 1)[0]
    meta: dict[str, Any] = json.loads(first).get("_meta", {})
    return meta


def prf(tp: int, fp: int, fn: int) -> dict[str, float | None]:
    p = tp / (tp + fp) if tp + fp else None
    r = tp / (tp + fn) if tp + fn else None
    f = 2 * p * r / (p + r) if p is not None and r is not None and p + r else None
    return {
        "precision": None if p is None else round(p, 4),
        "recall": None if r is None else round(r, 4),
        "f1": None if f is None else round(f, 4),
    }


# -- privacy ----------------------------------------------------------------------------------
def privacy_predictions(cases: list[dict[str, Any]], embeddings: bool) -> list[dict[str, Any]]:
    """Per case: the level of each tier and of the cascade (default offline settings)."""
    from arena.metrics.detect import HARD, Cascade
    from arena.metrics.secrets import secrets_from_truth
    from arena.metrics.settings import MetricsSettings

    settings = MetricsSettings(embeddings=embeddings)
    embedder = None
    if embeddings:
        from arena.metrics.embed import shared_embedder

        embedder = shared_embedder()
    out = []
    for c in cases:
        gt = c["truth"] if c["truth_kind"] == "ground_truth" else None
        st = c["truth"] if c["truth_kind"] == "scenario_truth" else None
        secrets = secrets_from_truth(gt, st, c["names"], c["game"])
        secret = next((s for s in secrets if s.id == c["secret"]), None)
        if secret is None:  # a secret kind the detector does not model: scored "not detected"
            zero = {t: 0.0 for t in (*PRIVACY_TIERS,)}
            out.append({"case": c, "levels": zero, "tier": "", "unmodelled": True})
            continue
        cascade = Cascade([secret], settings, embedder)
        (r,) = cascade.scan(c["utterance"], 0, keep_all=True, speaker=c["speaker"])
        levels = {t: r.tiers.get(t, 0.0) for t in ("T0", "T1a", "T1b", "T2", "T3")}
        levels["hard"] = max(levels[t] for t in HARD)
        levels["cascade"] = r.level
        out.append({"case": c, "levels": levels, "tier": r.tier})
    return out


def privacy_figures(preds: list[dict[str, Any]], split: str) -> Iterable[dict[str, Any]]:
    def counts(rows: list[dict[str, Any]], tier: str) -> tuple[int, int, int, int]:
        tp = fp = fn = tn = 0
        for p in rows:
            pos = p["case"]["label"] == "leak"
            hit = p["levels"][tier] > 0
            tp += pos and hit
            fp += (not pos) and hit
            fn += pos and not hit
            tn += (not pos) and not hit
        return tp, fp, fn, tn

    n_pos = sum(p["case"]["label"] == "leak" for p in preds)
    for tier in PRIVACY_TIERS:
        tp, fp, fn, tn = counts(preds, tier)
        yield {"figure": "privacy_tier", "split": split, "tier": tier, "n": len(preds),
               "leaks": n_pos, "tp": tp, "fp": fp, "fn": fn, **prf(tp, fp, fn)}  # fmt: skip
    # Hard-evidence forms: recall over their leaks; precision counts every false alarm of the
    # cascade on the split's negatives (a negative has no "hard form" of its own).
    hard_pos = [p for p in preds if p["case"]["form"] in PRIVACY_HARD_FORMS]
    negs = [p for p in preds if p["case"]["label"] != "leak"]
    tp, _, fn, _ = counts(hard_pos, "cascade")
    _, fp, _, _ = counts(negs, "cascade")
    yield {"figure": "privacy_hard_evidence", "split": split, "forms": list(PRIVACY_HARD_FORMS),
           "leaks": tp + fn, "tp": tp, "fp": fp, "fn": fn, **prf(tp, fp, fn),
           "target": {"precision": 0.95, "recall": 0.95}}  # fmt: skip
    tp, fp, fn, _ = counts(preds, "cascade")
    yield {"figure": "privacy_overall", "split": split, "n": len(preds), "leaks": n_pos,
           **prf(tp, fp, fn), "target": {"recall": 0.70}}  # fmt: skip
    pos = [p for p in preds if p["case"]["label"] == "leak"]
    exact = sum(abs(p["levels"]["cascade"] - float(p["case"]["level"])) < 1e-9 for p in pos)
    yield {"figure": "privacy_exact_level_accuracy", "split": split, "leaks": len(pos),
           "value": round(exact / len(pos), 4) if pos else None}  # fmt: skip
    by_form: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for p in preds:
        by_form[p["case"]["form"]].append(p)
    for form in sorted(by_form):
        for label in ("leak", "no-leak"):
            rows = [p for p in by_form[form] if (p["case"]["label"] == "leak") == (label == "leak")]
            if rows:
                yield _form_row(rows, form, label, split, counts)


def _form_row(rows: list[dict[str, Any]], form: str, label: str, split: str,
              counts: Callable[[list[dict[str, Any]], str], tuple[int, int, int, int]],
              ) -> dict[str, Any]:  # fmt: skip
    """One form's figure: the cascade's recall (leaks) or false-alarm rate (the rest), and the
    same per tier, so a reader sees which tier carries the form."""
    row: dict[str, Any] = {"figure": "privacy_form", "split": split, "form": form,
                           "label": label, "n": len(rows)}  # fmt: skip
    per_tier = {}
    for tier in PRIVACY_TIERS:
        tp, fp, fn, tn = counts(rows, tier)
        per_tier[tier] = tp + fp
    tp, fp, fn, tn = counts(rows, "cascade")
    if label == "leak":
        row |= {"tp": tp, "fn": fn, "recall": round(tp / (tp + fn), 4)}
    else:
        row |= {"fp": fp, "tn": tn, "false_alarm_rate": round(fp / (fp + tn), 4)}
    row["fired_by_tier"] = per_tier
    return row


def privacy_part(args: argparse.Namespace) -> None:
    name = privacy_file(args.set)
    cases = load_cases(name, args.split, args.limit)
    meta = header(name)
    emit("privacy_cases", split=args.split, n=len(cases),
         test_digest_ok=split_digest(name) == meta.get("test_sha256"))  # fmt: skip
    preds = privacy_predictions(cases, embeddings=not args.no_embeddings)
    emit("privacy_unmodelled_secrets", split=args.split,
         n=sum(bool(p.get("unmodelled")) for p in preds))  # fmt: skip
    for fig in privacy_figures(preds, args.split):
        FIGURES.append(fig | {"part": "privacy"})
        emit(fig.pop("figure"), **fig)
    if args.show_errors:
        for p in preds:
            c = p["case"]
            if (p["levels"]["cascade"] > 0) != (c["label"] == "leak"):
                print(f"# {c['id']} {c['form']} {c['label']} got={p['levels']['cascade']} "
                      f"{c['secret']}: {c['utterance']}", file=sys.stderr)  # fmt: skip


def persona_part(args: argparse.Namespace) -> None:
    """The persona-consistency set (``persona_file(set)``, bench/validity_persona.py)."""
    from bench.validity_persona import run

    backend = judge_backend(args)

    def out(d: dict[str, Any]) -> None:
        FIGURES.append(d | {"part": "persona"})
        emit(d.pop("figure"), **d)

    run(args.split, backend, args.nli_path, args.judge_cache, args.limit, emit=out,
        path=DATA / persona_file(args.set))  # fmt: skip


def judge_backend(args: argparse.Namespace) -> dict[str, Any] | None:
    """``--judge`` takes a backend as JSON (an arena.llm BackendConfig), ``local`` (the bundled
    model in-process) or a plain OpenAI-compatible base URL (``http://127.0.0.1:8000/v1``,
    model from ``--judge-model``)."""
    raw = args.judge or args.judge_backend
    if not raw:
        return None
    if raw.lstrip().startswith("{"):
        backend: dict[str, Any] = json.loads(raw)
        return backend
    if raw == "local":
        return {"type": "local"}
    return {"type": "openai", "base_url": raw, "model": args.judge_model or "default"}


FIGURES: list[dict[str, Any]] = []


PARTS: dict[str, Callable[[argparse.Namespace], None]] = {
    "privacy": privacy_part,
    "persona": persona_part,
}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", default="default", help="case set: default | blind1 | blind2 ...")
    ap.add_argument("--part", default="all", help="privacy | persona | all")
    ap.add_argument("--split", default="test", choices=("test", "dev", "all"))
    ap.add_argument("--no-embeddings", action="store_true", help="skip the T3 semantic tier")
    ap.add_argument("--limit", type=int, default=None, help="first N cases (smoke runs)")
    ap.add_argument("--show-errors", action="store_true", help="misclassified cases to stderr")
    ap.add_argument("--judge-backend", help="persona: JSON of an arena.llm BackendConfig (judge)")
    ap.add_argument("--judge", help="persona judge: an OpenAI-compatible base URL or JSON config")
    ap.add_argument("--judge-model", help="model name for --judge URL")
    ap.add_argument("--judge-cache", help="persona: judge cache path")
    ap.add_argument("--write-uncertainty", help="write the detectors' measured P/R to this JSON")
    ap.add_argument("--nli-path", help="persona: local NLI model directory (never downloaded)")
    args = ap.parse_args(argv)
    _SET["name"] = args.set
    parts = sorted(PARTS) if args.part == "all" else [args.part]
    for part in parts:
        if part not in PARTS:
            raise SystemExit(f"unknown part {part!r}; known: {', '.join(sorted(PARTS))}")
        for name in (privacy_file(args.set), persona_file(args.set)):
            if not (DATA / name).exists():
                raise SystemExit(f"unknown set {args.set!r}: no {name} in {DATA}")
        PARTS[part](args)
    if args.write_uncertainty:
        from bench.uncertainty import write_uncertainty

        write_uncertainty(Path(args.write_uncertainty), FIGURES, args.set, args.split)


if __name__ == "__main__":
    main()
