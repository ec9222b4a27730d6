"""Rule flags of the persona dialogue game (spec persona_dialogue.md; options are flags)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from arena.engine import RuleSet
from personas.schema import ProbeSpec, TurnMode

GoalScoring = Literal["none", "rule", "judge", "rule+judge"]


class PersonaDialogueRules(RuleSet):
    """Scenario choice, turn mode, limits, interrogation and probes."""

    scenario: str | None = Field(
        "bakery-loan", description="scenario id from the library (None: ad-hoc `characters`)"
    )
    characters: list[str] | None = Field(
        None, description="persona ids in seat order when no scenario is given"
    )
    library: str | None = Field(None, description="library directory (default: the shipped one)")
    turn_mode: TurnMode | None = Field(None, description="None: the scenario's, else round_robin")
    start: Literal["seat0", "random"] = "seat0"
    max_turns: int | None = Field(None, ge=1, description="None: scenario's, else 20")
    stale_limit: int | None = Field(None, ge=1, description="None: present characters (2 ticks)")
    allow_private: bool | None = Field(None, description="None: the scenario's setting")
    max_message_chars: int = Field(1000, ge=20, le=20_000)
    goal_stop: bool = False
    goal_scoring: GoalScoring = "none"
    judge: str | None = Field(
        None, description="'module:callable' goal judge (see docs/personas.md); needed for judge"
    )
    # Interrogation mode (spec §5): seat 0 interrogator, seat 1 subject.
    interrogation: bool = False
    subject: str | None = Field(None, description="persona id of the subject")
    interrogator_name: str = "Interviewer"
    interrogation_m: int = Field(10, ge=1, le=21)
    interrogation_q: int = Field(40, ge=0, le=500)
    retest_paraphrase: bool = False
    # Probes (spec §6).
    probes: bool = Field(True, description="run the scenario's and `extra_probes` probes")
    extra_probes: list[ProbeSpec] = Field(default_factory=list)
    probe_label: str = "Interviewer"

    @model_validator(mode="after")
    def _check(self) -> PersonaDialogueRules:
        if not self.interrogation and self.scenario is None and not self.characters:
            raise ValueError("give a scenario or a list of characters")
        if self.scenario is not None and self.characters:
            raise ValueError("give either a scenario or characters, not both")
        if self.goal_scoring in ("judge", "rule+judge") and not self.judge:
            raise ValueError(f"goal_scoring {self.goal_scoring!r} needs a `judge` entry point")
        return self
