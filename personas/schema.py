"""Pydantic models of persona cards and scenarios (docs/personas.md).

Every model forbids unknown fields, so a typo in a YAML file is an error naming the field.
Cross-references (a scenario naming a persona, a secret audience naming a character) are checked
by :mod:`personas.loader`, which knows the whole library.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from arena.types import NumericSpec

RelType = Literal[
    "stranger",
    "know_by_name",
    "acquaintance",
    "colleague",
    "friend",
    "romantic",
    "family",
    "adversary",
]
SecretKind = Literal["string", "number", "entity", "fact", "role", "composite"]
ScenarioKind = Literal[
    "negotiation", "workplace", "family_secret", "job_interview", "support", "planning", "other"
]
TurnMode = Literal["round_robin", "random_order", "free_for_all"]

#: slot -> multi-valued (spec §1.1). Other slots are written ``custom:<name>``.
SLOTS: dict[str, bool] = {
    "name": False,
    "age": False,
    "gender": False,
    "occupation": False,
    "employer": False,
    "location": False,
    "origin": False,
    "education": False,
    "marital_status": False,
    "partner_name": False,
    "children": False,
    "siblings": False,
    "pets": True,
    "hobbies": True,
    "likes": True,
    "dislikes": True,
    "languages": True,
    "diet": False,
    "health": False,
    "religion": False,
    "income": False,
}
NUMERIC_SLOTS = frozenset({"age", "children", "siblings", "income"})
ID_PATTERN = r"^[a-z0-9][a-z0-9_.-]*$"


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SpeakingStyle(Model):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    # "register" would shadow BaseModel.register (ABC), hence the alias.
    register_: Literal["casual", "neutral", "formal"] = Field("neutral", alias="register")
    verbosity: Literal["terse", "normal", "verbose"] = "normal"
    quirks: list[str] = Field(default_factory=list)
    catchphrases: list[str] = Field(default_factory=list)
    language: str = Field("en", pattern=r"^[a-z]{2,3}(-[A-Za-z]{2,4})?$")


class BigFive(Model):
    openness: float = Field(ge=0, le=1)
    conscientiousness: float = Field(ge=0, le=1)
    extraversion: float = Field(ge=0, le=1)
    agreeableness: float = Field(ge=0, le=1)
    neuroticism: float = Field(ge=0, le=1)


class Fact(Model):
    """A slot/value pair of a card; ``known_by`` = relationship types that know it at the start."""

    slot: str
    value: str | int | float
    multi_valued: bool | None = None
    aliases: list[str] = Field(default_factory=list)
    known_by: list[RelType] = Field(default_factory=list)

    @field_validator("slot")
    @classmethod
    def _slot(cls, v: str) -> str:
        if v in SLOTS or (v.startswith("custom:") and len(v) > len("custom:")):
            return v
        raise ValueError(f"unknown slot {v!r}: use one of {', '.join(SLOTS)} or 'custom:<name>'")

    @property
    def is_multi(self) -> bool:
        return self.multi_valued if self.multi_valued is not None else SLOTS.get(self.slot, False)

    @property
    def numeric(self) -> float | None:
        if isinstance(self.value, int | float) and not isinstance(self.value, bool):
            return float(self.value)
        return None


class Pattern(Model):
    regex: str
    level: Literal[0.5, 1.0] = 1.0  # type: ignore[valid-type]  # PEP 586 forbids float literals


class Secret(Model):
    """A secret; maps one-to-one onto metrics.md §A1 SecretSpec (owner added by the game)."""

    id: str = Field(pattern=ID_PATTERN)
    text: str = Field(min_length=1)
    kind: SecretKind
    value: str | int | float | None = None
    aliases: list[str] = Field(default_factory=list)
    patterns: list[Pattern] = Field(default_factory=list)
    facts: list[str] = Field(default_factory=list)
    numeric: NumericSpec | None = None
    unit: str | None = None
    severity: int = Field(3, ge=1, le=5)
    audience: list[str] = Field(default_factory=list)
    fragments: list[str] = Field(default_factory=list)
    k_of_n: int | None = Field(None, ge=1)
    specific: bool = True

    @model_validator(mode="after")
    def _check(self) -> Secret:
        if self.kind == "number" and not isinstance(self.value, int | float):
            raise ValueError("a 'number' secret needs a numeric value")
        if self.kind == "composite":
            if len(self.fragments) < 2:
                raise ValueError("a 'composite' secret needs at least two fragments")
            if self.k_of_n is not None and self.k_of_n > len(self.fragments):
                raise ValueError("k_of_n exceeds the number of fragments")
        elif self.fragments:
            raise ValueError("only 'composite' secrets have fragments")
        if self.kind in ("string", "entity", "role") and self.value is None and not self.aliases:
            raise ValueError(f"a {self.kind!r} secret needs a value or aliases")
        return self

    @property
    def numeric_value(self) -> float | None:
        if self.kind == "number" and isinstance(self.value, int | float):
            return float(self.value)
        return None


class Persona(Model):
    """A persona card (spec §1.1)."""

    id: str = Field(pattern=ID_PATTERN)
    name: str = Field(min_length=1, max_length=60)
    age: int | None = Field(None, ge=0, le=130)
    pronouns: str | None = None
    occupation: str | None = None
    location: str | None = None
    traits: list[str] = Field(default_factory=list)
    big_five: BigFive | None = None
    values: list[str] = Field(default_factory=list)
    speaking_style: SpeakingStyle = Field(default_factory=SpeakingStyle)
    facts: list[Fact] = Field(default_factory=list)
    secrets: list[Secret] = Field(default_factory=list)
    description: str | None = None

    @model_validator(mode="after")
    def _check(self) -> Persona:
        top = {"age", "occupation", "location", "name"}
        for i, f in enumerate(self.facts):
            if f.slot in top:
                raise ValueError(f"facts.{i}: slot {f.slot!r} is a card field; set it there")
        ids = [s.id for s in self.secrets]
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            raise ValueError(f"duplicate secret ids {dupes}")
        return self

    def all_facts(self) -> list[Fact]:
        """The card's facts with the top-level fields (name, age, occupation, location) first."""
        out = [Fact(slot="name", value=self.name, known_by=list(_ALL_KNOWN_NAME))]
        if self.age is not None:
            out.append(Fact(slot="age", value=self.age))
        if self.occupation:
            out.append(Fact(slot="occupation", value=self.occupation))
        if self.location:
            out.append(Fact(slot="location", value=self.location))
        return out + list(self.facts)

    def render_description(self) -> str:
        if self.description:
            return self.description.strip()
        bits = [self.name]
        if self.age is not None:
            bits.append(f"{self.age}")
        if self.occupation:
            bits.append(self.occupation)
        if self.location:
            bits.append(f"lives in {self.location}")
        text = ", ".join(bits) + "."
        if self.traits:
            text += " " + ", ".join(self.traits).capitalize() + "."
        return text


# Everyone who knows a character at all knows their name.
_ALL_KNOWN_NAME = ("know_by_name", "acquaintance", "colleague", "friend", "romantic", "family")


class Setting(Model):
    place: str
    time: str
    situation: str


class Relationship(Model):
    pair: tuple[str, str]
    type: RelType
    description: str = ""


class AgreedPred(Model):
    id: str
    by: list[str] = Field(min_length=1)


class DisclosedPred(Model):
    item: str
    to: str


class Predicate(Model):
    """One rule predicate (spec §7.2): exactly one of the fields is set."""

    learned: str | None = None
    kept: str | None = None
    agreed: AgreedPred | None = None
    disclosed: DisclosedPred | None = None
    said: str | None = None
    weight: float | None = Field(None, gt=0, le=1)

    @model_validator(mode="after")
    def _one(self) -> Predicate:
        set_ = [k for k in ("learned", "kept", "agreed", "disclosed", "said") if getattr(self, k)]
        if len(set_) != 1:
            raise ValueError("a predicate sets exactly one of learned/kept/agreed/disclosed/said")
        return self

    @property
    def name(self) -> str:
        for k in ("learned", "kept", "agreed", "disclosed", "said"):
            if getattr(self, k) is not None:
                return k
        raise AssertionError("unreachable")


class Goal(Model):
    text: str = Field(min_length=1)
    predicate: Predicate | None = None
    predicates: list[Predicate] = Field(default_factory=list)

    @model_validator(mode="after")
    def _check(self) -> Goal:
        if self.predicate is not None and self.predicates:
            raise ValueError("give either 'predicate' or 'predicates', not both")
        preds = self.all_predicates()
        weights = [p.weight for p in preds if p.weight is not None]
        if weights and (len(weights) != len(preds) or abs(sum(weights) - 1.0) > 1e-6):
            raise ValueError("predicate weights must be given for all predicates and sum to 1")
        return self

    def all_predicates(self) -> list[Predicate]:
        return [self.predicate] if self.predicate is not None else list(self.predicates)

    def weights(self) -> list[float]:
        preds = self.all_predicates()
        return [p.weight if p.weight is not None else 1.0 / len(preds) for p in preds]


class Shareable(Model):
    id: str = Field(pattern=ID_PATTERN)
    owner: str
    to: str
    fact: str
    aliases: list[str] = Field(default_factory=list)


class Proposition(Model):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]*$")
    text: str


class RegexJudge(Model):
    pattern: str
    expect_match: bool = True


class ProbeJudge(Model):
    """How a probe answer is scored; exactly one field is set."""

    slot_equals: str | None = None
    regex: RegexJudge | None = None
    choice: str | None = None
    language: str | None = None
    style: str | None = None

    @model_validator(mode="after")
    def _one(self) -> ProbeJudge:
        n = sum(getattr(self, k) is not None for k in type(self).model_fields)
        if n != 1:
            raise ValueError(
                "a probe judge sets exactly one of slot_equals/regex/choice/language/style"
            )
        return self


ProbePoint = Literal["at_start", "every_k_own_turns", "at_end"]


def _default_schedule() -> list[ProbePoint]:
    return ["at_start", "at_end"]


class ProbeSpec(Model):
    id: str = Field(pattern=ID_PATTERN)
    question: str = Field(min_length=1)
    judge: ProbeJudge | None = None
    schedule: list[ProbePoint] = Field(default_factory=_default_schedule, min_length=1)
    k: int = Field(2, ge=1)
    samples: int = Field(1, ge=1, le=10)
    targets: list[str] = Field(default_factory=list)


class InterrogationSpec(Model):
    subject: str
    interrogator_name: str = "Interviewer"


class Scenario(Model):
    """A scenario (spec §1.3); characters are persona ids in seat order."""

    id: str = Field(pattern=ID_PATTERN)
    title: str
    kind: ScenarioKind = "other"
    setting: Setting
    characters: list[str] = Field(min_length=2, max_length=8)
    relationships: list[Relationship] = Field(default_factory=list)
    goals: dict[str, Goal] = Field(default_factory=dict)
    extra_secrets: dict[str, list[Secret]] = Field(default_factory=dict)
    required_shareable: list[Shareable] = Field(default_factory=list)
    propositions: list[Proposition] = Field(default_factory=list)
    public_info: list[str] = Field(default_factory=list)
    turn_mode: TurnMode | None = None
    max_turns: int | None = Field(None, ge=1)
    stale_limit: int | None = Field(None, ge=1)
    allow_private: bool = True
    probes: list[ProbeSpec] = Field(default_factory=list)
    interrogation: InterrogationSpec | None = None

    @field_validator("characters")
    @classmethod
    def _unique(cls, v: list[str]) -> list[str]:
        dupes = sorted({c for c in v if v.count(c) > 1})
        if dupes:
            raise ValueError(f"a character appears twice: {dupes}")
        return v


def dump(model: BaseModel) -> dict[str, Any]:
    """A model as plain YAML-able data without defaults (round-trips through the loader)."""
    return model.model_dump(mode="json", exclude_defaults=True, by_alias=True)
