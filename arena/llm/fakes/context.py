"""Deterministic test backends for self-play whose play depends on the context in a documented
way (``arena serve --engine context`` / ``context-null``).

:class:`ContextEngine` extends :class:`arena.llm.fakes.directives.DirectiveEngine` to the
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

import re
from dataclasses import dataclass
from typing import Any

from arena.llm.fakes.directives import _DIRECTIVE, DirectiveEngine, directives

_STYLE = re.compile(r"^Style: (.*)$", re.M)


def context_directives(system: str) -> list[tuple[str, str]]:
    """(verb, option) pairs of the Style line, then of the insights block."""
    out = []
    for line in _STYLE.findall(system):
        out += [(v.lower(), x.lower()) for v, x in _DIRECTIVE.findall(line)]
    return out + directives(system)


@dataclass
class ContextEngine(DirectiveEngine):
    """Choices follow the directives of the style line and the insights (module doc)."""

    null: bool = False
    # the redrawn pick: the self-play acceptance figures (docs/selfplay.md) were measured
    # with it, and a new draw would be a new measurement
    stable_order: bool = False

    def rules(self, system: str) -> list[tuple[str, str]]:
        return [] if self.null else context_directives(system)

    def pick_key(self, user: str, system: str) -> str:
        return f"{self.seed}\x1f{user}" + (f"\x1f{system}" if self.null else "")


def NullContextEngine(seed: int = 0, **kw: Any) -> ContextEngine:
    return ContextEngine(seed=seed, null=True, **kw)
