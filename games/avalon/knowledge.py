"""What each role is told at game start (spec avalon.md §3.2) and who knows whose side/role.

Everything here is a pure function of the dealt roles, the rule flags and the engine RNG (used
only to order Percival's candidate list so that the order reveals nothing).
"""

from __future__ import annotations

import random
from typing import Any

from arena.registry import KnowledgeModel
from games.avalon.config import AvalonRules, side_of


def start_knowledge(
    roles: list[str], rules: AvalonRules, rng: random.Random
) -> list[dict[str, Any]]:
    """Per seat: ``evil`` (seats shown as evil), ``merlin_candidates``, ``evil_roles``."""
    n = len(roles)
    evil = [s for s in range(n) if side_of(roles[s]) == "evil"]
    full = rules.knowledge_model == "full_reveal"
    out: list[dict[str, Any]] = []
    for seat, role in enumerate(roles):
        k: dict[str, Any] = {"evil": [], "merlin_candidates": [], "evil_roles": {}}
        if role == "merlin":
            k["evil"] = [s for s in evil if full or roles[s] != "mordred"]
        elif role == "percival":
            cands = [s for s in range(n) if roles[s] in ("merlin", "morgana")]
            rng.shuffle(cands)
            k["merlin_candidates"] = cands
        elif side_of(role) == "evil":
            if full:
                k["evil"] = [s for s in evil if s != seat]
            elif role != "oberon":
                k["evil"] = [s for s in evil if s != seat and roles[s] != "oberon"]
            if rules.evil_see_roles and role != "oberon":
                k["evil_roles"] = {s: roles[s] for s in k["evil"] if roles[s] != "oberon"}
        out.append(k)
    return out


def initial_audiences(
    roles: list[str], knowledge: list[dict[str, Any]]
) -> tuple[list[set[int]], list[set[int]]]:
    """(side_known, role_known): for each seat j, the seats that know j's side / role."""
    n = len(roles)
    side_known = [{j} for j in range(n)]
    role_known = [{j} for j in range(n)]
    for seat, k in enumerate(knowledge):
        for j in k["evil"]:
            side_known[j].add(seat)
        for j in k["evil_roles"]:
            role_known[j].add(seat)
        cands = k["merlin_candidates"]
        if len(cands) == 1:  # no Morgana: the single candidate is Merlin
            side_known[cands[0]].add(seat)
            role_known[cands[0]].add(seat)
    return side_known, role_known


def utility(reward: float, rules: dict[str, Any]) -> float | None:
    """Win +1 / loss -1 onto [0, 1]."""
    return (reward + 1) / 2


# How roles and sides are named in talk, for the metrics (``GameInfo.knowledge``).
KNOWLEDGE = KnowledgeModel(
    hidden_roles=True,
    role_synonyms={
        "merlin": ("merlin",),
        "percival": ("percival",),
        "servant": ("loyal servant", "servant", "loyal servant of arthur"),
        "assassin": ("assassin",),
        "morgana": ("morgana",),
        "mordred": ("mordred",),
        "oberon": ("oberon",),
        "minion": ("minion", "minion of mordred"),
    },
    side_synonyms={
        "evil": ("evil", "on the evil side", "a minion", "with the evil"),
        "good": ("good", "on the good side", "a loyal servant"),
    },
    # Claims by knowledge or ability, in the owner's voice.
    role_actions={
        "merlin": (
            r"\bi know who the evil (players|ones) are\b",
            r"\bi (was|got) shown (the )?(evil|bad)( guys| players| ones| team)?\b",
            r"\bi (know|can see|could see|saw|see) (exactly )?who(?:'s| is| are) (evil|bad|"
            r"working against us|on the other side|a minion|the traitors?)\b",
            r"\bi(?:'ve)? (known|knew) (from the start |all along |since the start )?(that )?"
            r"\w+( and \w+)? (is|are) (evil|on the other side|minions|bad)\b",
            r"\bi (have )?(seen|know|knew|see) (exactly )?(the faces of )?(every one of |all of |"
            r"each of )?(mordred's|the evil|the minions)\b",
            r"\bi know (exactly )?(which|who) (of you |ones )?(are|is) (working for|serving|with) "
            r"mordred\b",
        ),
        "percival": (
            r"\bi (was shown|was told|see|saw|know) (which |the )?(two |2 )?(people|players|ones|"
            r"candidates)( who)? (might be|could be|are) merlin\b",
            r"\b(two|2|my) merlin candidates\b",
        ),
        "assassin": (
            r"\bi(?:'m| am) the one who (gets to |will |can )?(name|pick|guess|shoot|kill|"
            r"assassinate) merlin\b",
            r"\bi (get to|will|can|'ll) (name|pick|guess|shoot|assassinate) merlin\b",
            r"\bi(?:'m| am) the one who (takes|gets|will take) the (shot|stab|knife)\b",
            r"\bthe (knife|dagger|blade)(?:'s| is) mine\b",
        ),
        "morgana": (
            r"\b(sees|saw|see) me as (a possible |a |the )?merlin\b",
            r"\bi (appear|appeared|look|looked) (to percival )?(as|like) merlin\b",
        ),
        "oberon": (
            r"\b(the others|my team|my teammates|the evil team|they) (don't|do not) know "
            r"(i'm|i am|me)\b",
            r"\bi (don't|do not) know my (teammates|team|fellow evil)\b",
        ),
    },
    side_actions={
        "evil": (r"\bi'?m evil\b", r"\bi am evil\b", r"\bwe evil\b", r"\bi'?m on the evil side\b"),
    },
    evil_sides=("evil",),
    belief_side="good",  # belief reports give P(good)
    utility=utility,
)
