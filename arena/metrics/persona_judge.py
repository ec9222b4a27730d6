"""Persona-contradiction adjudicators: the LLM judge and the offline NLI tier."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class PersonaItem:
    """One utterance to judge: the speaker's sheet, its own earlier lines, the utterance."""

    name: str
    sheet: str
    utterance: str
    earlier: list[str] = field(default_factory=list)
