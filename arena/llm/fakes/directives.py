"""A deterministic test engine for ``arena serve``-style servers whose play depends on the
insights in its prompt, in a documented way — so a bank's effect can be measured exactly.

The engine reads the quoted insights of the system prompt's ``<insights>`` block, in order, and
understands two directive words in them:

* ``prefer X`` — when an option whose id is ``X`` (or starts with ``X:``) is legal, choose it;
* ``avoid X`` — never choose option ``X`` (or ``X:...``) while another option is legal.

The first applicable ``prefer`` wins; otherwise the choice is a pure function of the engine
seed and the *user* message (the transcript and the decision) among the options not avoided.
Insights without a directive word therefore change nothing at all: their measured effect is
exactly zero. Whether a directive helps or hurts is the game's business — e.g. in DealOrNoDeal
against the concession bot, ``prefer accept`` takes the standing offer, ``prefer walk_away``
ends the game with nothing. Beliefs and messages follow :mod:`arena.llm.fakes.scripted`.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any

from arena.llm.fakes.scripted import ScriptedEngine, _answer, _schema_of
from arena.llm.prompt import BLOCK_CLOSE, BLOCK_OPEN

_QUOTED = re.compile(r'^\d+\. ("(?:[^"\\]|\\.)*")', re.M)
_DIRECTIVE = re.compile(r"\b(prefer|avoid) ([a-z_]+)\b", re.I)


def directives(system: str) -> list[tuple[str, str]]:
    """(verb, option id) pairs of the insights block, in block order."""
    start, end = system.find(BLOCK_OPEN), system.find(BLOCK_CLOSE)
    if start < 0 or end < start:
        return []
    out = []
    for m in _QUOTED.finditer(system[start:end]):
        text = json.loads(m.group(1))
        out += [(v.lower(), x.lower()) for v, x in _DIRECTIVE.findall(text)]
    return out


def _matches(option: str, target: str) -> bool:
    return option == target or option.startswith(target + ":")


def _ranked(options: list[str], pick: int) -> list[str]:
    """The options in an order drawn from ``pick``, each option's place its own hash: removing
    one option leaves the order of the others as it was."""
    return sorted(options, key=lambda o: hashlib.sha256(f"{pick}\x1f{o}".encode()).digest())


def directed_choice(
    ids: list[str], rules: list[tuple[str, str]], pick: int, stable: bool = True
) -> str:
    """The first applicable ``prefer``'s option, else the first allowed option of the drawn
    order. With ``stable`` (the default) avoiding an option does not reorder the rest, so an
    ``avoid`` changes only the decisions on which the avoided option would have been taken:
    paired plays with and without an insight differ where the insight acts, not everywhere, and
    a small effect stays measurable. Without it, the pick is ``pick`` modulo the options left
    (every decision where the avoided option was legal is redrawn)."""
    allowed = [o for o in ids if not any(v == "avoid" and _matches(o, x) for v, x in rules)]
    allowed = allowed or ids
    for verb, target in rules:
        if verb == "prefer":
            hits = [o for o in allowed if _matches(o, target)]
            if hits:
                return _ranked(hits, pick)[0] if stable else hits[pick % len(hits)]
    return _ranked(allowed, pick)[0] if stable else allowed[pick % len(allowed)]


@dataclass
class DirectiveEngine(ScriptedEngine):
    """``ScriptedEngine`` whose choices follow the insights' directives (see module doc).

    Subclasses change what is read (:meth:`rules`) and what the fallback choice hashes
    (:meth:`pick_key`); the reply itself is the same."""

    # avoided options leave the order of the others alone (see directed_choice)
    stable_order: bool = True

    def rules(self, system: str) -> list[tuple[str, str]]:
        return directives(system)

    def pick_key(self, user: str, system: str) -> str:
        return f"{self.seed}\x1f{user}"

    def reply(self, body: dict[str, Any]) -> tuple[str, int, int]:
        self.served += 1
        if self.keep_requests:
            self.requests.append(body)
        messages = body.get("messages") or []
        system = next(
            (str(m.get("content") or "") for m in messages if m.get("role") == "system"), ""
        )
        user = "\n".join(str(m.get("content") or "") for m in messages if m.get("role") != "system")
        digest = hashlib.sha256(self.pick_key(user, system).encode()).digest()
        pick = int.from_bytes(digest[:8], "big")
        schema = _schema_of(body) or {}
        props = schema.get("properties") or {}
        ids = list((props.get("choice") or {}).get("enum") or [])
        if ids and "belief" not in (schema.get("required") or []):
            content = json.dumps(
                {"choice": directed_choice(ids, self.rules(system), pick, self.stable_order)}
            )
        else:
            content = _answer(schema or None, user, pick)
        prompt_len = sum(len(str(m.get("content") or "")) for m in messages)
        return content, max(1, prompt_len // 4), max(1, len(content) // 4)
