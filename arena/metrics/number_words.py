"""Numbers written in words (metrics.md §A1 "Number parsing"), read word by word over whole
tokens, never by regex alternation (which read "eighteen" as 8 and "ninety-five thousand" as 9
and 5,000): "two hundred and fifty thousand", "one point two million", "half a million", "a grand
and a half", "twelve-fifty". :func:`word_runs` gives (value, start, end) per number."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19,
}  # fmt: skip
TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fourty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90,
}  # fmt: skip
SCALES = {
    "thousand": 1e3, "thousands": 1e3, "grand": 1e3, "k": 1e3, "million": 1e6, "millions": 1e6,
    "mil": 1e6, "mill": 1e6, "mio": 1e6, "mn": 1e6, "m": 1e6, "billion": 1e9, "billions": 1e9,
    "bn": 1e9, "b": 1e9,
}  # fmt: skip
# Single letters are magnitudes only right after a number ("52k", "thirty k", "1.2 m"): a
# sentence-initial "m" or "b" is never one, and neither starts a number.
_LETTER_SCALES = {"k", "m", "b"}
_WORD = re.compile(r"[a-z]+")


# -- number words --------------------------------------------------------------------------
@dataclass
class _Tok:
    w: str
    start: int
    end: int


def word_runs(s: str, taken: list[tuple[int, int]]) -> list[tuple[float, int, int]]:
    """Numbers written in words, read over whole tokens of the casefolded text."""
    low = s.casefold()
    toks = [_Tok(m.group(), m.start(), m.end()) for m in _WORD.finditer(low)]
    out: list[tuple[float, int, int]] = []
    i = 0
    while i < len(toks):
        if any(a <= toks[i].start < b for a, b in taken):
            i += 1
            continue
        got = _read_words(toks, i, low)
        if got is None:
            i += 1
            continue
        value, j = got
        out.append((value, toks[i].start, toks[j - 1].end))
        i = j
    return out


def _joined(low: str, a: _Tok, b: _Tok) -> bool:
    """Two word tokens belong to one number only across spaces and hyphens."""
    return re.fullmatch(r"[\s-]*", low[a.end : b.start]) is not None


@dataclass
class _Reading:
    """One number being read from token ``start`` on: the total of the scales said so far, the
    group below the current scale, the decimals, and the class of the last token (unit, teen,
    tens, hundred, scale, point). ``j`` is the next token to read."""

    toks: list[_Tok]
    low: str
    start: int
    j: int
    total: float = 0.0
    group: float = 0.0
    frac: float = 0.0
    last: str = ""
    last_scale: float = 1.0
    seen: bool = False

    def joined(self, k: int) -> bool:
        """Whether token ``k`` exists and follows token ``k - 1`` within the number."""
        return k < len(self.toks) and _joined(self.low, self.toks[k - 1], self.toks[k])

    def word(self, k: int) -> str | None:
        return self.toks[k].w if k < len(self.toks) else None


def _read_words(toks: list[_Tok], i: int, low: str) -> tuple[float, int] | None:
    """The number starting at token ``i`` and the index after it, or None.

    Grammar: [a | half a] (units | tens [units] | teens) [hundred] ... [point digit+]
    [and a half] [scale] groups, e.g. "two hundred and fifty thousand", "one point two million".
    Each token class has a step in :data:`_STEPS`; a step that does not fit ends the number.
    """
    r = _Reading(toks, low, i, i)
    if toks[i].w in ("a", "half") and not _article(r):
        return None
    while r.j < len(toks):
        if r.j > i and not r.joined(r.j):
            break
        step = _STEPS.get(_kind(toks[r.j].w))
        if step is None or not step(r):
            break
    if not r.seen:
        return None
    return r.total + r.group + r.frac, r.j


def _article(r: _Reading) -> bool:
    """ "a thousand", "a grand", "half a million", "a hundred and fifty"; False: no number."""
    half = r.toks[r.start].w == "half"
    k = r.start + 1
    if half and r.word(k) == "a" and r.joined(k):
        k += 1
    w = r.word(k)
    if w is None or not r.joined(k) or w in _LETTER_SCALES:
        return False
    if w == "hundred":
        r.group, r.last = (50.0 if half else 100.0), "hundred"
    elif w in SCALES:
        r.total, r.last = (0.5 if half else 1.0) * SCALES[w], "scale"
        r.last_scale = SCALES[w]
    else:
        return False
    r.seen, r.j = True, k + 1
    return True


def _kind(w: str) -> str:
    """The token's class in the grammar (checked in this order); "" for any other word."""
    if w in UNITS and w not in ("oh", "nil"):
        return "unit"
    if w in TENS:
        return "tens"
    if w in ("hundred", "point", "and"):
        return w
    return "scale" if w in SCALES else ""


def _unit(r: _Reading) -> bool:
    v = UNITS[r.toks[r.j].w]
    cls = "teen" if v >= 10 else "unit"
    if r.last in ("unit", "teen") or (r.last == "tens" and cls == "teen"):
        return False  # "five six", "twenty twelve": a new number
    if r.last == "point":
        return False
    r.group += v
    r.last, r.seen = cls, True
    r.j += 1
    return True


def _tens(r: _Reading) -> bool:
    v = TENS[r.toks[r.j].w]
    if r.last in ("teen", "unit") and r.j == r.start + 1 and r.total == 0:
        # "twelve-fifty", "six-forty": a price said in hundreds
        r.group = r.group * 100 + v
        r.last = "tens"
        r.j += 1
        return True
    if r.last in ("unit", "teen", "tens"):
        return False
    r.group += v
    r.last, r.seen = "tens", True
    r.j += 1
    return True


def _hundred(r: _Reading) -> bool:
    if not r.seen or r.last in ("hundred", "scale"):
        return False
    r.group = (r.group or 1) * 100
    r.last = "hundred"
    r.j += 1
    return True


def _point(r: _Reading) -> bool:
    """Decimals: digit words one by one ("one point two five")."""
    j, n = r.j, len(r.toks)
    if not (r.seen and j + 1 < n and r.toks[j + 1].w in UNITS):
        return False
    k, place = j + 1, 0.1
    while k < n and r.joined(k) and r.toks[k].w in UNITS and UNITS[r.toks[k].w] < 10:
        r.frac += UNITS[r.toks[k].w] * place
        place /= 10
        k += 1
    if k == j + 1:
        return False
    r.j = k
    r.last = "point"
    return True


def _and(r: _Reading) -> bool:
    """ "two hundred and fifty", "one and a half million"."""
    j = r.j
    if not (r.seen and j + 1 < len(r.toks) and r.joined(j + 1)):
        return False
    if r.toks[j + 1].w == "a" and r.word(j + 2) == "half":
        # "one and a half million" halves what follows; "a grand and a half" (the scale
        # already said) halves the scale
        r.frac += 0.5 * (r.last_scale if r.last == "scale" else 1.0)
        r.j += 3
        r.last = "point"
        return True
    if r.last == "hundred" or r.last == "scale":
        nw = r.toks[j + 1].w
        if nw in UNITS or nw in TENS:
            r.j += 1
            return True
    return False


def _scale(r: _Reading) -> bool:
    if not r.seen or r.last == "scale":
        return False
    w = r.toks[r.j].w
    r.total += (r.group + r.frac) * SCALES[w]
    r.group, r.frac = 0.0, 0.0
    r.last, r.last_scale = "scale", SCALES[w]
    r.j += 1
    return True


# Token class -> its step: True when the token belongs to the number (``j`` moved past it).
_STEPS: dict[str, Callable[[_Reading], bool]] = {
    "unit": _unit,
    "tens": _tens,
    "hundred": _hundred,
    "point": _point,
    "and": _and,
    "scale": _scale,
}
