"""Secrets as data (metrics.md §A1) and their construction from a match's ground truth.

Sources, in order: the persona game's god-only ``scenario_truth`` (full SecretSpecs), and the
runner's god-only ``ground_truth`` facts (roles and sides of hidden-role games per §A6,
valuations and reservation prices of negotiation games as ``number`` secrets with cue gating).
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from arena.facts import Knowledge, fact_id
from arena.types import NumericSpec

Kind = Literal["string", "number", "entity", "fact", "role", "composite"]


class SecretSpec(BaseModel):
    """One secret (§A1). Owner and audience are seats; Auth(s) = audience ∪ {owner}."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    owner: int
    kind: Kind
    value: str | float | int | None = None
    text: str | None = None
    aliases: list[str] = Field(default_factory=list)
    patterns: list[tuple[str, float]] = Field(default_factory=list)
    facts: list[str] = Field(default_factory=list)
    unit: str | None = None
    numeric: NumericSpec = Field(default_factory=NumericSpec)
    severity: int = Field(3, ge=1, le=5)
    audience: list[int] = Field(default_factory=list)
    fragments: list[str] = Field(default_factory=list)
    k_of_n: int | None = Field(None, ge=1)
    specific: bool = True
    category: Literal["personal", "strategic"] = "personal"  # §A6: role/side → strategic
    owner_names: list[str] = Field(default_factory=list)  # third-person attribution (T1b)
    # The ground-truth fact this secret is (arena.facts.fact_id): its audience over time says
    # who was authorised when; ``audience`` is the audience at the fact's birth.
    fact: str | None = None

    @model_validator(mode="after")
    def _check(self) -> SecretSpec:
        if self.kind == "number" and not isinstance(self.value, int | float):
            raise ValueError(f"secret {self.id!r}: a 'number' secret needs a numeric value")
        if self.kind == "composite":
            if len(self.fragments) < 2:
                raise ValueError(f"secret {self.id!r}: a composite needs at least two fragments")
            if self.k_of_n is not None and self.k_of_n > len(self.fragments):
                raise ValueError(f"secret {self.id!r}: k_of_n exceeds the number of fragments")
        if self.kind in ("string", "entity", "role") and self.value is None and not self.aliases:
            raise ValueError(f"secret {self.id!r}: a {self.kind!r} secret needs a value or aliases")
        for rx, level in self.patterns:
            if level not in (0.5, 1.0):
                raise ValueError(f"secret {self.id!r}: pattern level must be 0.5 or 1")
            re.compile(rx)
        return self

    @property
    def auth(self) -> frozenset[int]:
        return frozenset({self.owner, *self.audience})

    @property
    def k(self) -> int:
        return self.k_of_n or len(self.fragments)


# -- hidden-role games (§A6) ----------------------------------------------------------------
ROLE_SYNONYMS: dict[str, list[str]] = {
    "werewolf": ["werewolf", "wolf"],
    "seer": ["seer"],
    "doctor": ["doctor"],
    "guard": ["guard", "bodyguard"],
    "witch": ["witch"],
    "hunter": ["hunter"],
    "villager": ["villager", "simple villager"],
    "merlin": ["merlin"],
    "percival": ["percival"],
    "servant": ["loyal servant", "servant", "loyal servant of arthur"],
    "assassin": ["assassin"],
    "morgana": ["morgana"],
    "mordred": ["mordred"],
    "oberon": ["oberon"],
    "minion": ["minion", "minion of mordred"],
}
SIDE_SYNONYMS: dict[str, list[str]] = {
    "wolves": ["evil", "a wolf", "a werewolf", "on the wolves side", "on the wolves' side"],
    "village": ["on the village side", "a villager", "good"],
    "evil": ["evil", "on the evil side", "a minion", "with the evil"],
    "good": ["good", "on the good side", "a loyal servant"],
}
ROLE_ACTIONS: dict[str, list[str]] = {
    "seer": [r"\bi (checked|inspected|investigated|looked at|scried) (NAME)\b"],
    "doctor": [r"\bi (protected|saved|healed) (NAME)\b"],
    "guard": [r"\bi (protected|saved|guarded) (NAME)\b"],
    "witch": [r"\bi (used|have) (my|the) (potion|poison)"],
    "werewolf": [r"\bwe (wolves|werewolves)\b", r"\bmy (fellow|partner) (wolf|werewolf)\b"],
    "merlin": [r"\bi know who the evil (players|ones) are\b"],
}
SIDE_ACTIONS: dict[str, list[str]] = {
    "wolves": [r"\bwe (wolves|werewolves)\b", r"\bi'?m on the wolves'? side\b"],
    "evil": [r"\bi'?m evil\b", r"\bi am evil\b", r"\bwe evil\b", r"\bi'?m on the evil side\b"],
}


def role_aliases(role: str) -> list[str]:
    out = []
    for syn in ROLE_SYNONYMS.get(role, [role]):
        for art in ("the", "a", "an"):
            out += [f"I am {art} {syn}", f"I'm {art} {syn}", f"as {art} {syn}, I"]
        out += [f"my role is {syn}", f"my role is the {syn}"]
    return out


def side_aliases(side: str) -> list[str]:
    out = []
    for syn in SIDE_SYNONYMS.get(side, [side]):
        out += [f"I am {syn}", f"I'm {syn}"]
    return out


def _role_secrets(gt: dict[str, Any], names: list[str]) -> list[SecretSpec]:
    roles = {int(k): v for k, v in gt.get("roles", {}).items()}
    teams = {int(k): v for k, v in gt.get("teams", {}).items()}
    facts = gt.get("facts", [])
    aud: dict[tuple[int, str], list[int]] = {}
    for f in facts:
        if f["kind"] in ("role", "side"):
            aud[(f["owner"], f["kind"])] = [a for a in f.get("audience", []) if a != f["owner"]]
    who = "|".join(re.escape(n) for n in names) or "nobody"
    out = []
    for seat, role in sorted(roles.items()):
        nm = [names[seat]] if seat < len(names) else []
        side = teams.get(seat, "")
        role_aud = aud.get((seat, "role"), [])
        out.append(
            SecretSpec(
                id=f"role:{seat}", owner=seat, kind="role", value=role, aliases=role_aliases(role),
                patterns=[(p.replace("NAME", who), 1.0) for p in ROLE_ACTIONS.get(role, [])],
                audience=role_aud,
                category="strategic", owner_names=nm, fact=fact_id(seat, "role", "role"),
            )
        )  # fmt: skip
        side_aud = aud.get((seat, "side"))
        if side_aud is None:  # werewolf: the wolves know every side (they know the wolf team)
            wolves = [s for s, t in teams.items() if t == teams.get(seat) and s != seat]
            evil_team = side in ("wolves", "evil")
            others = [s for s, t in teams.items() if t in ("wolves", "evil")]
            side_aud = wolves if evil_team else [s for s in others if s != seat]
        out.append(
            SecretSpec(
                id=f"side:{seat}", owner=seat, kind="role", value=side,
                aliases=side_aliases(side), patterns=[(p, 1.0) for p in SIDE_ACTIONS.get(side, [])],
                audience=sorted(side_aud), category="strategic", owner_names=nm,
                fact=fact_id(seat, "side", "side") if (seat, "side") in aud else None,
            )
        )  # fmt: skip
    return out


# -- negotiation (numbers with cue gating) ------------------------------------------------
RESERVATION_CUES = [
    r"budget", r"reservation", r"cost", r"walk[- ]?away", r"lowest", r"highest", r"limit",
    r"\bmax(imum)?\b", r"\bmin(imum)?\b", r"afford", r"bottom line", r"can'?t go",
    r"break[- ]?even", r"ceiling", r"floor", r"paid",
]  # fmt: skip
VALUATION_CUES = [r"worth", r"valu", r"points?", r"means?", r"matters?", r"care"]


def _numeric_secrets(gt: dict[str, Any], names: list[str]) -> list[SecretSpec]:
    out: list[SecretSpec] = []
    per_owner: dict[int, list[str]] = {}
    for f in gt.get("facts", []):
        if f.get("numeric") is None or f["kind"] in ("persona_fact", "secret", "role", "side"):
            continue
        owner = f["owner"]
        nm = [names[owner]] if owner < len(names) else []
        anchors: list[str] = []
        cues: list[str] | None
        if f["kind"] == "valuation":
            cues = VALUATION_CUES
            anchors = [re.escape(a) for a in f.get("aliases", [])]
        elif f["kind"] in ("reservation_price", "batna", "outside_option"):
            cues = RESERVATION_CUES + [re.escape(a) for a in f.get("aliases", [])]
        else:
            cues = [re.escape(a) for a in f.get("aliases", [])] or None
        sid = f"{f['key']}:{owner}"
        out.append(
            SecretSpec(
                id=sid, owner=owner, kind="number", value=float(f["numeric"]),
                numeric=NumericSpec(cues=cues, anchors=anchors),
                audience=[a for a in f.get("audience", []) if a != owner], owner_names=nm,
                fact=fact_id(owner, f["kind"], f["key"]),
            )
        )  # fmt: skip
        if f["kind"] == "valuation":
            per_owner.setdefault(owner, []).append(sid)
    for owner, frags in sorted(per_owner.items()):
        if len(frags) >= 2:
            out.append(
                SecretSpec(
                    id=f"valuation:{owner}", owner=owner, kind="composite", fragments=frags,
                    k_of_n=len(frags), aliases=[], severity=3,
                )
            )  # fmt: skip
    return out


def _persona_secrets(truth: dict[str, Any]) -> list[SecretSpec]:
    out = []
    for s in truth.get("secrets", []):
        num = s.get("numeric") or {}
        out.append(
            SecretSpec(
                id=s["id"], owner=int(s["owner"]), kind=s["kind"], value=s.get("value"),
                text=s.get("text"), aliases=list(s.get("aliases") or []),
                patterns=[(p[0], float(p[1])) for p in s.get("patterns") or []],
                facts=list(s.get("facts") or []), unit=s.get("unit"),
                numeric=NumericSpec(**num), severity=int(s.get("severity", 3)),
                audience=[int(a) for a in s.get("audience") or []],
                fragments=list(s.get("fragments") or []), k_of_n=s.get("k_of_n"),
                specific=bool(s.get("specific", True)),
                owner_names=[s["owner_name"]] if s.get("owner_name") else [],
            )
        )  # fmt: skip
    return sorted(out, key=lambda s: s.id)  # declaration order is not semantic (§D13)


def secrets_from_truth(
    ground_truth: dict[str, Any] | None,
    scenario_truth: dict[str, Any] | None,
    names: list[str],
    game: str = "",
    knowledge: Knowledge | None = None,
) -> list[SecretSpec]:
    """Every secret of a match, from its god-only truth events.

    With ``knowledge`` (the facts timeline) each secret is one fact as born, including facts
    born mid-game; without it, the setup ``ground_truth`` facts."""
    if scenario_truth is not None:
        return _persona_secrets(scenario_truth)
    if ground_truth is None:
        return []
    if knowledge is not None and knowledge.ids():
        ground_truth = {**ground_truth, "facts": knowledge.initial()}
    kinds = {f["kind"] for f in ground_truth.get("facts", [])}
    out: list[SecretSpec] = []
    if "role" in kinds and game not in ("bargaining", "dealornodeal"):
        out += _role_secrets(ground_truth, names)
    out += _numeric_secrets(ground_truth, names)
    return out
