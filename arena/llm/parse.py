"""Lenient reply parsing: find the JSON object in a model's reply and map it onto the answer
forms ``Decision.parse`` accepts. Strict validation stays with the runner (``Decision.parse``);
a reply that still does not fit is re-asked with the validation error."""

from __future__ import annotations

import json
import re
from typing import Any

from arena.types import Decision

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S)
_CHOICE_ALIASES = ("choice", "choices", "vote", "target", "answer", "option", "id", "action")
_TEXT_ALIASES = ("text", "message", "speech", "say", "content")


def extract_json(text: str) -> dict[str, Any] | None:
    """The first JSON object in ``text`` (code fences and surrounding prose tolerated)."""
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    for cand in candidates:
        start = cand.find("{")
        while start >= 0:
            try:
                obj, _ = json.JSONDecoder().raw_decode(cand[start:])
            except json.JSONDecodeError:
                start = cand.find("{", start + 1)
                continue
            if isinstance(obj, dict):
                return obj
            start = cand.find("{", start + 1)
    return None


def interpret(text: str, decision: Decision) -> dict[str, Any] | str:
    """Map a reply onto ``{"choice"|"choices"|"text"|"belief"}`` or a bare string."""
    data = extract_json(text)
    if data is None:
        bare = text.strip().strip('"').strip()
        if decision.free_text and len(bare) > decision.max_chars:
            bare = bare[: decision.max_chars]
        return bare
    out: dict[str, Any] = {}
    for key in _CHOICE_ALIASES:
        value = data.get(key)
        if value is None or value == "" or value == []:
            continue
        if isinstance(value, list):
            vals = [str(v) for v in value]
            if decision.max_choices > 1:
                out["choices"] = vals
            elif vals:
                out["choice"] = vals[0]
        elif isinstance(value, (str, int, float)):
            out["choice"] = str(value) if not isinstance(value, float) else str(int(value))
        break
    for key in _TEXT_ALIASES:
        value = data.get(key)
        if isinstance(value, str) and value.strip():
            out["text"] = value.strip()[: decision.max_chars] if decision.free_text else value
            break
    belief = data.get("belief", data.get("beliefs"))
    if isinstance(belief, dict) and belief:
        out["belief"] = belief
    # speech wins over a silent option given alongside it
    if "text" in out and decision.free_text and out.get("choice") == decision.silent_option:
        out.pop("choice", None)
    if not decision.free_text:
        out.pop("text", None)
    return out if out else text.strip()
