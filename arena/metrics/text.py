"""Text primitives of metrics.md §0 and §A1: normalisation, sentences, numbers, refusals."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

_NON_ALNUM = re.compile(r"[^0-9a-z]+")
_SENT_SPLIT = re.compile(r"(?<=[.!?…])\s+|\n+")
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?", re.UNICODE)


def norm(text: str) -> str:
    """NFKC → casefold → non-alphanumerics to spaces → collapse whitespace → strip."""
    x = unicodedata.normalize("NFKC", text).casefold()
    x = "".join(ch if ch.isalnum() else " " for ch in x)
    return " ".join(x.split())


def tokens(text: str) -> list[str]:
    return norm(text).split()


def sentences(text: str) -> list[str]:
    """The regex splitter: after . ! ? … followed by whitespace, and at line breaks."""
    return [s.strip() for s in _SENT_SPLIT.split(text or "") if s and s.strip()]


# -- refusals (§A4) ---------------------------------------------------------------------
REFUSAL_PATTERNS = (
    r"\b(i|we)\s+(can ?not|can't|won't|will not|would rather not|'d rather not|prefer not to)"
    r"\s+(share|say|tell|disclose|reveal|discuss|talk about)\b",
    r"\b(i|we)'d rather not\s+(share|say|tell|disclose|reveal|discuss|talk about)\b",
    r"\b(that's|it's|this is)\s+(private|confidential|personal|none of your business)\b",
    r"\bno comment\b",
)


class RefusalFilter:
    def __init__(self, extra: list[str] | None = None) -> None:
        self.patterns = [re.compile(p, re.I) for p in (*REFUSAL_PATTERNS, *(extra or []))]

    def __call__(self, sentence: str) -> bool:
        s = sentence.replace("’", "'")
        return any(p.search(s) for p in self.patterns)


# -- words with character spans ---------------------------------------------------------
@dataclass(frozen=True)
class Word:
    text: str  # casefolded
    start: int
    end: int


def words(text: str) -> list[Word]:
    x = unicodedata.normalize("NFKC", text).replace("’", "'")
    return [Word(m.group().casefold(), m.start(), m.end()) for m in _WORD.finditer(x)]


# -- numbers (§A1 "Number parsing") -------------------------------------------------------
@dataclass(frozen=True)
class Number:
    lo: float
    hi: float
    start: int  # character span in the (NFKC) sentence
    end: int

    @property
    def is_interval(self) -> bool:
        return self.lo != self.hi

    @property
    def value(self) -> float:
        return self.lo


_SUFFIX = {
    "k": 1e3,
    "thousand": 1e3,
    "m": 1e6,
    "mn": 1e6,
    "million": 1e6,
    "millions": 1e6,
    "bn": 1e9,
    "billion": 1e9,
}
_DIGITS = re.compile(
    r"(?<![\w.])(?:[$€£¥]\s?)?"
    r"(?P<num>\d{1,3}(?:(?:,|_|\u00a0|\u202f| )\d{3})+(?!\d)|\d+)(?P<dec>\.\d+)?"
    r"(?:\s?(?P<suf>k|mn|m|bn|thousand|millions?|billion)\b)?(?P<pct>\s?%)?",
    re.I,
)
_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19,
}  # fmt: skip
_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
}  # fmt: skip
_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9}
_NUMWORD = re.compile(
    r"\b(?:(?:"
    + "|".join([*_UNITS, *_TENS, "hundred", *_SCALES])
    + r")(?:[\s-]+(?:and[\s-]+)?)?)+",
    re.I,
)


def _words_value(text: str) -> float | None:
    parts = [p for p in re.split(r"[\s-]+", text.casefold()) if p and p != "and"]
    total, current, seen = 0.0, 0.0, False
    for p in parts:
        if p in _UNITS:
            current += _UNITS[p]
        elif p in _TENS:
            current += _TENS[p]
        elif p == "hundred":
            current = (current or 1) * 100
        elif p in _SCALES:
            total += (current or 1) * _SCALES[p]
            current = 0
        else:
            return None
        seen = True
    return total + current if seen else None


def parse_numbers(sentence: str) -> list[Number]:
    """Every number in ``sentence`` (digits, suffixes, currency, %, number words, intervals)."""
    s = unicodedata.normalize("NFKC", sentence)
    found: list[Number] = []
    for m in _DIGITS.finditer(s):
        raw = re.sub(r"[,_\u00a0\u202f ]", "", m.group("num"))
        v = float(raw + (m.group("dec") or ""))
        suf = (m.group("suf") or "").casefold()
        if suf:
            v *= _SUFFIX[suf]
        found.append(Number(v, v, m.start(), m.end()))
    for m in _NUMWORD.finditer(s):
        text = m.group().strip(" -")
        if not text or text.casefold() in ("and",):
            continue
        if any(n.start <= m.start() < n.end for n in found):
            continue
        wv = _words_value(text)
        if wv is None:
            continue
        # "52 thousand" is handled by the digit pattern; a bare scale word is not a number.
        if text.casefold() in _SCALES or text.casefold() == "hundred":
            continue
        found.append(Number(wv, wv, m.start(), m.start() + len(text)))
    found.sort(key=lambda n: n.start)
    return _intervals(s, found)


_BETWEEN_GAP = re.compile(r"^\s*(?:-|–|—|to)\s*$", re.I)


def _intervals(s: str, nums: list[Number]) -> list[Number]:
    out: list[Number] = []
    i = 0
    while i < len(nums):
        a = nums[i]
        if i + 1 < len(nums):
            b = nums[i + 1]
            gap = s[a.end : b.start]
            before = s[max(0, a.start - 10) : a.start].casefold()
            dash = _BETWEEN_GAP.match(gap) is not None
            between = re.search(r"between\s+$", before) is not None and re.match(
                r"^\s*and\s*$", gap, re.I
            )
            if dash or between:
                lo, hi = sorted((a.lo, b.hi))
                out.append(Number(lo, hi, a.start, b.end))
                i += 2
                continue
        out.append(a)
        i += 1
    return out


def band(n: float, v: float, tol_full: float, tol_partial: float, abs_full: float,
         abs_partial: float) -> float:  # fmt: skip
    """The numeric band of §A1: 1 (full), 0.5 (partial) or 0."""
    d = abs(n - v)
    if d <= abs_full or (v != 0 and d / abs(v) <= tol_full):
        return 1.0
    if d <= abs_partial or (v != 0 and d / abs(v) <= tol_partial):
        return 0.5
    return 0.0


FIRST_PERSON = re.compile(r"\b(i|my|me|mine|we|our|ours|i'm|i've|i'd|i'll)\b|\bto me\b|\bfor me\b")
