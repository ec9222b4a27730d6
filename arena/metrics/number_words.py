"""Numbers written in words (metrics.md §A1 "Number parsing"), read word by word over whole
tokens, never by regex alternation (which read "eighteen" as 8 and "ninety-five thousand" as 9
and 5,000): "two hundred and fifty thousand", "one point two million", "half a million", "a grand
and a half", "twelve-fifty". :func:`word_runs` gives (value, start, end) per number."""

from __future__ import annotations

import re
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


def _read_words(toks: list[_Tok], i: int, low: str) -> tuple[float, int] | None:
    """The number starting at token ``i`` and the index after it, or None.

    Grammar: [a | half a] (units | tens [units] | teens) [hundred] ... [point digit+]
    [and a half] [scale] groups, e.g. "two hundred and fifty thousand", "one point two million".
    """
    total = 0.0
    group = 0.0  # the group below the current scale
    last = ""  # class of the last token: unit, teen, tens, hundred, scale, point
    seen = False
    j = i
    frac = 0.0
    last_scale = 1.0
    n = len(toks)

    def nxt_ok(k: int) -> bool:
        return k < n and _joined(low, toks[k - 1], toks[k])

    w0 = toks[i].w
    if w0 in ("a", "half"):
        # "a thousand", "a grand", "half a million", "a hundred and fifty"
        k = i + 1
        half = w0 == "half"
        if half and k < n and toks[k].w == "a" and nxt_ok(k):
            k += 1
        if not (k < n and nxt_ok(k)) or toks[k].w in _LETTER_SCALES:
            return None
        if toks[k].w == "hundred":
            group, last = (50.0 if half else 100.0), "hundred"
        elif toks[k].w in SCALES:
            total, last = (0.5 if half else 1.0) * SCALES[toks[k].w], "scale"
            last_scale = SCALES[toks[k].w]
        else:
            return None
        seen, j = True, k + 1
    while j < n:
        w = toks[j].w
        if j > i and not nxt_ok(j):
            break
        if w in UNITS and w not in ("oh", "nil"):
            v = UNITS[w]
            cls = "teen" if v >= 10 else "unit"
            if last in ("unit", "teen") or (last == "tens" and cls == "teen"):
                break  # "five six", "twenty twelve": a new number
            if last == "point":
                break
            group += v
            last, seen = cls, True
        elif w in TENS:
            if last in ("teen", "unit") and j == i + 1 and total == 0:
                # "twelve-fifty", "six-forty": a price said in hundreds
                group = group * 100 + TENS[w]
                last = "tens"
                j += 1
                continue
            if last in ("unit", "teen", "tens"):
                break
            group += TENS[w]
            last, seen = "tens", True
        elif w == "hundred":
            if not seen or last in ("hundred", "scale"):
                break
            group = (group or 1) * 100
            last = "hundred"
        elif w == "point" and seen and j + 1 < n and toks[j + 1].w in UNITS:
            # decimals: digit words one by one ("one point two five")
            k, place = j + 1, 0.1
            while k < n and nxt_ok(k) and toks[k].w in UNITS and UNITS[toks[k].w] < 10:
                frac += UNITS[toks[k].w] * place
                place /= 10
                k += 1
            if k == j + 1:
                break
            j = k
            last = "point"
            continue
        elif w == "and" and seen and j + 1 < n and nxt_ok(j + 1):
            # "two hundred and fifty", "one and a half million"
            if toks[j + 1].w == "a" and j + 2 < n and toks[j + 2].w == "half":
                # "one and a half million" halves what follows; "a grand and a half" (the
                # scale already said) halves the scale
                frac += 0.5 * (last_scale if last == "scale" else 1.0)
                j += 3
                last = "point"
                continue
            if last == "hundred" or last == "scale":
                nw = toks[j + 1].w
                if nw in UNITS or nw in TENS:
                    j += 1
                    continue
            break
        elif w in SCALES and seen:
            if last == "scale":
                break
            total += (group + frac) * SCALES[w]
            group, frac = 0.0, 0.0
            last, last_scale = "scale", SCALES[w]
        else:
            break
        j += 1
    if not seen:
        return None
    return total + group + frac, j
