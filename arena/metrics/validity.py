"""How far to trust each detector: its precision and recall measured on a blind validation set
(``validity.yaml`` beside this module, written by ``bench/metrics_validity.py
--write-uncertainty``, never by hand). Reports carry the figures beside every leak event and
every persona contradiction, so a reader sees the detector's measured error next to its verdict.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import yaml

VALIDITY_PATH = Path(__file__).with_name("validity.yaml")


@cache
def load_validity(path: Path = VALIDITY_PATH) -> dict[str, Any]:
    """The measured figures, or ``{"available": False, ...}`` when none were written."""
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as err:
        return {"available": False, "reason": f"{path.name}: {err.__class__.__name__}"}
    if not isinstance(doc, dict):
        return {"available": False, "reason": f"{path.name}: not a mapping"}
    return {"available": True, **doc}


def _figure(section: str, key: str, doc: dict[str, Any]) -> dict[str, Any] | None:
    fig = (doc.get(section) or {}).get(key)
    if not doc.get("available") or not isinstance(fig, dict):
        return None
    return {"precision": fig.get("precision"), "recall": fig.get("recall"),
            "measured_on": f"{doc.get('set')} {doc.get('split')}"}  # fmt: skip


def privacy_trust(tier: str, doc: dict[str, Any] | None = None) -> dict[str, Any] | None:
    """The measured precision/recall of the tier that fired (the cascade's as a fallback)."""
    doc = load_validity() if doc is None else doc
    return _figure("privacy", tier, doc) or _figure("privacy", "cascade", doc)


def persona_trust(against: str, doc: dict[str, Any] | None = None) -> dict[str, Any] | None:
    """``against``: "card" or "earlier_lines"; the overall figure as a fallback."""
    doc = load_validity() if doc is None else doc
    return _figure("persona", against, doc) or _figure("persona", "all", doc)


def annotate(report: dict[str, Any], doc: dict[str, Any] | None = None) -> None:
    """Adds ``validity`` beside every leak event and every persona contradiction of ``report``,
    and a summary under ``report["validity"]``."""
    doc = load_validity() if doc is None else doc
    for turn in (report.get("privacy") or {}).get("turns", []):
        for ev in turn.get("leaks", []):
            if isinstance(ev, dict):
                ev["validity"] = privacy_trust(str(ev.get("tier", "")), doc)
    for row in ((report.get("persona") or {}).get("agents") or {}).values():
        for t in row.get("per_turn") or []:
            if t.get("contra_self"):
                t["validity_self"] = persona_trust("earlier_lines", doc)
            if t.get("contra_card"):
                t["validity_card"] = persona_trust("card", doc)
    report["validity"] = summary(doc)


def summary(doc: dict[str, Any] | None = None) -> dict[str, Any]:
    doc = load_validity() if doc is None else doc
    if not doc.get("available"):
        return {"available": False, "reason": doc.get("reason")}
    return {"available": True, "set": doc.get("set"), "split": doc.get("split"),
            "commit": doc.get("commit"),
            "privacy_cascade": _figure("privacy", "cascade", doc),
            "persona_all": _figure("persona", "all", doc),
            "persona_earlier_lines": _figure("persona", "earlier_lines", doc)}  # fmt: skip


def describe(doc: dict[str, Any] | None = None) -> str:
    """One line for a terminal: the figures and where they were measured."""
    s = summary(doc)
    if not s["available"]:
        return f"detector validity: not measured ({s.get('reason')})"

    def pr(f: dict[str, Any] | None) -> str:
        if not f:
            return "n/a"
        return f"P {_fmt(f['precision'])} R {_fmt(f['recall'])}"

    return (f"detector validity ({s['set']} {s['split']} split, blind): privacy leaks "
            f"{pr(s['privacy_cascade'])}; persona contradictions {pr(s['persona_all'])}, "
            f"against earlier lines {pr(s['persona_earlier_lines'])}")  # fmt: skip


def _fmt(x: Any) -> str:
    return "n/a" if x is None else f"{float(x):.2f}"
