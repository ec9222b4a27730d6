"""Reading persona slot values (metrics.md §B1): ages from bare, spelled-out, decade and relative
forms, counts of people, yearly incomes, occupation and place values cut from their sentence."""

from __future__ import annotations

import re

from arena.metrics.claim_patterns import TRAILING
from arena.metrics.text import norm, parse_numbers


def parts(v: str) -> list[str]:
    return [p for p in (clean(x) for x in re.split(r",\s*|\s+and\s+|\s+or\s+", v)) if p]


def clean(v: str) -> str:
    v = v.strip(" -'")
    return TRAILING.sub("", v).strip(" -,")


def cut_place(v: str, employer: bool = False) -> str:
    """ "surgeon at the university clinic" → "surgeon"; a place ends at the next preposition."""
    cut = r"\s+(?:at|in|for|with|near|on|from|by|off|since|who|where|when|like|to)\b"
    if employer:
        cut = r"\s+(?:in|near|on|since|who|where|when|by|off|for|to|mixing|making|working)\b"
    return re.split(cut, v, maxsplit=1, flags=re.I)[0].strip()


def demonym(v: str) -> bool:
    return bool(re.search(r"(?:ish|ese|ian|ean|ayan|ican)$", v.casefold()))


_DECADES = {"teens": 10, "twenties": 20, "thirties": 30, "forties": 40, "fifties": 50,
            "sixties": 60, "seventies": 70, "eighties": 80, "nineties": 90}  # fmt: skip


_AGE_NEAR = {"pushing": (-3, 0), "nearly": (-2, 0), "almost": (-2, 0), "knocking on": (-3, 0),
             "barely past": (0, 2), "just past": (0, 2), "past": (0, 4)}  # fmt: skip


def age_value(v: str) -> str | None:
    """A single age ("41") or a range ("40-49") from a bare, spelled-out, decade or relative
    form ("pushing fifty" 47-50, "barely past thirty" 30-32, "turned forty last year" 40-41)."""
    low = v.casefold().strip()
    for lead, (a, b) in _AGE_NEAR.items():
        if low.startswith(lead + " "):
            n = parse_numbers(low[len(lead) + 1 :])
            return None if not n else f"{n[0].value + a:g}-{n[0].value + b:g}"
    if low.endswith(" last year"):
        n = parse_numbers(low.removesuffix(" last year"))
        return None if not n else f"{n[0].value:g}-{n[0].value + 1:g}"
    m = re.match(r"^(early |mid-?|late )?(teens|twenties|thirties|forties|fifties|sixties|"
                 r"seventies|eighties|nineties)$", low)  # fmt: skip
    if m:
        base = _DECADES[m.group(2)]
        lo, hi = (13, 19) if base == 10 else (base, base + 9)
        part = (m.group(1) or "").strip(" -")
        if part == "early":
            lo, hi = lo, lo + 3
        elif part == "mid":
            lo, hi = lo + 3, lo + 7
        elif part == "late":
            lo, hi = hi - 3, hi
        return f"{lo}-{hi}"
    if low == "half a century":
        return "48-52"
    m = re.match(r"^(\w+) decades$", low)
    if m:
        n = parse_numbers(m.group(1))
        return None if not n else f"{n[0].value * 10:g}-{n[0].value * 10 + 9:g}"
    n = parse_numbers(v)
    if not n or not 0 < n[0].value < 125:
        return None
    return f"{n[0].value:g}"


def count_value(v: str) -> str | None:
    low = v.casefold().strip()
    fixed = {"a couple of": "2", "half a dozen": "6", "a dozen": "12", "no": "0", "both": "2",
             "my only": "1"}  # fmt: skip
    low = low.removeprefix("all ")
    if low in fixed:
        return fixed[low]
    if low.split()[0] in ("a", "an"):
        return "1+"  # "I have a brother": one at least
    n = parse_numbers(v)
    return None if not n else f"{n[0].value:g}"


def yearly(v: str) -> str | None:
    n = parse_numbers(re.sub(r"\s?grand\b", "k", v))
    if not n:
        return None
    x = n[0].value
    per = re.search(r"(year|month|week|annum)", v, re.I)
    mult = {"month": 12, "week": 52}.get(per.group(1).lower(), 1) if per else 1
    return f"{x * mult:g}"


def known_occupation(v: str, occ: set[str]) -> bool:
    n = norm(v)
    return n in occ or any(n.endswith(" " + o) or n == o for o in occ)
