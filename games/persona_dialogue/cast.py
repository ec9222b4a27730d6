"""The cast of one match: who sits where, with which card, goal, secrets and relationships."""

from __future__ import annotations

from dataclasses import dataclass, field

from games.persona_dialogue.config import PersonaDialogueRules
from personas.loader import Library, load_library
from personas.schema import (
    Fact,
    Goal,
    Persona,
    ProbeSpec,
    Proposition,
    RelType,
    Scenario,
    Secret,
    Setting,
    Shareable,
)


@dataclass(frozen=True)
class Character:
    seat: int
    name: str
    persona: Persona | None  # None: the interrogator seat without a card
    goal: Goal | None
    secrets: tuple[Secret, ...]
    role: str = "character"  # "character", "interrogator" or "subject"

    @property
    def pid(self) -> str:
        return self.persona.id if self.persona else "interrogator"

    def facts(self) -> list[Fact]:
        return self.persona.all_facts() if self.persona else []


@dataclass
class Cast:
    scenario_id: str
    title: str
    setting: Setting
    characters: list[Character]
    relationships: dict[frozenset[int], tuple[RelType, str]]
    propositions: list[Proposition]
    shareable: list[Shareable]
    public_info: list[str]
    probes: list[ProbeSpec]
    allow_private: bool
    turn_mode: str
    max_turns: int
    stale_limit: int | None
    audience: dict[str, tuple[int, ...]] = field(default_factory=dict)  # secret id -> seats

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.characters]

    def seat_of(self, key: str) -> int | None:
        for c in self.characters:
            if key in (c.name, c.pid) or key.casefold() == c.name.casefold():
                return c.seat
        for c in self.characters:  # first names are enough in messages
            if key.casefold() == c.name.split()[0].casefold():
                return c.seat
        return None

    def relation(self, a: int, b: int) -> tuple[RelType, str]:
        return self.relationships.get(frozenset((a, b)), ("stranger", ""))

    def secret(self, sid: str) -> Secret | None:
        for c in self.characters:
            for s in c.secrets:
                if s.id == sid:
                    return s
        return None

    def granted_facts(self, seat: int, other: int) -> list[Fact]:
        """Facts of ``other``'s card that ``seat`` knows through their relationship."""
        rel, _ = self.relation(seat, other)
        return [f for f in self.characters[other].facts() if f.slot != "name" and rel in f.known_by]

    def secret_owner(self, sid: str) -> int | None:
        for c in self.characters:
            if any(s.id == sid for s in c.secrets):
                return c.seat
        return None


def build_cast(rules: PersonaDialogueRules) -> Cast:
    lib = load_library(rules.library)
    if rules.interrogation:
        return _interrogation_cast(rules, lib)
    if rules.scenario is not None:
        sc = lib.scenario(rules.scenario)
    else:
        assert rules.characters
        sc = _adhoc(lib, rules.characters)
    return _scenario_cast(rules, lib, sc)


def _adhoc(lib: Library, ids: list[str]) -> Scenario:
    cards = [lib.persona(i) for i in ids]
    return Scenario(
        id="adhoc-" + "-".join(c.id for c in cards),
        title="An open conversation",
        setting=Setting(
            place="a quiet café",
            time="an ordinary afternoon",
            situation="The characters meet and talk.",
        ),
        characters=[c.id for c in cards],
    )


def _scenario_cast(rules: PersonaDialogueRules, lib: Library, sc: Scenario) -> Cast:
    cards = [lib.persona(pid) for pid in sc.characters]
    seat_by_key = {}
    for s, p in enumerate(cards):
        seat_by_key[p.id] = s
        seat_by_key[p.name] = s
    chars = []
    for s, p in enumerate(cards):
        goal = sc.goals.get(p.id) or sc.goals.get(p.name)
        extra = sc.extra_secrets.get(p.id, []) + sc.extra_secrets.get(p.name, [])
        chars.append(Character(s, p.name, p, goal, tuple(p.secrets) + tuple(extra)))
    rels = {}
    for r in sc.relationships:
        a, b = (seat_by_key[x] for x in r.pair)
        rels[frozenset((a, b))] = (r.type, r.description)
    cast = Cast(
        scenario_id=sc.id,
        title=sc.title,
        setting=sc.setting,
        characters=chars,
        relationships=rels,
        propositions=list(sc.propositions),
        shareable=list(sc.required_shareable),
        public_info=list(sc.public_info),
        probes=list(sc.probes) + list(rules.extra_probes) if rules.probes else [],
        allow_private=sc.allow_private if rules.allow_private is None else rules.allow_private,
        turn_mode=rules.turn_mode or sc.turn_mode or "round_robin",
        max_turns=rules.max_turns or sc.max_turns or 20,
        stale_limit=rules.stale_limit or sc.stale_limit,
    )
    _resolve_audiences(cast, seat_by_key)
    _check_probe_label(cast, rules.probe_label)
    return cast


def _interrogation_cast(rules: PersonaDialogueRules, lib: Library) -> Cast:
    sc = lib.scenario(rules.scenario) if rules.scenario else None
    subject_key = rules.subject
    if subject_key is None and sc is not None:
        subject_key = sc.interrogation.subject if sc.interrogation else sc.characters[0]
    if subject_key is None:
        raise ValueError("interrogation needs a subject (persona id)")
    card = lib.persona(subject_key)
    asker = rules.interrogator_name
    if sc is not None and sc.interrogation is not None and rules.interrogator_name == "Interviewer":
        asker = sc.interrogation.interrogator_name
    if asker == card.name:
        raise ValueError("interrogator_name must differ from the subject's name")
    extra = sc.extra_secrets.get(card.id, []) if sc else []
    chars = [
        Character(0, asker, None, None, (), role="interrogator"),
        Character(1, card.name, card, None, tuple(card.secrets) + tuple(extra), role="subject"),
    ]
    m = min(rules.interrogation_m, len(stage1_slots(card)))
    cast = Cast(
        scenario_id=f"interrogation-{card.id}",
        title=f"An interview with {card.name}",
        setting=Setting(
            place="an interview room",
            time="today",
            situation=f"{asker} asks {card.name} questions about their life.",
        ),
        characters=chars,
        relationships={frozenset((0, 1)): ("stranger", "interviewer and interviewee")},
        propositions=[],
        shareable=[],
        public_info=[],
        probes=[],  # the interrogation's own retest stage replaces probes
        allow_private=False,
        turn_mode="round_robin",
        max_turns=rules.max_turns or 2 * (2 * m + rules.interrogation_q),
        stale_limit=None,
    )
    _resolve_audiences(cast, {card.id: 1, card.name: 1})
    return cast


#: stage-1 slot order (spec §5)
STAGE1_ORDER = (
    "name", "age", "occupation", "location", "origin", "education", "marital_status",
    "children", "siblings", "hobbies", "employer", "partner_name", "pets", "likes",
    "dislikes", "languages", "diet", "health", "religion", "income", "gender",
)  # fmt: skip


def stage1_slots(card: Persona) -> list[str]:
    present = {f.slot for f in card.all_facts()}
    return [s for s in STAGE1_ORDER if s in present]


def _resolve_audiences(cast: Cast, seat_by_key: dict[str, int]) -> None:
    for c in cast.characters:
        for s in c.secrets:
            seats = {c.seat} | {seat_by_key[a] for a in s.audience if a in seat_by_key}
            cast.audience[s.id] = tuple(sorted(seats))


def _check_probe_label(cast: Cast, label: str) -> None:
    if cast.probes and any(label.casefold() == n.casefold() for n in cast.names):
        raise ValueError(f"probe_label {label!r} is a character's name; choose another label")
