"""Werewolf's knowledge model for the metrics: how roles and sides are named in talk.

Read by ``arena.metrics`` through the registry (``GameInfo.knowledge``); the engine's ``role``
and ``side`` facts carry who knows what (``WerewolfEngine.private_facts``).
"""

from __future__ import annotations

from typing import Any

from arena.facts import Implication
from arena.registry import KnowledgeModel

#: what knowing one fact tells about another: the wolves' side has one role, so a team reveal
#: or a Seer's "wolf" result tells the role as well (``WerewolfEngine.private_facts``)
IMPLICATIONS = (Implication("side", "role", {"wolves": "werewolf"}),)


def utility(reward: float, rules: dict[str, Any]) -> float | None:
    """Win +1 / loss -1 onto [0, 1]."""
    return (reward + 1) / 2


KNOWLEDGE = KnowledgeModel(
    hidden_roles=True,
    role_synonyms={
        "werewolf": ("werewolf", "wolf"),
        "seer": ("seer",),
        "doctor": ("doctor",),
        "guard": ("guard", "bodyguard"),
        "witch": ("witch",),
        "hunter": ("hunter",),
        "villager": ("villager", "simple villager"),
    },
    side_synonyms={
        "wolves": ("evil", "a wolf", "a werewolf", "on the wolves side", "on the wolves' side"),
        "village": ("on the village side", "a villager", "good"),
    },
    role_actions={
        "seer": (r"\bi (checked|inspected|investigated|looked at|scried) (NAME)\b",),
        "doctor": (r"\bi (protected|saved|healed) (NAME)\b",),
        "guard": (r"\bi (protected|saved|guarded) (NAME)\b",),
        "witch": (r"\bi (used|have) (my|the) (potion|poison)",),
        "werewolf": (r"\bwe (wolves|werewolves)\b", r"\bmy (fellow|partner) (wolf|werewolf)\b"),
    },
    side_actions={
        "wolves": (r"\bwe (wolves|werewolves)\b", r"\bi'?m on the wolves'? side\b"),
    },
    # Old records have no side facts: the wolves know every side (they know the wolf team).
    sides_known_by=("wolves",),
    evil_sides=("wolves",),
    belief_side="wolves",  # belief reports give P(wolf)
    utility=utility,
)
