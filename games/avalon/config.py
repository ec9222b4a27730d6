"""Avalon rule flags (spec avalon.md §6), the setup table (§2) and role validation (§3.3)."""

from __future__ import annotations

import warnings
from typing import Any, ClassVar, Literal

from pydantic import Field, field_validator, model_validator

from arena.engine import RuleSet

GOOD_ROLES = ("merlin", "percival", "servant")
EVIL_ROLES = ("assassin", "morgana", "mordred", "oberon", "minion")
UNIQUE_ROLES = ("merlin", "percival", "assassin", "morgana", "mordred", "oberon")
ROLE_ALIASES = {
    "loyal_servant": "servant",
    "loyal servant": "servant",
    "loyal_servant_of_arthur": "servant",
    "minion_of_mordred": "minion",
}
ROLE_TITLES = {
    "merlin": "Merlin",
    "percival": "Percival",
    "servant": "Loyal Servant of Arthur",
    "assassin": "Assassin",
    "morgana": "Morgana",
    "mordred": "Mordred",
    "oberon": "Oberon",
    "minion": "Minion of Mordred",
}

# N -> (good, evil, team sizes for quests 1..5)
SETUP_TABLE: dict[int, tuple[int, int, tuple[int, ...]]] = {
    5: (3, 2, (2, 3, 2, 3, 3)),
    6: (4, 2, (2, 3, 4, 3, 4)),
    7: (4, 3, (2, 3, 3, 4, 4)),
    8: (5, 3, (3, 4, 4, 5, 5)),
    9: (6, 3, (3, 4, 4, 5, 5)),
    10: (6, 4, (3, 4, 4, 5, 5)),
}

# Flag values a named preset sets unless the config gives them explicitly.
PRESETS: dict[str, dict[str, Any]] = {
    "avalonbench": {
        "n_players": 5,
        "role_preset": "basic",
        "fifth_proposal_rule": "auto_approve",
        "good_must_succeed": False,
        "knowledge_model": "full_reveal",
        "assassination_conference": "none",
        "discussion_pre_rounds": 1,
    },
}


def side_of(role: str) -> str:
    return "good" if role in GOOD_ROLES else "evil"


def team_size(n: int, quest: int) -> int:
    return SETUP_TABLE[n][2][quest - 1]


def fails_needed(n: int, quest: int) -> int:
    """f(N, q): two fails on quest 4 with 7+ players, else one."""
    return 2 if n >= 7 and quest == 4 else 1


def preset_roles(preset: str, n: int) -> list[str]:
    good, evil, _ = SETUP_TABLE[n]
    if preset == "basic":
        return ["merlin"] + ["servant"] * (good - 1) + ["assassin"] + ["minion"] * (evil - 1)
    if preset == "percival_morgana":
        return (
            ["merlin", "percival"]
            + ["servant"] * (good - 2)
            + ["assassin", "morgana"]
            + ["minion"] * (evil - 2)
        )
    raise ValueError(f"role_preset: unknown preset {preset!r}")


class AvalonRules(RuleSet):
    """Every rule variant of spec §6 as a validated, immutable flag."""

    preset: Literal["avalonbench"] | None = None
    n_players: int = Field(5, ge=5, le=10)
    role_preset: Literal["basic", "percival_morgana", "custom"] = "basic"
    roles: tuple[str, ...] | None = None
    fifth_proposal_rule: Literal["hammer", "auto_approve"] = "hammer"
    good_must_succeed: bool = True
    knowledge_model: Literal["standard", "full_reveal"] = "standard"
    evil_see_roles: bool = False
    vote_reveal: Literal["named", "counts_only"] = "named"
    first_leader: Literal["random"] | int = "random"
    discussion_pre_rounds: int = Field(1, ge=0, le=3)
    discussion_post_rounds: int = Field(0, ge=0, le=3)
    max_message_chars: int = Field(800, ge=1, le=20_000)
    assassination_conference: Literal["evil_team", "none"] = "evil_team"
    conference_rounds: int = Field(1, ge=1, le=3)
    assassination_targets: Literal["all_others"] = "all_others"
    lady_of_the_lake: bool = False
    belief_reports: Literal["none", "end", "after_each_quest"] = "end"
    reveal_roles_at_end: bool = True
    reward_scheme: Literal["pm1", "zero_one"] = "pm1"

    PRESETS: ClassVar[dict[str, dict[str, Any]]] = PRESETS

    @classmethod
    def prepare(cls, data: dict[str, Any]) -> dict[str, Any]:
        # Explicit roles imply the custom preset unless a preset was named too.
        if data.get("roles") is not None and "role_preset" not in data:
            data["role_preset"] = "custom"
        return data

    @field_validator("roles", mode="before")
    @classmethod
    def _normalise_roles(cls, v: Any) -> Any:
        if v is None:
            return v
        if isinstance(v, str):
            v = [p for p in v.replace(",", " ").split() if p]
        out = []
        for r in v:
            name = str(r).strip().lower()
            name = ROLE_ALIASES.get(name, name)
            if name not in GOOD_ROLES + EVIL_ROLES:
                raise ValueError(f"roles: unknown role {r!r}; known: {GOOD_ROLES + EVIL_ROLES}")
            out.append(name)
        return tuple(out)

    @model_validator(mode="after")
    def _check(self) -> AvalonRules:
        n = self.n_players
        if self.preset == "avalonbench" and n != 5:
            raise ValueError("n_players: the avalonbench preset is defined for 5 players only")
        if isinstance(self.first_leader, int) and not 0 <= self.first_leader < n:
            raise ValueError(f"first_leader: seat {self.first_leader} is not in 0..{n - 1}")
        if self.role_preset == "custom":
            if self.roles is None:
                raise ValueError("roles: role_preset='custom' needs an explicit roles list")
        elif self.roles is not None:
            raise ValueError(
                f"roles: an explicit roles list needs role_preset='custom' "
                f"(got role_preset={self.role_preset!r})"
            )
        validate_roles(self.role_list(), n)
        return self

    def role_list(self) -> list[str]:
        """The roles in play (one per seat, before the deal), sorted good first."""
        if self.roles is not None:
            return list(self.roles)
        return preset_roles(self.role_preset, self.n_players)


def validate_roles(roles: list[str], n: int) -> None:
    """Raise ValueError naming the ``roles`` field when the role list is impossible."""
    good, evil, _ = SETUP_TABLE[n]
    n_good = sum(1 for r in roles if side_of(r) == "good")
    n_evil = len(roles) - n_good
    if len(roles) != n:
        raise ValueError(f"roles: {len(roles)} roles given for n_players={n}")
    if n_evil > evil:
        raise ValueError(
            f"roles: {n_evil} evil roles but {n} players have only {evil} evil seats "
            f"(special evil roles: {[r for r in roles if r in EVIL_ROLES and r != 'minion']})"
        )
    if n_good != good or n_evil != evil:
        raise ValueError(f"roles: need {good} good and {evil} evil roles for {n} players")
    for r in UNIQUE_ROLES:
        if roles.count(r) > 1:
            raise ValueError(f"roles: at most one {ROLE_TITLES[r]} (got {roles.count(r)})")
    if "merlin" in roles and "assassin" not in roles:
        raise ValueError("roles: Merlin in play needs an Assassin")
    if "percival" in roles and "merlin" not in roles:
        raise ValueError("roles: Percival in play needs Merlin")
    if "morgana" in roles and "percival" not in roles:
        warnings.warn("roles: Morgana without Percival has no effect", UserWarning, stacklevel=3)
