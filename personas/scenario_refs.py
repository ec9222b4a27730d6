"""The cross-references of one scenario: every character, secret, proposition and shareable item
it names must exist, and the names must not clash. Works on the parsed scenario and the persona
cards; :func:`personas.loader.check_scenario` turns the issues into located problems."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from personas.schema import Persona, Scenario

Loc = tuple[str | int, ...]
Issue = tuple[Loc, str]  # (where in the scenario, what is wrong)


@dataclass(frozen=True)
class Cast:
    """The scenario's characters: persona id -> card; a character is named by id or by name."""

    members: dict[str, Persona]

    @property
    def names(self) -> list[str]:
        return [p.name for p in self.members.values()]

    def who(self, key: str) -> str | None:
        for pid, p in self.members.items():
            if key in (pid, p.name):
                return pid
        return None


def scenario_issues(sc: Scenario, personas: Mapping[str, Persona]) -> list[Issue]:
    """Every broken reference of ``sc``, in the order of its fields."""
    out: list[Issue] = []
    members: dict[str, Persona] = {}
    for i, pid in enumerate(sc.characters):
        if pid not in personas:
            out.append((("characters", i), f"unknown persona {pid!r}"))
        else:
            members[pid] = personas[pid]
    if len(members) < len(sc.characters):
        return out  # the rest would only repeat the missing persona
    cast = Cast(members)
    names = cast.names
    if len(set(names)) != len(names):
        out.append((("characters",), f"two characters share a name: {names}"))
    out += _relationship_issues(sc, cast)
    for key in sc.goals:
        if cast.who(key) is None:
            out.append((("goals", key), f"{key!r} is not a character of this scenario"))
    secret_ids, secret_issues = _secrets(sc, cast)
    out += secret_issues
    for i, item in enumerate(sc.required_shareable):
        for f in ("owner", "to"):
            if cast.who(getattr(item, f)) is None:
                out.append(
                    (("required_shareable", i, f), f"{getattr(item, f)!r} is not a character")
                )
    out += _goal_issues(sc, cast, secret_ids)
    for i, probe in enumerate(sc.probes):
        for j, t in enumerate(probe.targets):
            if cast.who(t) is None:
                out.append((("probes", i, "targets", j), f"{t!r} is not a character"))
    if sc.interrogation is not None:
        if cast.who(sc.interrogation.subject) is None:
            subject = sc.interrogation.subject
            out.append((("interrogation", "subject"), f"{subject!r} is not a character"))
        if sc.interrogation.interrogator_name in names:
            where: Loc = ("interrogation", "interrogator_name")
            out.append((where, "the interrogator name is a character's name"))
    return out


def _relationship_issues(sc: Scenario, cast: Cast) -> list[Issue]:
    """Each relationship joins two different characters, and a pair has one relationship."""
    out: list[Issue] = []
    seen_pairs: set[frozenset[str]] = set()
    for i, r in enumerate(sc.relationships):
        a, b = (cast.who(x) for x in r.pair)
        for j, x in enumerate(r.pair):
            if cast.who(x) is None:
                out.append(
                    (("relationships", i, "pair", j), f"{x!r} is not a character of this scenario")
                )
        if a and b:
            if a == b:
                out.append(
                    (("relationships", i, "pair"), "a relationship needs two different characters")
                )
            pair_key = frozenset((a, b))
            if pair_key in seen_pairs:
                out.append((("relationships", i, "pair"), "this pair already has a relationship"))
            seen_pairs.add(pair_key)
    return out


def _secrets(sc: Scenario, cast: Cast) -> tuple[dict[str, str], list[Issue]]:
    """Secret id -> owner over the cards and the scenario's extra secrets, and the extra
    secrets' issues: an unknown owner, a duplicate id, a bad audience, an unknown fragment."""
    out: list[Issue] = []
    refs = set(cast.members) | set(cast.names)
    secret_ids: dict[str, str] = {}
    for pid, p in cast.members.items():
        for s in p.secrets:
            secret_ids[s.id] = pid
    for key, secrets in sc.extra_secrets.items():
        owner = cast.who(key)
        if owner is None:
            out.append((("extra_secrets", key), f"{key!r} is not a character of this scenario"))
            continue
        for i, s in enumerate(secrets):
            if s.id in secret_ids:
                out.append((("extra_secrets", key, i, "id"), f"duplicate secret id {s.id!r}"))
            secret_ids[s.id] = owner
            for j, a in enumerate(s.audience):
                loc: Loc = ("extra_secrets", key, i, "audience", j)
                if a not in refs:
                    out.append((loc, f"unknown character {a!r}"))
                elif cast.who(a) == owner:
                    out.append((loc, "the owner is implied"))
    for key, secrets in sc.extra_secrets.items():
        for i, s in enumerate(secrets):
            for k, f in enumerate(s.fragments):
                if f not in secret_ids:
                    out.append(
                        (("extra_secrets", key, i, "fragments", k), f"unknown secret id {f!r}")
                    )
    return secret_ids, out


def _goal_issues(sc: Scenario, cast: Cast, secret_ids: Mapping[str, str]) -> list[Issue]:
    """Each goal predicate names a known secret, proposition, shareable item and characters."""
    out: list[Issue] = []
    props = {p.id for p in sc.propositions}
    items = {x.id for x in sc.required_shareable}
    for key, goal in sc.goals.items():
        loc0: Loc = ("goals", key, "predicate") if goal.predicate else ("goals", key, "predicates")
        for n, pr in enumerate(goal.all_predicates()):
            loc = loc0 if goal.predicate else (*loc0, n)
            ref = pr.learned or pr.kept
            if ref is not None and ref not in secret_ids:
                out.append(((*loc, pr.name), f"unknown secret id {ref!r}"))
            if pr.agreed is not None:
                if pr.agreed.id not in props:
                    out.append(((*loc, "agreed", "id"), f"unknown proposition {pr.agreed.id!r}"))
                for j, c in enumerate(pr.agreed.by):
                    if cast.who(c) is None:
                        out.append(((*loc, "agreed", "by", j), f"{c!r} is not a character"))
            if pr.disclosed is not None:
                item = pr.disclosed.item
                if item not in items:
                    out.append(((*loc, "disclosed", "item"), f"unknown shareable item {item!r}"))
                if cast.who(pr.disclosed.to) is None:
                    to = pr.disclosed.to
                    out.append(((*loc, "disclosed", "to"), f"{to!r} is not a character"))
    return out
