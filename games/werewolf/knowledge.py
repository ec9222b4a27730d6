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
    # Claims by action or ability, in the owner's voice (NAME = a player's name or pronoun).
    role_actions={
        "seer": (
            r"\bi (checked|inspected|investigated|looked at|looked into|scried|peeked at|read|"
            r"scanned|tested) (NAME)\b",
            r"\b(when|after|since) i (checked|inspected|looked|peeked|scried)\b",
            r"\bmy (visions?|checks?|inspections?|readings?)\b",
            r"\bi (get|got) to (see|peek at|check|look at|inspect|learn)\b",
            r"\bpeek(ed)? at \w+( person's| player's)? (card|role)s?\b",
            r"\b(ability|power|gift) (that|which) (shows|tells|reveals)\b",
            r"\b(each|every) night i (have )?(looked into|checked|inspected|learned|see|saw)\b",
            r"\blearn(ed|t)? what (you|they|he|she|each of you) (are|is|really are)\b",
        ),
        "doctor": (
            r"\bi (protected|saved|healed) (NAME)\b",
            r"\bi (kept|keep|will keep|'ll keep) (NAME|someone|somebody|\w+) alive\b",
            r"\b(choose|chose|pick|picked) (someone|somebody|a player|one player|NAME) to "
            r"(keep alive|save|protect|heal)\b",
            r"\bi (protected|saved|healed) (myself|someone|somebody)\b",
            r"\bmy (bedside )?(saves?|healing)\b",
        ),
        "guard": (
            r"\bi (protected|saved|guarded) (NAME)\b",
            r"\bi (stood|kept|keep) (watch|guard) (over|on)\b",
            r"\bi('ll| will)? (watch|watched) over (NAME)\b",
            r"(^|[.!?;:]\s*)(guarding|been guarding|i've been guarding)\b",
            r"\bi (protected|guarded) myself\b",
        ),
        "witch": (
            r"\bi (used|have) (my|the) (potion|poison)",
            r"\b(i have|i've got|i got|my) (\w+ )?(bottles?|potions?|vials?)\b[^.?!]{0,40}\b"
            r"(heals?|kills?|saves?)\b",
            r"\bmy (healing|death|life) (potion|bottle)\b",
        ),
        "hunter": (
            r"\bmy (last |revenge |hunter('s)? )?(shot|bullet|gun)\b",
            r"\bwhen i die,? i (get to |can |will |'ll )?(shoot|take)\b",
            r"\btake (someone|somebody|one of you|a player|\w+) (down )?with me\b",
        ),
        "werewolf": (
            r"\bwe (wolves|werewolves)\b",
            r"\bmy (fellow|partner) (wolf|werewolf)\b",
            r"\b(we|my partner and i|\w+ and i) (killed|picked off|ate|took out|attacked|went "
            r"after|hunted)\b",
            r"\b(we|\w+ and i) (hunt|kill|feed|eat)\b[^.?!]{0,20}\b(at night|tonight|together)\b",
        ),
    },
    side_actions={
        "wolves": (
            r"\bwe (wolves|werewolves)\b",
            r"\bi'?m on the wolves'? side\b",
            r"\b(my|our) (team|side|pack) (eats|kills|hunts|feeds)\b",
            r"\bside that wins (if|when) the village (falls|loses|dies)\b",
        ),
    },
    # Old records have no side facts: the wolves know every side (they know the wolf team).
    evil_verdicts=(r"(?:runs?|ran|hunts?) with the pack", r"one of the pack"),
    sides_known_by=("wolves",),
    evil_sides=("wolves",),
    belief_side="wolves",  # belief reports give P(wolf)
    utility=utility,
)
