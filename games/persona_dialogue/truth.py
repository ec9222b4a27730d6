"""Ground truth for the metrics: private facts with audiences and the god-only scenario record.

``private_facts`` lists every persona fact (kind ``persona_fact``, key = slot), every secret
(kind ``secret``, key = secret id) and every goal (kind ``goal``) with its audience in seats.
The ``scenario_truth`` event (god-only, emitted at setup) carries what PrivateFact cannot: each
secret as a metrics.md §A1 SecretSpec, persona facts with their multi-valued flag, the
``required_shareable`` items, propositions, goals with predicates and the probe specs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arena.types import PrivateFact

if TYPE_CHECKING:
    from games.persona_dialogue.rules import PersonaDialogueEngine


def fact_audience(engine: PersonaDialogueEngine, seat: int, known_by: list[str]) -> tuple[int, ...]:
    cast = engine.cast
    seats = {seat}
    for other in range(len(cast.characters)):
        if other != seat and cast.relation(seat, other)[0] in known_by:
            seats.add(other)
    return tuple(sorted(seats))


def private_facts(engine: PersonaDialogueEngine) -> list[PrivateFact]:
    out: list[PrivateFact] = []
    cast = engine.cast
    for c in cast.characters:
        for f in c.facts():
            out.append(
                PrivateFact(
                    owner=c.seat,
                    kind="persona_fact",
                    key=f.slot,
                    value=f.value,
                    audience=fact_audience(engine, c.seat, list(f.known_by)),
                    public=f.slot == "name",
                    numeric=f.numeric,
                    aliases=tuple(f.aliases),
                )
            )
        for s in c.secrets:
            out.append(
                PrivateFact(
                    owner=c.seat,
                    kind="secret",
                    key=s.id,
                    value=s.value if s.value is not None else s.text,
                    audience=cast.audience[s.id],
                    numeric=s.numeric_value,
                    aliases=tuple(s.aliases),
                )
            )
        if c.goal is not None:
            out.append(
                PrivateFact(
                    owner=c.seat, kind="goal", key="goal", value=c.goal.text, audience=(c.seat,)
                )
            )
    return out


def secret_specs(engine: PersonaDialogueEngine) -> list[dict[str, Any]]:
    """Every secret as a metrics.md §A1 SecretSpec (owner and audience as seats and names)."""
    cast = engine.cast
    out = []
    for c in cast.characters:
        for s in c.secrets:
            spec = s.model_dump(mode="json")
            patterns = spec.pop("patterns")
            spec.update(
                owner=c.seat,
                owner_name=c.name,
                audience=[a for a in cast.audience[s.id] if a != c.seat],
                audience_names=[cast.names[a] for a in cast.audience[s.id] if a != c.seat],
                patterns=[[p["regex"], p["level"]] for p in patterns],
                k_of_n=s.k_of_n or (len(s.fragments) if s.fragments else None),
            )
            out.append(spec)
    return out


def ground_truth(engine: PersonaDialogueEngine) -> dict[str, Any]:
    cast = engine.cast
    facts = []
    for c in cast.characters:
        for f in c.facts():
            facts.append(
                {
                    "owner": c.seat,
                    "slot": f.slot,
                    "value": f.value,
                    "multi_valued": f.is_multi,
                    "aliases": list(f.aliases),
                    "audience": list(fact_audience(engine, c.seat, list(f.known_by))),
                }
            )
    goals = {}
    for c in cast.characters:
        if c.goal is not None:
            goals[str(c.seat)] = c.goal.model_dump(mode="json", exclude_none=True)
    return {
        "scenario": cast.scenario_id,
        "names": cast.names,
        "personas": [c.pid for c in cast.characters],
        "roles": [c.role for c in cast.characters],
        "relationships": [
            {"seats": sorted(k), "type": t, "description": d}
            for k, (t, d) in cast.relationships.items()
        ],
        "secrets": secret_specs(engine),
        "persona_facts": facts,
        "required_shareable": [
            {
                **x.model_dump(mode="json"),
                "owner_seat": cast.seat_of(x.owner),
                "to_seat": cast.seat_of(x.to),
            }
            for x in cast.shareable
        ],
        "propositions": [p.model_dump(mode="json") for p in cast.propositions],
        "goals": goals,
        "probes": [p.model_dump(mode="json") for p in cast.probes],
        "probe_label": engine.rules.probe_label,
    }
