"""Werewolf rule flags (spec werewolf.md §2, §3, §11): validated, immutable, presets.

Every parameter of spec §3 is a field with the spec default. ``preset`` fills in the values of
one of the §11 presets; flags given explicitly override the preset. ``roles`` is the explicit
role multiset; when it is omitted the composition rule of §2 is applied to ``n_players``.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, ClassVar, Literal

from pydantic import Field, field_validator, model_validator

from arena.engine import RuleSet

WOLF = "werewolf"
VILLAGER = "villager"
SPECIALS = ("seer", "doctor", "witch", "guard", "hunter")
ROLE_NAMES = (WOLF, VILLAGER, *SPECIALS)
ROLE_TEAM = {role: ("wolves" if role == WOLF else "village") for role in ROLE_NAMES}

PresetName = Literal[
    "classic8", "werewolf_arena", "duskmire", "secret_mafia", "agentscope9", "comm_games7"
]

_R8 = [WOLF, WOLF, "seer", "doctor", VILLAGER, VILLAGER, VILLAGER, VILLAGER]

#: Flag values of each §11 preset (explicit flags override them).
PRESETS: dict[str, dict[str, Any]] = {
    "classic8": {},
    "werewolf_arena": {
        "roles": _R8,
        "wolf_decision": "single_random",
        "seer_result": "role",
        "discussion_mode": "bidding",
        "bidding_max_turns": 8,
        "poll_after_each_turn": True,
        "elimination_rule": "strict_majority",
        "majority_base": "alive_players",
    },
    "duskmire": {
        "roles": [WOLF, WOLF, "seer", "witch", VILLAGER, VILLAGER],
        "wolf_tie": "random",
        "witch_both_same_night": False,
        "tie_rule": "random",
        "night_death_reveal": "none",
        "exile_reveal": "none",
    },
    "secret_mafia": {
        "composition_rule": "round_half_even",
        "doctor_self_protect": False,
        "wolf_tie": "random",
        "discussion_mode": "random_order",
        "discussion_rounds": 3,
        "random_order_reuse": True,
        "vote_mode": "sequential",
        "tie_rule": "random",
    },
    "agentscope9": {
        "roles": [WOLF, WOLF, WOLF, "seer", "witch", "hunter", VILLAGER, VILLAGER, VILLAGER],
        "wolf_discussion_rounds": 3,
        "witch_self_heal": False,
        "witch_both_same_night": False,
        "seer_result": "role",
        "hunter_shoots_if_poisoned": False,
        "last_words": "first_night_and_exiled",
        "max_days": 30,
    },
    "comm_games7": {
        "roles": [WOLF, WOLF, "seer", "witch", "guard", VILLAGER, VILLAGER],
        "wolf_decision": "consensus",
        "consensus_retries": 0,
        "guard_repeat_target": False,
        "witch_both_same_night": True,
        "first_speaker": "fixed",
        "vote_mode": "sequential",
        "tie_rule": "no_exile",
        "last_words": "exiled",
        "win_condition": "side_elimination",
        "side_elimination_scope": "villagers_only",
    },
}


def n_wolves_for(n: int, rule: str = "standard") -> int:
    """Wolves for ``n`` players: ⌊N/4 + ½⌋ (standard) or max(1, round-half-even(N/4))."""
    if rule == "round_half_even":
        return max(1, round(0.25 * n))
    return int(n / 4 + 0.5)


def default_roles(n: int, rule: str = "standard") -> list[str]:
    """§2 composition: wolves by the rule, plus Seer and Doctor, the rest Villagers."""
    w = n_wolves_for(n, rule)
    return [WOLF] * w + ["seer", "doctor"] + [VILLAGER] * (n - w - 2)


class WerewolfRules(RuleSet):
    """All Werewolf parameters (spec §3) with their defaults."""

    preset: PresetName | None = None
    # -- setup and night (§3.1)
    n_players: int = Field(8, ge=5, le=15)
    roles: list[str] | None = None
    composition_rule: Literal["standard", "round_half_even"] = "standard"
    allow_duplicate_specials: bool = False
    first_phase: Literal["night", "day"] = "night"
    wolf_decision: Literal["vote", "single_random", "consensus"] = "vote"
    wolf_discussion_rounds: int = Field(1, ge=0, le=3)
    wolf_tie: Literal["random", "no_kill", "lowest_seat"] = "random"
    consensus_retries: int = Field(1, ge=0, le=3)
    wolf_targets: Literal["non_wolves", "any_other"] = "non_wolves"
    wolf_may_skip: bool = False
    doctor_self_protect: bool = True
    doctor_repeat_target: bool = True
    guard_self_protect: bool = True
    guard_repeat_target: bool = False
    seer_result: Literal["team", "role"] = "team"
    seer_repeat_target: bool = False
    seer_result_if_killed: bool = True
    witch_sees_victim: bool = True
    witch_self_heal: bool = False
    witch_both_same_night: bool = False
    protect_blocks_poison: bool = False
    hunter_shoots_if_poisoned: bool = False
    hunter_may_decline: bool = True
    # -- day (§3.2)
    discussion_mode: Literal["round_robin", "random_order", "bidding", "async"] = "round_robin"
    discussion_rounds: int = Field(1, ge=1, le=5)
    first_speaker: Literal["rotate", "random", "fixed"] = "rotate"
    random_order_reuse: bool = False  # secret_mafia: one permutation for all rounds of a day
    bidding_max_turns: int = Field(8, ge=1, le=30)
    bidding_end_on_zero: bool = True
    bids_visible: bool = False
    async_max_ticks: int = Field(12, ge=1, le=50)
    async_quiet_ticks: int = Field(2, ge=1, le=5)
    async_max_msgs_per_player: int = Field(4, ge=1, le=10)
    max_message_chars: int = Field(800, ge=1, le=20_000)
    vote_mode: Literal["simultaneous", "sequential"] = "simultaneous"
    vote_reveal: Literal["named", "counts_only"] = "named"
    allow_abstain: bool = False
    allow_self_vote: bool = False
    elimination_rule: Literal["plurality", "strict_majority"] = "plurality"
    majority_base: Literal["alive_players", "votes_cast"] = "alive_players"
    tie_rule: Literal["no_exile", "random", "revote"] = "no_exile"
    poll_after_each_turn: bool = False
    # -- deaths, victory, limits (§3.3)
    last_words: Literal["none", "exiled", "all_deaths", "first_night_and_exiled"] = "none"
    night_death_reveal: Literal["none", "team", "role"] = "none"
    exile_reveal: Literal["none", "team", "role"] = "none"
    win_condition: Literal["parity", "full_elimination", "side_elimination"] = "parity"
    side_elimination_scope: Literal["both", "villagers_only"] = "both"
    max_days: int = Field(10, ge=1, le=50)
    cap_outcome: Literal["draw", "wolves", "village"] = "draw"
    dead_observe: bool = False
    belief_reports: Literal["none", "end_of_day", "end"] = "end"
    reward_scheme: Literal["pm1", "zero_one"] = "pm1"

    PRESETS: ClassVar[dict[str, dict[str, Any]]] = PRESETS

    @classmethod
    def preset_flags(cls, name: str, data: dict[str, Any]) -> dict[str, Any]:
        base = dict(PRESETS[name])
        # An explicit player count without explicit roles re-deals by the composition rule.
        if "n_players" in data and "roles" not in data:
            base.pop("roles", None)
        return base

    @classmethod
    def prepare(cls, data: dict[str, Any]) -> dict[str, Any]:
        roles = data.get("roles")
        if roles is not None:
            if not isinstance(roles, list | tuple):
                raise ValueError("roles: must be a list of role names")
            roles = [str(r).strip().lower() for r in roles]
            data["roles"] = roles
            data.setdefault("n_players", len(roles))
        else:
            n = data.get("n_players", 8)
            if isinstance(n, int) and not isinstance(n, bool) and 5 <= n <= 15:
                data["roles"] = default_roles(n, data.get("composition_rule", "standard"))
        return data

    @field_validator("roles")
    @classmethod
    def _known_roles(cls, roles: list[str] | None) -> list[str] | None:
        if roles is None:
            return roles
        unknown = sorted({r for r in roles if r not in ROLE_NAMES})
        if unknown:
            raise ValueError(f"roles: unknown role(s) {unknown}; known roles: {list(ROLE_NAMES)}")
        return roles

    @model_validator(mode="after")
    def _check_composition(self) -> WerewolfRules:
        roles = self.roles or []
        if len(roles) != self.n_players:
            raise ValueError(f"roles: {len(roles)} roles listed but n_players is {self.n_players}")
        counts = Counter(roles)
        wolves = counts[WOLF]
        if wolves < 1:
            raise ValueError("roles: at least one werewolf is required")
        if wolves >= len(roles) - wolves:
            raise ValueError(
                f"roles: wolves must be fewer than non-wolves at the start "
                f"({wolves} wolves vs {len(roles) - wolves} others)"
            )
        if not self.allow_duplicate_specials:
            dup = sorted(r for r in SPECIALS if counts[r] > 1)
            if dup:
                raise ValueError(
                    f"roles: at most one of each special role ({dup} repeated); "
                    "set allow_duplicate_specials=true to allow more"
                )
        return self

    def composition(self) -> dict[str, int]:
        """Public role counts, in the canonical role order."""
        counts = Counter(self.roles or [])
        return {r: counts[r] for r in ROLE_NAMES if counts[r]}

    def summary(self) -> str:
        """A short human-readable statement of the active parameters (for briefings)."""
        r = self
        parts = [
            f"first phase {r.first_phase}",
            f"wolf decision {r.wolf_decision}",
            f"seer learns {r.seer_result}",
            f"discussion {r.discussion_mode}",
            f"vote {r.vote_mode} ({r.elimination_rule}, ties: {r.tie_rule})",
            f"abstain {'allowed' if r.allow_abstain else 'not allowed'}",
            f"last words: {r.last_words}",
            f"reveal at night death: {r.night_death_reveal}, at exile: {r.exile_reveal}",
            f"win condition {r.win_condition}",
            f"at most {r.max_days} days (then {r.cap_outcome})",
        ]
        return "; ".join(parts)
