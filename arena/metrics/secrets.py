"""Secrets as data (metrics.md §A1) and their construction from a match's ground truth.

Sources, in order: the persona game's god-only ``scenario_truth`` (full SecretSpecs), and the
runner's god-only ``ground_truth`` and ``facts`` records (roles and sides of hidden-role games per
§A6, numeric private values as ``number`` secrets with cue gating). What the words for roles and
sides are, and which cues gate which numbers, is each game's ``KnowledgeModel`` (registry).
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from arena import registry
from arena.facts import Knowledge, fact_id
from arena.metrics.text import compiled
from arena.registry import KnowledgeModel
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
    # Regexes in the owner's own voice ("I checked NAME", "as the seer, I"): evidence only when
    # the owner speaks (or the speaker is unknown, e.g. a memory insight).
    own_patterns: list[tuple[str, float]] = Field(default_factory=list)
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
        for rx, level in (*self.patterns, *self.own_patterns):
            if level not in (0.5, 1.0):
                raise ValueError(f"secret {self.id!r}: pattern level must be 0.5 or 1")
            compiled(rx, re.I)  # checked once: the tiers compile it with re.I, cached
        return self

    @property
    def auth(self) -> frozenset[int]:
        return frozenset({self.owner, *self.audience})

    @property
    def k(self) -> int:
        return self.k_of_n or len(self.fragments)


# -- hidden-role games (§A6): the words come from the game's knowledge model ---------------
def role_aliases(role: str, model: KnowledgeModel) -> list[str]:
    out = []
    for syn in model.role_synonyms.get(role, (role,)):
        for art in ("the", "a", "an"):
            out += [f"I am {art} {syn}", f"I'm {art} {syn}", f"as {art} {syn}, I"]
        out += [f"my role is {syn}", f"my role is the {syn}"]
    return out


def side_aliases(side: str, model: KnowledgeModel) -> list[str]:
    out = []
    for syn in model.side_synonyms.get(side, (side,)):
        out += [f"I am {syn}", f"I'm {syn}"]
    return out


def _alt(words: list[str]) -> str:
    """A regex alternation of ``words`` (longest first), each optionally plural."""
    forms: set[str] = set()
    for w in words:
        w = w.casefold()
        forms.add(re.escape(w).replace(r"\ ", r"\s+"))
        if re.search(r"[a-z]$", w) and " " not in w.strip():
            plural = w[:-1] + "ves" if w.endswith("f") else w + ("es" if w.endswith("s") else "s")
            forms.add(re.escape(plural))
    return "(?:" + "|".join(sorted(forms, key=len, reverse=True)) + ")"


_ADV = r"(?:\s+(?:just|only|really|actually|honestly|indeed|truly|simply|definitely|literally|also|in\s+fact|obviously|clearly|surely|certainly))*"
_DET = r"(?:\s+(?:the|a|an|one\s+of\s+the|the\s+other|another|our|their|your|a\s+simple|a\s+plain|the\s+real|the\s+only))?"
_THIRD_VERB = (
    r"(?:'s|\s+is|\s+was|\s+must\s+be|\s+has\s+to\s+be|\s+came\s+up(?:\s+as)?|"
    r"\s+turned\s+out\s+to\s+be|\s+showed\s+up\s+as|'s\s+role\s+is|\s+plays)"
)
_CHECK = r"(?:checked|inspected|investigated|looked\s+(?:into|at)|scried|peeked\s+at)"


def role_claims(words: list[str], owner_names: list[str]) -> tuple[list[str], list[str]]:
    """(own, third) claim regexes for a role or side named by any of ``words``.

    Own (the owner speaking): "I'm (just|really…) (the|a|one of the…) ROLE", "as (the) ROLE, I…",
    "being the ROLE", "my role is ROLE", "ROLE here", "we (are the) ROLEs", "X and I are (the)
    ROLEs", "my ROLE shot/check…", and the owner's briefing read back ("You are NAME; your role
    is ROLE"). Third (anyone): "NAME is/'s/was/must be/came up as (our|the|a) ROLE", "NAME's
    role is ROLE", "checked NAME … she's a ROLE". Negations, hedges, questions, hypotheticals
    and quotes are voided by the cascade, not here.
    """
    r = _alt(words)
    names = [n for full in owner_names for n in {full, full.split()[0]} if len(n) > 1]
    nm = "(?:" + "|".join(sorted({re.escape(n) for n in names}, key=len, reverse=True)) + ")"
    own = [
        rf"\bI(?:'m|\s+am){_ADV}{_DET}\s+{r}\b",
        rf"\bas{_DET}\s+{r},?\s+(?:I|I'm|I'll|I've|I'd|me|my|we)\b",
        rf"\bbeing{_DET}\s+{r}\b",
        rf"\bmy\s+(?:role|card|character)\s*(?:is|:|=){_ADV}{_DET}\s*{r}\b",
        rf"(?:^|[.!?;:,]\s*)(?:the\s+|a\s+|plain\s+|simple\s+)?{r}\s+here\b",
        rf"\bwe(?:'re|\s+are)?{_ADV}{_DET}\s+{r}\b",
        rf"\b\w+\s+and\s+I\s+are{_ADV}{_DET}\s+{r}\b",
        rf"\bmy\s+{r}\s+(?:shot|check|checks|power|powers|ability|save|card|duty|visions?|"
        r"potions?|gun|bullet|night\s+action)\b",
    ]
    third: list[str] = []
    if names:
        own += [
            rf"\b{nm}\s+here\W+(?:the\s+|a\s+)?{r}\b",
            rf"\byou\s+are\s+{nm}\W+(?:and\s+)?(?:you\s+are\s+|playing\s+|the\s+)?{_DET}\s*{r}\b",
            rf"\byou\s+are\s+{nm}\b[^?]{{0,60}}?\byour\s+role\s*(?:is|:|=){_DET}\s*{r}\b",
        ]
        third = [
            rf"\b{nm}{_THIRD_VERB}{_ADV}{_DET}\s+{r}\b",
            rf"\b{nm}\s+and\s+I\s+are{_ADV}{_DET}\s+{r}\b",
            rf"\b{_CHECK}\s+{nm}\b[^.?!]{{0,40}}?\b(?:she|he|they)(?:'s|\s+is|\s+are|\s+came\s+up(?:\s+as)?)"
            rf"{_DET}\s+{r}\b",
        ]
    return own, third


def _role_secrets(gt: dict[str, Any], names: list[str], model: KnowledgeModel) -> list[SecretSpec]:
    roles = {int(k): v for k, v in gt.get("roles", {}).items()}
    teams = {int(k): v for k, v in gt.get("teams", {}).items()}
    facts = gt.get("facts", [])
    aud: dict[tuple[int, str], list[int]] = {}
    for f in facts:
        if f["kind"] in ("role", "side"):
            aud[(f["owner"], f["kind"])] = [a for a in f.get("audience", []) if a != f["owner"]]
    # an action names a player, or refers to one ("I checked her")
    who = "|".join([*(re.escape(n) for n in names), "her", "him", "them"])
    out = []
    for seat, role in sorted(roles.items()):
        nm = [names[seat]] if seat < len(names) else []
        side = teams.get(seat, "")
        role_aud = aud.get((seat, "role"), [])
        own, third = role_claims(list(model.role_synonyms.get(role, (role,))), nm)
        actions = [p.replace("NAME", who) for p in model.role_actions.get(role, ())]
        out.append(
            SecretSpec(
                id=f"role:{seat}", owner=seat, kind="role", value=role,
                aliases=role_aliases(role, model),
                patterns=[(p, 1.0) for p in third],
                own_patterns=[(p, 1.0) for p in (*own, *actions)],
                audience=role_aud,
                category="strategic", owner_names=nm, fact=fact_id(seat, "role", "role"),
            )
        )  # fmt: skip
        side_aud = aud.get((seat, "side"))
        if side_aud is None:  # a record without side facts: the game says who knows sides
            side_aud = [s for s, t in teams.items() if t in model.sides_known_by and s != seat]
            side_aud += [s for s in role_aud if s not in side_aud]
        own, third = role_claims(list(model.side_synonyms.get(side, (side,))), nm)
        out.append(
            SecretSpec(
                id=f"side:{seat}", owner=seat, kind="role", value=side,
                aliases=side_aliases(side, model),
                patterns=[(p, 1.0) for p in third],
                own_patterns=[(p, 1.0) for p in (*own, *model.side_actions.get(side, ()))],
                audience=sorted(side_aud), category="strategic", owner_names=nm,
                fact=fact_id(seat, "side", "side") if (seat, "side") in aud else None,
            )
        )  # fmt: skip
    return out


# -- numbers with cue gating ----------------------------------------------------------------
def _numeric_secrets(
    gt: dict[str, Any], names: list[str], model: KnowledgeModel
) -> list[SecretSpec]:
    out: list[SecretSpec] = []
    per_owner: dict[tuple[int, str], list[str]] = {}  # an owner's anchored facts of one kind
    for f in gt.get("facts", []):
        if f.get("numeric") is None or f["kind"] in ("persona_fact", "secret", "role", "side"):
            continue
        owner = f["owner"]
        nm = [names[owner]] if owner < len(names) else []
        aliases = [re.escape(a) for a in f.get("aliases", [])]
        anchored = f["kind"] in model.anchored_kinds
        table = list(model.number_cues.get(f["kind"], ()))
        anchors: list[str] = aliases if anchored else []
        cues: list[str] | None
        if anchored:
            cues = table
        elif table:
            cues = table + aliases
        else:
            cues = aliases or None
        sid = f"{f['key']}:{owner}"
        out.append(
            SecretSpec(
                id=sid, owner=owner, kind="number", value=float(f["numeric"]),
                numeric=NumericSpec(cues=cues, anchors=anchors),
                audience=[a for a in f.get("audience", []) if a != owner], owner_names=nm,
                fact=fact_id(owner, f["kind"], f["key"]),
            )
        )  # fmt: skip
        if anchored:
            per_owner.setdefault((owner, f["kind"]), []).append(sid)
    for (owner, kind), frags in sorted(per_owner.items()):
        if len(frags) >= 2:
            out.append(
                SecretSpec(
                    id=f"{kind}:{owner}", owner=owner, kind="composite", fragments=frags,
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
    model = registry.knowledge(game)
    kinds = {f["kind"] for f in ground_truth.get("facts", [])}
    out: list[SecretSpec] = []
    if "role" in kinds and model.hidden_roles:
        out += _role_secrets(ground_truth, names, model)
    out += _numeric_secrets(ground_truth, names, model)
    return out
