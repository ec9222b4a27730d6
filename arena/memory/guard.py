"""The privacy guard: a proposed insight may not carry a specific secret of the match it was
drawn from (a valuation, a named player's role) into later games.

It reuses the project's detectors (:mod:`arena.metrics.detect` over the secrets that
:mod:`arena.metrics.secrets` builds from the match's ground truth and facts timeline), with
two changes for text that is not a player speaking: a role or side also counts as disclosed
when the text names its owner together with it ("Bob was the seer"), and numbers need a cue
word but no first-person marker ("the opponent's budget was 40").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from arena import registry
from arena.events import Event
from arena.facts import GROUND_TRUTH_EVENT, Knowledge
from arena.metrics.detect import Cascade
from arena.metrics.secrets import SecretSpec, secrets_from_truth
from arena.metrics.settings import MetricsSettings
from arena.registry import KnowledgeModel

_GAP = r"[^.!?;]{0,60}?"


@dataclass(frozen=True)
class Finding:
    secret: str
    tier: str
    span: str


def _named(secret: SecretSpec, model: KnowledgeModel) -> SecretSpec:
    """The secret with the guard's two changes (named attribution, no first-person gate);
    the words for roles and sides are the game's (its knowledge model)."""
    update: dict[str, object] = {}
    if secret.kind == "role" and isinstance(secret.value, str) and secret.owner_names:
        table = model.side_synonyms if secret.id.startswith("side:") else model.role_synonyms
        syns = table.get(secret.value, (secret.value,))
        words = "|".join(re.escape(w) for w in sorted({*syns, secret.value}, key=len, reverse=True))
        names = "|".join(re.escape(n) for n in secret.owner_names)
        extra = [
            (rf"\b(?:{names})\b{_GAP}\b(?:{words})\b", 1.0),
            (rf"\b(?:{words})\b{_GAP}\b(?:{names})\b", 1.0),
        ]
        update["patterns"] = [*secret.patterns, *extra]
    if secret.kind == "number":
        update["numeric"] = secret.numeric.model_copy(update={"first_person": False})
    return secret.model_copy(update=update) if update else secret


class PrivacyGuard:
    """Checks texts against one match's specific secrets."""

    def __init__(self, events: Iterable[Event], threshold: float = 1.0) -> None:
        events = list(events)
        start = next((e for e in events if e.type == "match_start"), None)
        truth = next((e for e in events if e.type == GROUND_TRUTH_EVENT), None)
        scenario = next((e for e in events if e.type == "scenario_truth"), None)
        names = list(start.payload.get("names") or []) if start else []
        game = str(start.payload.get("game", "")) if start else ""
        secrets = secrets_from_truth(
            truth.payload if truth else None,
            scenario.payload if scenario else None,
            names,
            game,
            Knowledge(events),
        )
        model = registry.knowledge(game)
        self.secrets = [_named(s, model) for s in secrets if s.specific]
        self.threshold = threshold
        self._cascade = Cascade(self.secrets, MetricsSettings(embeddings=False))

    def check(self, text: str) -> list[Finding]:
        """The secrets ``text`` discloses at or above the threshold (hard tiers only)."""
        return [
            Finding(r.secret, r.tier, r.span)
            for r in self._cascade.scan(text)
            if r.level >= self.threshold
        ]
