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


def _alt(words: set[str]) -> str:
    got = sorted({re.escape(w).replace(r"\ ", r"\s+") for w in words if w}, key=len, reverse=True)
    return "(?:" + "|".join(got) + ")" if got else r"(?!)"


def _evil_words(gt: dict[str, Any], model: KnowledgeModel) -> set[str]:
    """The names of the evil roles and sides in this game (from its knowledge model)."""
    teams = {int(k): v for k, v in gt.get("teams", {}).items()}
    roles = {int(k): v for k, v in gt.get("roles", {}).items()}
    evil_roles = {roles[s] for s, t in teams.items() if t in model.evil_sides and s in roles}
    words = {w for r in evil_roles for w in model.role_synonyms.get(r, (r,))}
    words |= {w for side in model.evil_sides for w in model.side_synonyms.get(side, (side,))}
    words |= {w + "s" for w in list(words) if " " not in w} | {"evil", "bad"}
    return {w.casefold() for w in words}


def _is_evil(value: str, evil: set[str], model: KnowledgeModel) -> bool:
    v = value.casefold().strip()
    if v.startswith(("not ", "no ")):
        return False
    return v in evil or v in model.evil_sides


def inspection_patterns(target: str, evil: bool, evil_words: set[str],
                        model: KnowledgeModel) -> list[str]:  # fmt: skip
    """A Seer's result about ``target`` said with the true polarity, in the game's words."""
    bad = _alt(evil_words)
    idiom = "|".join(model.evil_verdicts) or r"(?!)"
    if evil:
        verdict = rf"(?:a\s+|an\s+|the\s+|one\s+of\s+the\s+)?{bad}"
    else:
        verdict = (rf"(?:not\s+(?:a\s+|an\s+)?{bad}|no\s+{bad}|clean|innocent|fine|good|safe|"
                   r"one\s+of\s+us|on\s+our\s+side)")  # fmt: skip
    out = [
        rf"\b{target}\b[^.?!]{{0,60}}?\b{_BE}\s+{verdict}\b",
        rf"\b{_CHECK}\s+{target}\b[^?]{{0,80}}?(?:\b{_BE}\s+|:\s*|\b(?:she|he|they)\s+{_BE}\s+)"
        rf"{verdict}\b",
    ]
    if evil:
        out.append(rf"\b{target}\b[^.?!]{{0,40}}\b(?:{idiom})\b")
        out.append(rf"\b{_CHECK}\s+{target}\b[^?]{{0,80}}?\b(?:{bad}|{idiom})\b")
    return out


def knowledge_secrets(gt: dict[str, Any], names: list[str],
                      model: KnowledgeModel) -> list[dict[str, Any]]:  # fmt: skip
    """Keyword data for one ``SecretSpec`` per inspection or knowledge fact of ``gt``."""
    out: list[dict[str, Any]] = []
    evil_words = _evil_words(gt, model)
    for f in gt.get("facts", []):
        owner, key, value = f["owner"], str(f.get("key", "")), f.get("value")
        if f.get("kind") == "inspection" and key.startswith("inspect:"):
            target = int(key.split(":", 1)[1])
            pats = inspection_patterns(_names([target], names),
                                       _is_evil(str(value), evil_words, model), evil_words, model)  # fmt: skip
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
