"""Deterministic test backends for self-play whose play depends on the context in a documented
way (``arena serve --engine context`` / ``context-null``).

:class:`ContextEngine` extends :class:`arena.memory.directives.DirectiveEngine` to the
system-prompt variant: the directive words ``prefer X`` / ``avoid X`` are read from the
``Style:`` line of the system prompt first, then from the quoted insights block, and applied
exactly as DirectiveEngine does (the first applicable ``prefer`` wins; ``avoid`` removes an
option while another is legal). Text without a directive word changes nothing.

:class:`NullContextEngine` is the null: every context yields the same *distribution* of play —
the choice is a hash of the engine seed, the user message and the whole system prompt, so two
contexts play differently on the same unit but neither is better in expectation. A gate that
promotes under it is a false promotion.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any

from arena.llm.scripted import ScriptedEngine, _answer, _schema_of
from arena.memory.directives import _DIRECTIVE, directed_choice, directives

_STYLE = re.compile(r"^Style: (.*)$", re.M)


def context_directives(system: str) -> list[tuple[str, str]]:
    """(verb, option) pairs of the Style line, then of the insights block."""
    out = []
    for line in _STYLE.findall(system):
        out += [(v.lower(), x.lower()) for v, x in _DIRECTIVE.findall(line)]
    return out + directives(system)


@dataclass
class ContextEngine(ScriptedEngine):
    """Choices follow the directives of the style line and the insights (module doc)."""

    null: bool = False

    def reply(self, body: dict[str, Any]) -> tuple[str, int, int]:
        self.served += 1
        if self.keep_requests:
            self.requests.append(body)
        messages = body.get("messages") or []
        system = next(
            (str(m.get("content") or "") for m in messages if m.get("role") == "system"), ""
        )
        user = "\n".join(str(m.get("content") or "") for m in messages if m.get("role") != "system")
        keyed = f"{self.seed}\x1f{user}" + (f"\x1f{system}" if self.null else "")
        pick = int.from_bytes(hashlib.sha256(keyed.encode()).digest()[:8], "big")
        schema = _schema_of(body) or {}
        props = schema.get("properties") or {}
        ids = list((props.get("choice") or {}).get("enum") or [])
        if ids and "belief" not in (schema.get("required") or []):
            rules = [] if self.null else context_directives(system)
            content = json.dumps({"choice": directed_choice(ids, rules, pick)})
        else:
            content = _answer(schema or None, user, pick)
        prompt_len = sum(len(str(m.get("content") or "")) for m in messages)
        return content, max(1, prompt_len // 4), max(1, len(content) // 4)


def NullContextEngine(seed: int = 0, **kw: Any) -> ContextEngine:
    return ContextEngine(seed=seed, null=True, **kw)
