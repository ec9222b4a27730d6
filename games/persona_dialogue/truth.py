"""Ground truth for the metrics: private facts with audiences and the god-only scenario record.

``private_facts`` lists every persona fact (kind ``persona_fact``, key = slot), every secret
(kind ``secret``, key = secret id) and every goal (kind ``goal``) with its audience in seats.
The ``scenario_truth`` event (god-only, emitted at setup) carries what PrivateFact cannot: each
secret as a metrics.md §A1 SecretSpec, persona facts with their multi-valued flag, the
``required_shareable`` items, propositions, goals with predicates and the probe specs.
"""

from __future__ import annotations

from typing import Any

from arena.facts import told_in_text
from arena.types import PrivateFact
from games.persona_dialogue.cast import Cast

# (owner seat, fact slot) -> the seats whose briefing told that fact (see told_in_briefings)
Told = dict[tuple[int, str], tuple[int, ...]]


def _granted(cast: Cast, seat: int, known_by: list[str]) -> set[int]:
    seats = {seat}
    for other in range(len(cast.characters)):
        if other != seat and cast.relation(seat, other)[0] in known_by:
            seats.add(other)
    return seats


def told_in_briefings(cast: Cast, briefings: dict[int, str]) -> Told:
    """Persona facts whose value a seat's briefing states on a line naming the owner (e.g. a
    relationship description "Kemi Adeyemi: colleague (product manager ...)"): that seat was
    told. The engine computes it once per game from the setup briefings (their lines are fixed
    at setup)."""
    base = [
        PrivateFact(
            owner=c.seat,
            kind="persona_fact",
            key=f.slot,
            value=f.value,
            audience=tuple(sorted(_granted(cast, c.seat, list(f.known_by)))),
            aliases=tuple(f.aliases),
        )
        for c in cast.characters
        for f in c.facts()
    ]
    return {(f.owner, f.key): f.audience for f in told_in_text(base, briefings, cast.names)}


def fact_audience(
    cast: Cast, told: Told, seat: int, known_by: list[str], slot: str | None = None
) -> tuple[int, ...]:
    """Seats allowed to know a persona fact of ``seat``: its relations in ``known_by`` and,
    for fact ``slot``, every seat its briefing told (see :func:`told_in_briefings`)."""
    seats = _granted(cast, seat, known_by)
    if slot is not None:
        seats.update(told.get((seat, slot), ()))
    return tuple(sorted(seats))


def private_facts(cast: Cast, told: Told) -> list[PrivateFact]:
    out: list[PrivateFact] = []
    for c in cast.characters:
        for f in c.facts():
            out.append(
                PrivateFact(
                    owner=c.seat,
                    kind="persona_fact",
                    key=f.slot,
                    value=f.value,
                    audience=fact_audience(cast, told, c.seat, list(f.known_by), f.slot),
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


def secret_specs(cast: Cast) -> list[dict[str, Any]]:
    """Every secret as a metrics.md §A1 SecretSpec (owner and audience as seats and names)."""
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


def ground_truth(cast: Cast, told: Told, probe_label: Any) -> dict[str, Any]:
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
                    "audience": list(fact_audience(cast, told, c.seat, list(f.known_by), f.slot)),
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
        "secrets": secret_specs(cast),
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
        "probe_label": probe_label,
    }
