"""Seeded random rule sets for property and fuzz tests (catalog variants + flag overrides)."""

from __future__ import annotations

import random
from typing import Any

from games.catalog import GAMES

VARIANTS = GAMES[0].variants

ALTERNATIVES: dict[str, list[Any]] = {
    "dead_observe": [True, False],
    "bids_visible": [True, False],
    "vote_mode": ["simultaneous", "sequential"],
    "vote_reveal": ["named", "counts_only"],
    "discussion_mode": ["round_robin", "random_order", "bidding", "async"],
    "belief_reports": ["none", "end_of_day", "end"],
    "night_death_reveal": ["none", "team", "role"],
    "exile_reveal": ["none", "team", "role"],
    "last_words": ["none", "exiled", "all_deaths", "first_night_and_exiled"],
    "tie_rule": ["no_exile", "random", "revote"],
    "poll_after_each_turn": [True, False],
    "allow_abstain": [True, False],
    "allow_self_vote": [True, False],
    "wolf_decision": ["vote", "single_random", "consensus"],
    "wolf_may_skip": [True, False],
    "wolf_targets": ["non_wolves", "any_other"],
    "first_phase": ["night", "day"],
    "seer_result": ["team", "role"],
    "witch_sees_victim": [True, False],
    "elimination_rule": ["plurality", "strict_majority"],
    "win_condition": ["parity", "full_elimination", "side_elimination"],
    "max_days": [1, 3, 6],
}

EXTRA_ROLES = [
    ["werewolf", "werewolf", "seer", "witch", "guard", "hunter", "doctor", "villager"],
    ["werewolf", "werewolf", "werewolf", "seer", "hunter", "witch", "villager", "villager",
     "villager", "villager", "guard"],
]  # fmt: skip


def random_rules(rng: random.Random) -> dict[str, Any]:
    """A valid rule dict: a catalog variant or extra role set, plus a few random overrides."""
    if rng.random() < 0.2:
        rules: dict[str, Any] = {"roles": list(rng.choice(EXTRA_ROLES))}
    else:
        rules = dict(VARIANTS[rng.choice(sorted(VARIANTS))])
        if rng.random() < 0.2 and "preset" not in rules:
            rules["n_players"] = rng.randint(5, 12)
    for key in rng.sample(sorted(ALTERNATIVES), rng.randint(0, 6)):
        rules[key] = rng.choice(ALTERNATIVES[key])
    rules.setdefault("max_message_chars", 200)
    return rules
