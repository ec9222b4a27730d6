"""Ground truth as a timeline: who knew which fact, from which point of the match on.

An engine's ``private_facts()`` is its current knowledge model: every secret with the seats
allowed to know it. It changes during a game (a Seer inspects, Lady of the Lake looks at a
card, a death reveals a role, the end shows every role). The runner records the facts once at
setup in the god-only ``ground_truth`` event and, whenever they change afterwards, in a
god-only ``facts`` event carrying each new or changed fact in full (:class:`FactTracker`).

:class:`Knowledge` reads those events back and answers "what did seat ``s`` know at ``seq``
``t``". Knowledge only grows: a fact missing from a later record is still known by whoever
knew it. Records written before the timeline existed have only the setup ``ground_truth``;
they read as facts that never changed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from arena.events import Event
from arena.types import PrivateFact

FACTS_EVENT = "facts"  # the runner's god-only record of facts that changed mid-game
GROUND_TRUTH_EVENT = "ground_truth"  # the runner's god-only setup snapshot


def fact_id(owner: int, kind: str, key: str) -> str:
    """The identity of a fact across records: its value may not change, its audience may."""
    return f"{owner}:{kind}:{key}"


def fact_key(fact: PrivateFact | dict[str, Any]) -> str:
    if isinstance(fact, PrivateFact):
        return fact_id(fact.owner, fact.kind, fact.key)
    return fact_id(int(fact["owner"]), str(fact["kind"]), str(fact["key"]))


# -- facts the game itself disclosed --------------------------------------------------------
# A fact stays "private" only while the game has not told it: a metric that scores a seat
# for saying a fact its listeners were already told would count a leak that is none (issue
# 15, item 13). Engines declare what they disclosed with these two helpers.


@dataclass(frozen=True)
class Implication:
    """Knowing fact ``source`` of a seat with a value in ``values`` tells its ``target`` fact.

    E.g. ``Implication("side", "role", {"wolves": "werewolf"})``: the wolves' side has one role,
    so whoever learns that a seat is a wolf (a team reveal, a Seer's result) knows its role.
    """

    source: str  # fact kind
    target: str  # fact kind
    values: Mapping[Any, Any]  # source value -> the target value it implies


def with_implications(
    facts: list[PrivateFact], implications: Iterable[Implication]
) -> list[PrivateFact]:
    """``facts`` with each implied fact's audience and publicity widened to its source's."""
    by_owner: dict[tuple[int, str], PrivateFact] = {(f.owner, f.kind): f for f in facts}
    widened: dict[int, PrivateFact] = {}
    for rule in implications:
        for f in facts:
            if f.kind != rule.source or f.value not in rule.values:
                continue
            target = by_owner.get((f.owner, rule.target))
            if target is None or target.value != rule.values[f.value]:
                continue
            target = widened.get(id(target), target)
            audience = tuple(sorted({*target.audience, *f.audience}))
            public = target.public or f.public
            if audience != target.audience or public != target.public:
                widened[id(by_owner[(f.owner, rule.target)])] = target.model_copy(
                    update={"audience": audience, "public": public}
                )
    if not widened:
        return facts
    return [widened.get(id(f), f) for f in facts]


_SENTENCE = re.compile(r"\n|[.;!?]+(?:\s|$)")  # a line, or a sentence in it
NEAR_WORDS = 6  # at most this many words between the owner's name and the value


def _mentions(sentence: str, words: str) -> list[tuple[int, int]]:
    pattern = rf"(?<!\w){re.escape(words)}(?!\w)"
    return [m.span() for m in re.finditer(pattern, sentence, re.IGNORECASE)]


def _tells(sentence: str, who: set[str], value: str, others: set[str]) -> bool:
    """Does ``sentence`` tie ``value`` to the owner: the owner's name, then the value a few
    words later, no other seat's name between them? (A value before the names, as in "one is
    Merlin, the other Morgana: Farid, Bruno", ties it to nobody.)"""
    values = _mentions(sentence, value)
    if not values:
        return False
    for name in who:
        for _, b in _mentions(sentence, name):
            for c, _ in values:
                if c < b:
                    continue
                gap = sentence[b:c]
                if len(gap.split()) <= NEAR_WORDS and not any(_mentions(gap, o) for o in others):
                    return True
    return False


def told_in_text(
    facts: list[PrivateFact], texts: Mapping[int, str], names: list[str]
) -> list[PrivateFact]:
    """``facts`` with every seat added whose engine-written ``texts`` state them: a sentence
    that ties the value (a string of at least four characters, as whole words) to the owner —
    the owner's name (full or first), the value a few words after it, no other
    seat's name in between ("Bruno (the Hunter) shoots", "Kemi Adeyemi: colleague (product
    manager ...)", "Alice=werewolf").
    Only for text the engine wrote (briefings, its own event lines), never agents' words."""
    firsts = {n.split(" ")[0] for n in names if n}
    out = []
    for f in facts:
        extra: set[int] = set()
        if not f.public and isinstance(f.value, str) and len(f.value) >= 4:
            owner = names[f.owner] if f.owner < len(names) else ""
            # the owner's names only: games use ``aliases`` for the value's other names (Avalon's
            # "Loyal Servant of Arthur") or for a seat the fact is about (a Seer's target)
            who = {owner, owner.split(" ")[0]} - {""}
            others = ({*names, *firsts} - who) - {""}
            for seat, text in texts.items():
                if seat in f.audience or seat == f.owner or f.value.lower() not in text.lower():
                    continue
                if any(_tells(x, who, f.value, others) for x in _SENTENCE.split(text)):
                    extra.add(seat)
        if extra:
            f = f.model_copy(update={"audience": tuple(sorted({*f.audience, *extra}))})
        out.append(f)
    return out


class FactTracker:
    """The runner's side: which facts changed since the last record (new, audience grew,
    became public, value changed)."""

    def __init__(self, facts: Iterable[PrivateFact] = ()) -> None:
        self._last: list[PrivateFact] = list(facts)
        self._known: dict[str, PrivateFact] = {fact_key(f): f for f in self._last}

    def changes(self, facts: list[PrivateFact]) -> list[PrivateFact]:
        """Facts of ``facts`` that differ from what was last recorded; remembers ``facts``."""
        last = self._last
        # Engines hand out the same objects until their state changes: the common case
        # (nothing new) costs an identity check per fact.
        if len(facts) == len(last) and all(a is b for a, b in zip(facts, last, strict=True)):
            return []
        self._last = list(facts)
        out = []
        for f in facts:
            key = fact_key(f)
            before = self._known.get(key)
            if before is None or before != f:
                self._known[key] = f
                out.append(f)
        return out


@dataclass(frozen=True)
class FactState:
    """One fact as recorded at ``seq``."""

    seq: int
    fact: dict[str, Any]

    @property
    def public(self) -> bool:
        return bool(self.fact.get("public"))

    @property
    def audience(self) -> frozenset[int]:
        return frozenset(
            {int(self.fact["owner"]), *(int(a) for a in self.fact.get("audience", ()))}
        )


class Knowledge:
    """Every fact of a match over time, read from ``ground_truth`` and ``facts`` events.

    Feed events in ``seq`` order (:meth:`feed`); then ask :meth:`knew`, :meth:`authorised`,
    :meth:`known_by` or :meth:`facts_at` for any point of the match.
    """

    def __init__(self, events: Iterable[Event] = ()) -> None:
        self._history: dict[str, list[FactState]] = {}
        for e in events:
            self.feed(e)

    def feed(self, event: Event) -> bool:
        """Take the facts of a ``ground_truth`` or ``facts`` event; False for any other."""
        if event.type not in (GROUND_TRUTH_EVENT, FACTS_EVENT):
            return False
        self.record(event.seq, event.payload.get("facts") or [])
        return True

    def record(self, seq: int, facts: Iterable[dict[str, Any]]) -> None:
        for raw in facts:
            key = fact_key(raw)
            history = self._history.setdefault(key, [])
            if history:  # knowledge never shrinks: a record only adds seats or publicity
                prev = history[-1]
                merged = {**raw, "audience": sorted(prev.audience | FactState(seq, raw).audience)}
                merged["public"] = prev.public or bool(raw.get("public"))
                raw = merged
            history.append(FactState(seq, dict(raw)))

    # -- questions -------------------------------------------------------------------
    def ids(self) -> list[str]:
        return list(self._history)

    def state(self, fid: str, seq: int | None = None) -> FactState | None:
        """The fact as last recorded at or before ``seq`` (``None``: the latest record);
        ``None`` when it did not exist yet."""
        found = None
        for st in self._history.get(fid, ()):
            if seq is not None and st.seq > seq:
                break
            found = st
        return found

    def first(self, fid: str) -> FactState | None:
        history = self._history.get(fid)
        return history[0] if history else None

    def facts_at(self, seq: int | None = None) -> list[dict[str, Any]]:
        """Every fact that existed at ``seq`` (``None``: the end), as then recorded."""
        out = []
        for fid in self._history:
            st = self.state(fid, seq)
            if st is not None:
                out.append(st.fact)
        return out

    def initial(self) -> list[dict[str, Any]]:
        """Every fact as first recorded (a fact born mid-game: at its birth)."""
        return [h[0].fact for h in self._history.values()]

    def authorised(self, fid: str, seq: int) -> frozenset[int] | None:
        """Seats allowed to know fact ``fid`` at ``seq`` (its owner included); ``None`` once it
        is public. A fact born after ``seq`` answers with its audience at birth."""
        st = self.state(fid, seq)
        if st is None:
            born = self.first(fid)
            return born.audience if born is not None else frozenset()
        return None if st.public else st.audience

    def knew(self, seat: int, fid: str, seq: int) -> bool:
        """Did ``seat`` know fact ``fid`` at ``seq``? (Nobody knows a fact before its birth.)"""
        st = self.state(fid, seq)
        return st is not None and (st.public or seat in st.audience)

    def known_by(self, seat: int, seq: int | None = None) -> list[dict[str, Any]]:
        """The facts ``seat`` knew at ``seq`` (``None``: the end)."""
        return [
            f
            for f in self.facts_at(seq)
            if f.get("public") or seat == f["owner"] or seat in f.get("audience", ())
        ]
