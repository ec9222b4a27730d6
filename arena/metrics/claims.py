"""Slot-based claim extraction and comparison (metrics.md §B1)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from arena.metrics.text import norm, parse_numbers

MULTI = {"pets", "hobbies", "likes", "dislikes", "languages"}
NUMERIC = {"age", "children", "siblings", "income"}
FAMILY = {"hobbies": "likes", "likes": "hobbies"}  # stated interchangeably ("I enjoy/love X")

OCCUPATIONS = {
    "accountant", "actor", "architect", "artist", "baker", "barista", "carpenter", "cashier",
    "chef", "cook", "dentist", "designer", "developer", "doctor", "driver", "economist",
    "editor", "electrician", "engineer", "farmer", "firefighter", "florist", "gardener",
    "journalist", "judge", "lawyer", "librarian", "manager", "mechanic", "midwife", "musician",
    "nurse", "painter", "paramedic", "pharmacist", "photographer", "physician", "pilot",
    "plumber", "police officer", "postdoc", "professor", "programmer", "researcher",
    "scientist", "salesman", "secretary", "social worker", "software engineer", "student",
    "surgeon", "tailor", "taxi driver", "teacher", "technician", "translator", "vet",
    "veterinarian", "waiter", "waitress", "writer", "nurse practitioner", "tax accountant",
    "retiree", "warehouse worker", "courier", "cleaner", "receptionist", "consultant",
}  # fmt: skip
OCC_SYNONYMS = [
    {"doctor", "physician", "medical doctor", "gp"},
    {"lawyer", "attorney", "solicitor"},
    {"programmer", "software developer", "developer", "software engineer", "coder"},
    {"teacher", "schoolteacher", "educator"},
    {"cook", "chef"},
    {"vet", "veterinarian"},
    {"taxi driver", "cab driver", "cabbie"},
    {"retiree", "retired", "pensioner"},
]
LOC_ALIASES = [
    {"new york", "nyc", "new york city"},
    {"los angeles", "la"},
    {"united kingdom", "uk", "britain"},
    {"united states", "usa", "us", "america"},
    {"san francisco", "sf"},
]
MARITAL = {"married": "partnered", "engaged": "partnered", "partnered": "partnered"}

_V = r"([\w' -]+?)(?=\s*(?:[.,;!?:]|$|\band\b|\bbut\b|\bbecause\b|\bsince\b|\bso\b|\bwith\b))"
_VM = r"([\w' ,-]+?)(?=\s*(?:[.;!?:]|$|\bbut\b|\bbecause\b|\bsince\b|\bso\b|\bwith\b))"
_N = r"(\d{1,3}|[a-z]+(?:[ -][a-z]+)?)"
_NEG = r"(?P<neg>not |n't |no longer |never )?"
PATTERNS: list[tuple[str, str]] = [
    ("name", r"\b(?i:my name is) (?P<v>[A-Z][\w'-]*(?: [A-Z][\w'-]*)*)"),
    ("name", r"\b(?i:call me) (?P<v>[A-Z][\w'-]*)"),
    ("age", rf"\bI(?:'m| am) {_NEG}(?P<v>{_N[1:-1]}) years? old\b"),
    ("age", rf"\bI(?:'m| am) an? (?P<v>{_N[1:-1]})[- ]year[- ]old\b"),
    ("age", rf"\bI turned (?P<v>{_N[1:-1]})\b"),
    ("occupation", rf"\bI work as (?:an? |the )?(?P<v>{_V[1:]}"),
    ("occupation", rf"\bI(?:'m| am) {_NEG}(?:an? )(?P<v>{_V[1:]}"),
    ("employer", rf"\bI work (?:at|for) (?P<v>{_V[1:]}"),
    ("location", rf"\bI {_NEG}(?:live|am living|'m living) in (?P<v>{_V[1:]}"),
    ("location", rf"\bI(?:'m| am) {_NEG}based in (?P<v>{_V[1:]}"),
    ("location", rf"\bmy home is in (?P<v>{_V[1:]}"),
    ("origin", rf"\bI(?:'m| am) {_NEG}(?:originally )?from (?P<v>{_V[1:]}"),
    ("origin", rf"\bI (?:grew up|was born) in (?P<v>{_V[1:]}"),
    ("marital_status", rf"\bI(?:'m| am) {_NEG}(?P<v>married|single|divorced|widowed|engaged)\b"),
    ("marital_status", r"\bmy (?P<v>wife|husband|partner|spouse)\b"),
    ("partner_name", r"\b(?i:my (?:wife|husband|partner|spouse)(?:'s name)? is) (?P<v>[A-Z][\w'-]*)"),
    ("children", rf"\bI have (?P<v>{_N[1:-1]}) (?:kids|children|sons|daughters|child|son|daughter)\b"),
    ("siblings", rf"\bI have (?P<v>{_N[1:-1]}) (?:siblings|brothers|sisters|sibling|brother|sister)\b"),
    ("pets", r"\bI have an? (?P<v>dog|cat|parrot|rabbit|hamster|horse|tortoise|turtle|fish|goldfish|budgie|canary|puppy|kitten)\b"),
    ("hobbies", rf"\bI {_NEG}(?:really )?enjoy (?P<v>{_VM[1:]}"),
    ("likes", rf"\bI {_NEG}(?:really )?(?:love|like) (?P<v>{_VM[1:]}"),
    ("dislikes", rf"\bI (?:really )?(?:hate|can't stand|cannot stand|dislike) (?P<v>{_VM[1:]}"),
    ("languages", rf"\bI {_NEG}speak (?P<v>{_VM[1:]}"),
    ("education", rf"\bI studied (?P<v>{_V[1:]}"),
    ("income", r"\bI (?:earn|make) (?:about |around |roughly )?(?P<v>[$€£]?[\d.,]+\s?k?)"),
]  # fmt: skip
_COMPILED = [
    (slot, re.compile(p, 0 if slot in ("name", "partner_name") else re.I)) for slot, p in PATTERNS
]
_NEG_DONT = re.compile(r"\bI (?:don't|do not|never) (?:have any|have) (kids|children|siblings|brothers|sisters)\b", re.I)  # fmt: skip
_NEG_VERB = re.compile(r"\bI (?:don't|do not|never) (enjoy|love|like|speak) ([\w' -]+?)(?=\s*(?:[.,;!?]|$))", re.I)  # fmt: skip
_FIRST = re.compile(r"\b(i|my|me|i'm|i've|i'd)\b", re.I)
_REPORTED = re.compile(
    r"\b(she|he|they|someone|you) (said|says|told|tells|claims?|claimed)\b", re.I
)
_HYPO = re.compile(r"\b(if i were|if i was|i would be|i'd be|imagine|suppose|pretend)\b", re.I)
_PAST = re.compile(r"\b(when i was|used to|back then|years ago|as a child|as a kid)\b", re.I)
_QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”")


@dataclass(frozen=True)
class Claim:
    slot: str
    value: str
    polarity: int  # +1 / -1
    turn: int
    span: str
    past: bool = False


def claim_sentences(text: str) -> list[str]:
    from arena.metrics.text import sentences

    return sentences(text)


def extract(text: str, turn: int = 0, occupations: set[str] | None = None) -> list[Claim]:
    occ = OCCUPATIONS | {norm(o) for o in (occupations or set())}
    out: list[Claim] = []
    for sent in claim_sentences(text.replace("’", "'")):
        s = _QUOTED.sub(" ", sent)
        if s.rstrip().endswith("?") or not _FIRST.search(s):
            continue
        if _REPORTED.search(s) or _HYPO.search(s):
            continue
        past = bool(_PAST.search(s))
        for slot, rx in _COMPILED:
            for m in rx.finditer(s):
                v = m.group("v").strip()
                neg = bool(m.groupdict().get("neg"))
                if slot == "occupation" and not _known_occupation(v, occ):
                    continue
                if slot == "marital_status" and v.casefold() in ("wife", "husband", "partner",
                                                                 "spouse"):  # fmt: skip
                    v = "partnered"
                if slot in NUMERIC and slot != "income":
                    num = parse_numbers(v)
                    if not num:
                        continue
                    v = f"{num[0].value:g}"
                parts = re.split(r",\s*|\s+and\s+", v) if slot in MULTI else [v]
                for part in (p.strip() for p in parts):
                    if part:
                        out.append(Claim(slot, part, -1 if neg else 1, turn, m.group(), past))
        for m in _NEG_DONT.finditer(s):
            slot = "children" if m.group(1).lower() in ("kids", "children") else "siblings"
            out.append(Claim(slot, "0", 1, turn, m.group(), past))
        for m in _NEG_VERB.finditer(s):
            slot = {"enjoy": "hobbies", "speak": "languages"}.get(m.group(1).lower(), "likes")
            out.append(Claim(slot, m.group(2).strip(), -1, turn, m.group(), past))
    return out


def _known_occupation(v: str, occ: set[str]) -> bool:
    n = norm(v)
    return n in occ or any(n.endswith(" " + o) or n == o for o in occ)


class Matcher:
    """same(v₁, v₂) with the card's aliases, occupation synonyms and location aliases."""

    def __init__(self, card_aliases: dict[str, list[str]] | None = None, age_tol: float = 0.0):
        self.groups: list[set[str]] = [set(g) for g in OCC_SYNONYMS + LOC_ALIASES]
        for value, aliases in (card_aliases or {}).items():
            self.groups.append({norm(value), *(norm(a) for a in aliases)})
        self.age_tol = age_tol

    def same(self, slot: str, a: str, b: str) -> bool:
        if slot in NUMERIC:
            na, nb = parse_numbers(str(a)), parse_numbers(str(b))
            if na and nb:
                tol = self.age_tol if slot == "age" else 0.0
                return abs(na[0].value - nb[0].value) <= tol
        x, y = _strip(norm(str(a))), _strip(norm(str(b)))
        if slot == "marital_status":
            x, y = MARITAL.get(x, x), MARITAL.get(y, y)
        if x == y:
            return True
        for g in self.groups:
            if x in g and y in g:
                return True
        tx, ty = set(x.split()), set(y.split())
        return bool(tx and ty) and (tx <= ty or ty <= tx)


def _strip(x: str) -> str:
    return re.sub(r"^(a|an|the|my)\s+", "", x)


def conflicts(m: Matcher, c: Claim, slot_multi: bool, values: list[tuple[str, int]]) -> bool:
    """Does claim ``c`` conflict with stored (value, polarity) pairs of its slot (§B1)?"""
    for v, pol in values:
        same = m.same(c.slot, c.value, v)
        if c.polarity != pol and same:
            return True
    if slot_multi or c.polarity < 0:
        return False
    pos = [v for v, pol in values if pol > 0]
    return bool(pos) and not any(m.same(c.slot, c.value, v) for v in pos)
