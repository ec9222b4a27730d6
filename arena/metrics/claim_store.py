"""Persona consistency over the whole history (metrics.md §B2–§B3): one claim store per
character holding every first-person claim of every turn; each new claim is checked against the
card (PC) and against every earlier claim (IC), and a contradiction names the line it is against
(the card, or the turn of the earlier claim).

Besides same-slot conflicts (§B1 ``conflicts``), the store knows three cross-slot implications:
"I've never held a golf club" against a hobby or an earlier claim that shares its words, open
quantities of one dimension about the same subject ("Blixt weighs 32 kilos" / "Blixt is barely
twelve kilos"), and hobbies/likes as one family.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from arena.metrics.claim_frames import never_hits
from arena.metrics.claims import FAMILY, MULTI, TASTE, Claim, Matcher, conflicts, extract
from arena.metrics.privacy import ratio
from arena.metrics.text import tokens

EVASIONS = re.compile(
    r"\b(i don't know|i'd rather not|i would rather not|no comment|can't say|cannot say|"
    r"prefer not to say|not sure i should)\b",
    re.I,
)


class Card:
    """One agent's persona card facts: slot -> [(value, multi)] plus aliases."""

    def __init__(self, facts: list[dict[str, Any]], name: str = "", description: str = ""):
        self.facts = facts
        self.name = name
        self.description = description
        self.aliases = {str(f["value"]): list(f.get("aliases") or []) for f in facts}

    def slots(self) -> set[str]:
        return {f["slot"] for f in self.facts}

    def values(self, slot: str) -> list[str]:
        return [str(f["value"]) for f in self.facts if f["slot"] == slot]

    def multi(self, slot: str) -> bool:
        for f in self.facts:
            if f["slot"] == slot:
                return bool(f.get("multi_valued", slot in MULTI))
        return slot in MULTI


def evasive(text: str, claims: list[Claim], after_question: bool) -> bool:
    if EVASIONS.search(text.replace("’", "'")) and not claims:
        return True
    return after_question and len(tokens(text)) < 3


@dataclass(frozen=True)
class Stored:
    """One remembered claim: its store key, value, polarity and the turn that said it."""

    key: str
    value: str
    polarity: int
    turn: int


def _key(c: Claim) -> str:
    return "taste" if c.slot in TASTE else c.slot


def _qty_related(a: str, b: str) -> bool:
    """Two quantity keys about one subject: same dimension, a shared subject word."""
    pa, pb = a.split(":", 2), b.split(":", 2)
    if pa[1] != pb[1]:
        return False
    return pa[2] == pb[2] or bool(set(pa[2].split()) & set(pb[2].split()))


class ClaimTracker:
    """One agent's claim store over its turns: each turn's claims against the card (PC) and
    against every earlier claim (IC). A correction ("sorry, I said 50 earlier, I'm 52") replaces
    the earlier value of its slot instead of contradicting it. ``against`` holds, after each
    call, the lines the turn's contradictions are against. The live stream and the report use
    this one implementation."""

    def __init__(self, card: Card | None, m: Matcher) -> None:
        self.card, self.m = card, m
        self.store: list[Stored] = []
        self.n_slot_claims = self.n_conflict_claims = 0
        self.stated: set[tuple[str, str]] = set()
        self.against: list[dict[str, Any]] = []

    def _card_values(self, slot: str) -> tuple[str | None, list[str]]:
        card = self.card
        assert card is not None
        if slot in TASTE:  # hobbies and likes are one family; a dislike meets both
            vals = [v for s in TASTE for v in card.values(s)]
            return (slot if slot in card.slots() else next(
                (s for s in TASTE if s in card.slots()), None)), vals  # fmt: skip
        return (slot if slot in card.slots() else None), card.values(slot)

    def against_card(self, claims: list[Claim]) -> int:
        self.against = []
        if self.card is None:
            return 0
        bad_turn = 0
        for c in claims:
            if c.past:
                continue
            if c.slot == "never":
                vals = [str(f["value"]) for f in self.card.facts if f["slot"] != "name"]
                if c.polarity > 0 and never_hits(c.value, vals):
                    bad_turn = 1
                    self.against.append({"line": "card", "slot": c.slot, "value": c.value})
                continue
            slot, vals = self._card_values(c.slot)
            if slot is None or not vals:
                continue
            self.n_slot_claims += 1
            multi = self.card.multi(slot) or slot in MULTI
            if conflicts(self.m, c, multi, [(v, 1) for v in vals]):
                self.n_conflict_claims += 1
                bad_turn = 1
                self.against.append({"line": "card", "slot": slot, "value": c.value})
            elif c.polarity > 0:
                for v in self.card.values(slot):
                    if self.m.same(slot, c.value, v):
                        self.stated.add((slot, v))
        return bad_turn

    def _earlier(self, c: Claim) -> list[Stored]:
        """The stored claims a new claim ``c`` contradicts."""
        key = _key(c)
        if c.slot == "never":
            return [s for s in self.store if s.polarity > 0 and not s.key.startswith(
                ("qty:", "dur:", "num:", "own:")) and never_hits(c.value, [s.value])]  # fmt: skip
        hits = [s for s in self.store if s.key == "never" and c.polarity > 0
                and not key.startswith(("qty:", "dur:", "num:", "own:"))
                and never_hits(s.value, [c.value])]  # fmt: skip
        if key.startswith("qty:"):
            same = [s for s in self.store if s.key.startswith("qty:") and _qty_related(s.key, key)]
        else:
            same = [s for s in self.store if s.key == key]
        multi = c.slot in MULTI or (self.card is not None and self.card.multi(c.slot))
        if conflicts(self.m, c, multi, [(s.value, s.polarity) for s in same]):
            hits += [
                s for s in same if conflicts(self.m, c, multi, [(s.value, s.polarity)])
            ] or same
        return hits

    def against_self(self, claims: list[Claim]) -> int:
        bad_turn = 0
        for c in claims:
            if c.past:
                continue
            key = _key(c)
            if c.correction:
                self.store = [s for s in self.store if s.key != key]
            hits = self._earlier(c)
            if hits:
                bad_turn = 1
                self.against += [{"line": s.turn, "slot": c.slot, "value": c.value,
                                  "earlier": s.value} for s in hits]  # fmt: skip
            self.store.append(Stored(key, c.value, c.polarity, c.turn))
        return bad_turn


def consistency(turns: list[tuple[str, bool]], card: Card | None, age_tol: float,
                occupations: set[str]) -> dict[str, Any]:  # fmt: skip
    """PC against the card and IC from the claim store over one agent's own turns.

    ``turns`` = (text, answers_a_question) in order; each turn's ``against`` names the lines
    (``"card"`` or an earlier turn number) its contradictions are against."""
    m = Matcher(card.aliases if card else None, age_tol)
    claims_per_turn = [extract(t, i + 1, occupations) for i, (t, _) in enumerate(turns)]
    T = len(turns)
    tracker = ClaimTracker(card, m)
    contra_card_turns = 0
    c_t: list[int] = []
    coop: list[bool] = []
    per_turn = []
    for i, ((text, after_q), claims) in enumerate(zip(turns, claims_per_turn, strict=True)):
        cc = tracker.against_card(claims)
        contra_card_turns += cc
        ct = tracker.against_self(claims)
        c_t.append(ct)
        ev = evasive(text, claims, after_q)
        coop.append(not ev)
        per_turn.append({"turn": i + 1, "claims": [(c.slot, c.value, c.polarity) for c in claims],
                         "contra_card": cc, "contra_self": ct, "evasive": ev,
                         "against": list(tracker.against)})  # fmt: skip
    out: dict[str, Any] = {"n_turns": T, "per_turn": per_turn}
    if card is not None and T:
        out["PC"] = 1 - contra_card_turns / T
        n_slot = tracker.n_slot_claims
        out["PC_claims"] = None if n_slot == 0 else 1 - tracker.n_conflict_claims / n_slot
        card_facts = [(f["slot"], str(f["value"])) for f in card.facts if f["slot"] != "name"]
        out["expression"] = ratio(sum(f in tracker.stated for f in card_facts), len(card_facts))
    else:
        out["PC"] = out["PC_claims"] = out["expression"] = None
    s_coop = ratio(sum(coop), T)
    t_star = next((i + 1 for i in range(T) if coop[i] and claims_per_turn[i]), None)
    s_nc = None
    if t_star is not None and T - t_star > 0:
        s_nc = 1 - sum(c_t[t_star:]) / (T - t_star)
    out.update(S_coop=s_coop, S_nc=s_nc, t_star=t_star)
    if s_coop is None or s_nc is None:
        out["IC"] = None
    else:
        out["IC"] = 0.0 if s_coop + s_nc == 0 else 2 * s_coop * s_nc / (s_coop + s_nc)
    return out


__all__ = ["FAMILY", "Card", "ClaimTracker", "Stored", "consistency", "evasive"]
