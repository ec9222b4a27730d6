"""Probes (spec §6): questions asked off the record, answered into a god-only side channel.

Design: a probe is an engine decision of kind ``probe`` addressed to one character. Its question
appears only in that decision's prompt; the answer is stored only in a god-only ``probe`` event
(payload ``channel: side``). Neither enters the transcript, any seat's ``visible_log``, turns or
staleness. The engine state the probe sees is the live one (nothing else changes while the probe
is pending), so no fork is needed on the engine side; agents must not store probe decisions in
their memory (the shipped bots do not; LLM agents re-render from the observation).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from personas.schema import Persona, ProbeSpec


@dataclass(frozen=True)
class PendingProbe:
    seat: int
    probe: ProbeSpec
    point: str  # "at_start", "every_k_own_turns" or "at_end"
    own_turn: int
    sample: int


def targets(probe: ProbeSpec, seat_of: Any, n: int, skip: set[int]) -> list[int]:
    if probe.targets:
        seats = [seat_of(t) for t in probe.targets]
        return sorted({s for s in seats if s is not None and s not in skip})
    return [s for s in range(n) if s not in skip]


def expand(probe: ProbeSpec, seat: int, point: str, own_turn: int) -> list[PendingProbe]:
    return [PendingProbe(seat, probe, point, own_turn, i) for i in range(probe.samples)]


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^0-9a-z]+", " ", text.casefold()).split())


def score(probe: ProbeSpec, answer: str | None, card: Persona | None) -> tuple[float | None, str]:
    """(score in [0,1] or None, status). Language and style judges are left to the metrics."""
    judge = probe.judge
    if judge is None:
        return None, "no_judge"
    if answer is None:
        return 0.0, "declined"
    if judge.regex is not None:
        hit = re.search(judge.regex.pattern, answer, re.I) is not None
        return (1.0 if hit == judge.regex.expect_match else 0.0), "scored"
    if judge.choice is not None:
        m = re.search(r"\b([A-Z])\b", answer.strip()) or re.match(r"\s*([a-zA-Z])\b", answer)
        return (1.0 if m and m.group(1).upper() == judge.choice.upper() else 0.0), "scored"
    if judge.slot_equals is not None:
        if card is None:
            return None, "no_card"
        facts = [f for f in card.all_facts() if f.slot == judge.slot_equals]
        if not facts:
            return None, "slot_not_on_card"
        text = f" {_norm(answer)} "
        for f in facts:
            forms = [str(f.value), *f.aliases]
            if any(f" {_norm(x)} " in text for x in forms if _norm(x)):
                return 1.0, "scored"
        return 0.0, "scored"
    return None, "deferred_to_metrics"  # language / style need the metrics' detectors
