"""Slot-based claim extraction and comparison (metrics.md §B1).

A claim is a first-person, current statement of a persona slot (age, occupation, location, …).
Extraction works per sentence after three text-level steps: quotes are dropped, in-utterance
repairs are applied ("I'm 43 — sorry, 41" reads as "I'm 41"), and an utterance that corrects an
earlier line ("Sorry, I said 50 earlier, I'm 52") marks its claims as corrections, which replace
the speaker's earlier value instead of contradicting it. Questions, hypotheticals, reported speech
and figures of speech yield no claim; past statements are marked ``past``. Besides explicit slot
patterns, relational phrases imply slots ("my late wife" → widowed, "my daughter" → children ≥ 1,
"my patients" → a caring occupation, "the youngest of three" → two siblings); ages come in bare
("I'm 41"), adverbial ("I just turned 40"), spelled-out and range forms ("in my late sixties");
incomes are converted to a yearly figure ("6,000 a month" → 72,000).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from arena.metrics.attribution import fold as chat_fold
from arena.metrics.claim_frames import frames
from arena.metrics.claim_match import (
    FAMILY,
    MULTI,
    NUMERIC,
    TASTE,
    Claim,
    Matcher,
    conflicts,
    fold,
)
from arena.metrics.claim_patterns import (
    AGE_ANSWER,
    ASKED_ANSWERED,
    AT_HEART,
    BORES,
    CAR,
    COMPILED,
    CORRECTS_EARLIER,
    DISLIKE,
    EAT_MEAT,
    EX,
    FIGURATIVE,
    FIRST,
    HYPO,
    IMPLICIT_FIRST,
    LANGUAGES,
    LATE,
    LEAD_PREP,
    NAME_NOT,
    NEG_HAVE,
    NO_LANG,
    NO_PET,
    NOT_FAN,
    OCC_CUES,
    OCCUPATIONS,
    ONLY_CHILD,
    PASSED,
    PAST,
    QUOTED,
    RELATIONAL,
    REPAIR,
    REPORTED,
    SIB,
    TRAILING,
    VEGGIE,
)
from arena.metrics.claim_values import (
    age_value,
    clean,
    count_value,
    cut_place,
    demonym,
    known_occupation,
    parts,
    yearly,
)
from arena.metrics.text import norm, sentences

__all__ = ["FAMILY", "MULTI", "NUMERIC", "OCCUPATIONS", "TASTE", "Claim", "Matcher", "conflicts",
           "extract", "fold"]  # fmt: skip


def repair(text: str) -> str:
    """Apply in-utterance repairs: the value after a repair marker replaces the value of the
    last claim before it ("I have two kids, no wait, three" → "I have three kids")."""
    for _ in range(4):
        m = REPAIR.search(text)
        if m is None:
            return text
        before, after = text[: m.start()], text[m.end() :]
        spans = _value_spans(before)
        chunk = re.split(r"[,.;!?]|\s[—–-]\s", after, maxsplit=1)[0].strip()
        rest = after[len(chunk) :]
        if not spans or not chunk:
            # a marker with nothing to repair (a sorry, a plain "no"): leave it out
            text = before + ". " + after
            continue
        value = LEAD_PREP.sub("", chunk)
        value = TRAILING.sub("", value).strip() or chunk
        if _own_claim(chunk):  # a full repair clause ("sorry, I'm 41"): it replaces the claim
            text = _drop_span(before, spans[-1]) + " " + after
            continue
        a, b = spans[-1]
        text = before[:a] + value + before[b:] + rest
    return text


def _drop_span(text: str, span: tuple[int, int]) -> str:
    """The sentence part holding the repaired claim is removed (the repair restates it)."""
    start = max(
        text.rfind(".", 0, span[0]), text.rfind("!", 0, span[0]), text.rfind("?", 0, span[0])
    )
    return text[: start + 1]


def _own_claim(chunk: str) -> bool:
    return bool(re.match(r"^(?:I|I'm|I am|I've|my)\b", chunk, re.I))


def _value_spans(text: str) -> list[tuple[int, int]]:
    out = []
    for sent_start, sent in _sentence_offsets(text):
        if sent.rstrip().endswith("?"):
            continue
        for slot, rx in COMPILED:
            for m in rx.finditer(sent):
                if slot == "occupation" and not known_occupation(m.group("v"), OCCUPATIONS):
                    continue
                a, b = m.span("v")
                out.append((sent_start + a, sent_start + b))
    return sorted(out)


def _sentence_offsets(text: str) -> list[tuple[int, str]]:
    out, pos = [], 0
    for s in sentences(text):
        i = text.find(s, pos)
        out.append((max(i, 0), s))
        pos = max(i, 0) + len(s)
    return out


def claim_sentences(text: str) -> list[str]:
    return sentences(text)


def extract(text: str, turn: int = 0, occupations: set[str] | None = None) -> list[Claim]:
    occ = OCCUPATIONS | {norm(o) for o in (occupations or set())}
    # chat register: "im 34", "ive got two kids" read as "I'm 34", "I've got two kids"
    text = QUOTED.sub(" ", chat_fold(text))
    correction = bool(CORRECTS_EARLIER.search(text))
    # "My handicap? Twenty-eight." answers its own question: one statement
    text = ASKED_ANSWERED.sub(r"\1 is \2", text)
    text = repair(text)
    out: list[Claim] = []
    answer = AGE_ANSWER.match(text)
    if answer:  # "Me? 45." / "Age? 35, though …": the bare number answers the age question
        out.append(Claim("age", answer.group("v"), 1, turn, answer.group(), False, correction))
    for sent in claim_sentences(text):
        s = sent.strip()
        if s.endswith("?") or REPORTED.search(s) or HYPO.search(s):
            continue
        if not (FIRST.search(s) or IMPLICIT_FIRST.search(s)):
            # the character's word about its own world ("The crossing takes nine hours")
            out.extend(Claim(sl, v, pol, turn, sp, False, correction) for sl, v, pol, sp in frames(s)
                       if sl.startswith("qty:") and not FIGURATIVE.search(s))  # fmt: skip
            continue
        past = bool(PAST.search(s))

        def add(slot: str, value: str, pol: int, span: str, past: bool = past) -> None:
            out.append(Claim(slot, value, pol, turn, span, past, correction))

        taste_spans = _tastes(s, add)
        for slot, rx in COMPILED:
            for m in rx.finditer(s):
                if any(a <= m.start() < b for a, b in taste_spans):
                    continue
                if AT_HEART.match(s[m.end() :]):
                    continue  # "I'm twelve years old at heart": a figure of speech
                got = _slot_value(slot, m, s, occ)
                if got is not None:
                    v, neg = got
                    for part in parts(v) if slot in MULTI else [v]:
                        add(slot, part, -1 if neg else 1, m.group())
        _fixed_facts(s, add)
        _relational(s, add)
        for slot, value, pol, span in frames(s):
            add(slot, value, pol, span, False)  # "two years ago" dates it, it is still true
    seen: set[tuple[str, str, int, bool]] = set()
    unique = []
    for c in out:  # one statement matched by two patterns is one claim
        key = (c.slot, fold(c.value), c.polarity, c.past)
        if key not in seen:
            seen.add(key)
            unique.append(c)
    return unique


def _tastes(s: str, add: Callable[..., None]) -> list[tuple[int, int]]:
    """Dislikes ("I can't stand X", "X bores me"); their spans, which no slot pattern reuses."""
    spans: list[tuple[int, int]] = []
    for rx in (DISLIKE, NOT_FAN):
        for m in rx.finditer(s):
            spans.append(m.span())
            for part in parts(m.group("v")):
                if part.casefold() in ("it", "that", "them", "this"):
                    # "Golf is a waste of a good walk, I can't stand it": what "it" is
                    head = re.match(r"^\W*([A-Za-z][\w -]*?) (?:is|are|was)\b", s)
                    if head is None:
                        continue
                    part = head.group(1)
                add("likes", part, -1, m.group())
    for m in BORES.finditer(s):
        add("likes", clean(m.group("v")), -1, m.group())
    return spans


def _slot_value(slot: str, m: re.Match[str], s: str, occ: set[str]) -> tuple[str, bool] | None:
    """The value of a slot pattern's match, read for its slot, and whether it is negated;
    None when the match is no claim (an unknown occupation, a figure of speech, no number)."""
    v = clean(m.group("v"))
    neg = bool(m.groupdict().get("neg"))
    if not v:
        return None
    if slot == "occupation":
        if m.group().startswith("I drive"):
            v += " driver"  # "I drive a lorry": a lorry driver
        v = cut_place(v)
        if not known_occupation(v, occ) or FIGURATIVE.search(s):
            return None
    if slot == "employer":
        v = cut_place(v, employer=True)
        if not v or FIGURATIVE.search(s):
            return None
    if slot == "name" and (v.casefold() in NAME_NOT or demonym(v)):
        return None
    if slot in ("location", "origin", "education"):
        v = cut_place(v, employer=True)
    if slot == "marital_status":
        v = {"a widow": "widowed", "a widower": "widowed"}.get(v.casefold(), v.casefold())
    read = _NUMERIC_READERS.get(slot)
    if read is not None:
        last_year = slot == "age" and m.group().endswith("last year")
        got = read(v + " last year" if last_year else v)
        if got is None:
            return None
        youngest = "youngest" in m.re.pattern and got.replace(".", "").isdigit()
        v = f"{float(got) - 1:g}" if youngest else got  # "the youngest of three": two siblings
    if slot == "languages" and neg:
        return None  # handled by NO_LANG with the language word alone
    if slot == "likes" and m.group().lower().startswith(("i don", "i do not")):
        return None
    return v, neg


# slot → reader of its value ("forty-one" → "41", "a couple of" → "2", "6,000 a month" → yearly)
_NUMERIC_READERS: dict[str, Callable[[str], str | None]] = {
    "age": age_value, "children": count_value, "siblings": count_value, "income": yearly,
}  # fmt: skip


def _fixed_facts(s: str, add: Callable[..., None]) -> None:
    """Claims of fixed phrases: no children or siblings, languages not spoken, an only child,
    no pets, a car or none, diet."""
    for m in NEG_HAVE.finditer(s):
        slot = "siblings" if re.match(SIB, m.group(1) or m.group(2), re.I) else "children"
        add(slot, "0", 1, m.group())
    for m in NO_LANG.finditer(s):
        lang = m.group("v") or m.group("w")
        if lang and lang.casefold() in LANGUAGES:
            add("languages", lang, -1, m.group())
    if ONLY_CHILD.search(s):
        add("siblings", "0", 1, "only child")
    if NO_PET.search(s):
        add("pets", "none", 1, "no pet")
    for m in CAR.finditer(s):
        add("car", "no" if m.group("no") else "yes", 1, m.group())
    for m in VEGGIE.finditer(s):
        add("diet", (m.group("v") or "vegetarian").casefold(), 1, m.group())
    if EAT_MEAT.search(s) and not re.search(r"\bnever\b|\bdon't\b|\bno\b", s, re.I):
        add("diet", "meat eater", 1, "eats meat")


def _relational(s: str, add: object) -> None:
    """Slots implied by how the speaker refers to people and places ("my late wife")."""
    assert callable(add)
    for m in RELATIONAL.finditer(s):
        noun = m.group("noun").casefold()
        if re.search(r"-in-law\b", s[m.end() : m.end() + 8]):
            continue
        mods = m.group()[: -len(m.group("noun"))]
        late = bool(LATE.search(mods)) or (
            noun in ("wife", "husband", "spouse") and bool(PASSED.search(s))
        )
        if EX.search(mods):
            if noun in ("wife", "husband", "spouse") and re.search(r"\bex\b", mods, re.I):
                add("marital_status", "divorced", 1, m.group())  # was married, is no longer
            continue  # otherwise an ex says nothing certain about the present
        if noun in ("wife", "husband", "spouse"):
            add("marital_status", "widowed" if late else "married", 1, m.group())
        elif noun in ("fiance", "fiancé", "fiancée", "fiancee"):
            add("marital_status", "engaged", 1, m.group())
        elif noun in ("boyfriend", "girlfriend", "partner"):
            if not late:
                add("marital_status", "partnered", 1, m.group())
        elif noun in ("kids", "children", "son", "daughter", "sons", "daughters", "grandson",
                      "granddaughter", "grandchildren", "grandkids", "grandchild"):  # fmt: skip
            add("children", "1+", 1, m.group())
        elif noun in ("brother", "sister", "brothers", "sisters", "siblings"):
            add("siblings", "2+" if noun.endswith("s") else "1+", 1, m.group())
    for m in OCC_CUES.finditer(s):
        add("occupation", "@" + m.group("cue").casefold(), 1, m.group())
