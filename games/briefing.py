"""What the games' LLM briefings (each game's ``prompts.briefing``) share: an entry's template
overrides over the game's defaults, and the sections in the game's order — ``hints`` only when
the entry asks for strategy hints, a ``role:<role>`` template in place of the generic role
line, and no section whose template is empty."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from arena.llm.prompt import fill

Render = Callable[[str, dict[str, Any]], str]


def sections(
    defaults: Mapping[str, str],
    overrides: Mapping[str, str] | None,
    order: Sequence[str],
    values: dict[str, Any],
    *,
    role: str,
    strategy_hints: bool,
    render: Render = fill,
) -> list[str]:
    """The filled sections of one seat's briefing, in ``order``."""
    t = {**defaults, **(overrides or {})}
    keys = list(order)
    if strategy_hints:
        keys.append("hints")
    role_key = f"role:{role}"
    if role_key in t:  # a per-role override replaces the generic role line
        keys[keys.index("role")] = role_key
    return [render(t[k], values) for k in keys if t.get(k)]
