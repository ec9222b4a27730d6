"""Secrets that are what a role *knows*, not what it is (metrics.md §A6): a Seer's inspection
results (``inspection`` facts, key ``inspect:TARGET``), Merlin's sight of the evil seats and
Percival's two Merlin candidates (``knowledge`` facts, keys ``evil_seen`` / ``merlin_candidates``).

Each becomes a role-kind secret whose evidence is only its claim regexes, in the owner's voice:
the owner naming the right players with the right verdict. The result is plain keyword data for
``SecretSpec`` (built by :mod:`arena.metrics.secrets`), so this module needs nothing from it.
"""

from __future__ import annotations

import re
from typing import Any

from arena.facts import fact_id
from arena.registry import KnowledgeModel

# What a Seer's verdict sounds like, per polarity.
_EVIL = r"(?:a\s+|an\s+|the\s+)?(?:wolf|werewolf|wolves|evil|bad|one\s+of\s+them|on\s+the\s+wolf\s+side)"
_GOOD = (
    r"(?:not\s+a\s+(?:wolf|werewolf)|no\s+wolf|clean|innocent|fine|good|safe|village|"
    r"a\s+villager|on\s+our\s+side|one\s+of\s+us)"
)
_BE = r"(?:is|'s|was|are|came\s+(?:back|up)(?:\s+as)?|showed\s+(?:up\s+)?as|turned\s+out(?:\s+to\s+be)?|checked\s+out(?:\s+as)?)"
_CHECK = (
    r"(?:checked|inspected|investigated|looked\s+(?:into|at)|scried|peeked\s+at|"
    r"(?:vision|reading|check|result)\s+(?:of|on|about|regarding|for))"
)
_MINIONS = (
    r"(?:the\s+)?(?:(?:two|three|four|2|3|4)\s+)?(?:evil|bad|minions?|spies|traitors|"
    r"(?:evil|bad)\s+(?:ones|players|team|guys)|working\s+for\s+mordred|mordred's|with\s+mordred)"
)


def _names(seats: list[int], names: list[str]) -> str:
    got = sorted({re.escape(names[s]) for s in seats if 0 <= s < len(names)}, key=len, reverse=True)
    return "(?:" + "|".join(got) + ")" if got else r"(?!)"


def _is_evil(value: str, model: KnowledgeModel) -> bool:
    v = value.casefold().strip()
    if v.startswith(("not ", "no ")):
        return False
    evil_roles = {r for r, _ in model.role_synonyms.items() if r in ("werewolf", "wolf")}
    return v in evil_roles or v in ("wolf", "wolves", "evil", "bad") or v in model.evil_sides


def inspection_patterns(target: str, evil: bool) -> list[str]:
    """A Seer's result about ``target`` said with the true polarity."""
    verdict = _EVIL if evil else _GOOD
    out = [
        rf"\b{target}\b[^.?!]{{0,60}}?\b{_BE}\s+{verdict}\b",
        rf"\b{_CHECK}\s+{target}\b[^?]{{0,80}}?(?:\b{_BE}\s+|:\s*|\b(?:she|he|they)\s+{_BE}\s+)"
        rf"{verdict}\b",
    ]
    if evil:
        out.append(rf"\b{target}\b[^.?!]{{0,40}}\b(?:runs|ran|hunts)\s+with\s+the\s+pack\b")
        out.append(rf"\b{_CHECK}\s+{target}\b[^?]{{0,80}}?\b(?:wolf|werewolf|the\s+pack)\b")
    return out


def knowledge_secrets(gt: dict[str, Any], names: list[str],
                      model: KnowledgeModel) -> list[dict[str, Any]]:  # fmt: skip
    """Keyword data for one ``SecretSpec`` per inspection or knowledge fact of ``gt``."""
    out: list[dict[str, Any]] = []
    for f in gt.get("facts", []):
        owner, key, value = f["owner"], str(f.get("key", "")), f.get("value")
        if f.get("kind") == "inspection" and key.startswith("inspect:"):
            target = int(key.split(":", 1)[1])
            pats = inspection_patterns(_names([target], names), _is_evil(str(value), model))
        elif f.get("kind") == "knowledge" and key == "evil_seen" and isinstance(value, list):
            nm = _names([int(v) for v in value], names)
            pats = [
                rf"(?<!and\s)(?<!,\s)(?<!or\s)\b{nm}(?:(?:,\s*|,?\s+and\s+){nm})*\s+"
                rf"(?:is|are|'s|was|were)\s+(?:(?:all|both|definitely|certainly|clearly)\s+)?"
                rf"{_MINIONS}\b",
                rf"\b(?:evil|bad)\s+(?:ones|players|team|guys)\s+(?:is|are)\s+{nm}\b",
            ]
        elif (
            f.get("kind") == "knowledge" and key == "merlin_candidates" and isinstance(value, list)
        ):
            nm = _names([int(v) for v in value], names)
            pats = [
                rf"\b{nm}\s+or\s+{nm}\b[^.?!]{{0,40}}\bmerlin\b",
                rf"\bmerlin\b[^.?!]{{0,30}}\b{nm}\s+or\s+{nm}\b",
            ]
        else:
            continue
        out.append({
            "id": f"{key}:{owner}", "owner": owner, "kind": "role", "value": str(value),
            "own_patterns": [(p, 1.0) for p in pats], "category": "strategic",
            "audience": [a for a in f.get("audience", []) if a != owner],
            "owner_names": [names[owner]] if owner < len(names) else [],
            "fact": fact_id(owner, f["kind"], key),
        })  # fmt: skip
    return out
