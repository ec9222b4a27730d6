"""The detectors' measured precision and recall, written by ``bench/metrics_validity.py
--write-uncertainty PATH`` from the figures of that very run (never typed by hand):
``arena/metrics/validity.yaml`` is what reports and ``arena score`` quote beside each match.
"""

from __future__ import annotations

import datetime as dt
import subprocess
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]


def _commit() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, check=True,
                             capture_output=True, text=True, timeout=10)  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def _pr(fig: dict[str, Any], n_key: str) -> dict[str, Any]:
    return {"precision": fig.get("precision"), "recall": fig.get("recall"),
            "f1": fig.get("f1"), "n": fig.get(n_key)}  # fmt: skip


def summarise(figures: list[dict[str, Any]]) -> dict[str, Any]:
    """Privacy per tier and persona per kind (all, against the card, against earlier lines)."""
    privacy: dict[str, Any] = {}
    persona: dict[str, Any] = {}
    for f in figures:
        name = f.get("figure", "")
        if name == "privacy_tier":
            privacy[f["tier"]] = _pr(f, "leaks")
        elif name == "persona_claims_contradiction":
            persona["all"] = _pr(f, "n_contradictions")
        elif name == "persona_claims_with_earlier_lines":
            persona["earlier_lines"] = _pr(f, "n_contradictions")
        elif name == "persona_claims_without_earlier_lines":
            persona["card"] = _pr(f, "n_contradictions")
    return {"privacy": privacy, "persona": persona}


def write_uncertainty(path: Path, figures: list[dict[str, Any]], set_name: str,
                      split: str) -> None:  # fmt: skip
    doc = {
        "what": "measured precision/recall of the offline detectors on a blind validation set",
        "set": set_name,
        "split": split,
        "commit": _commit(),
        "written": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        **summarise(figures),
    }
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    print(f"# detector validity written to {path}", flush=True)
