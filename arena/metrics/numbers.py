"""One number parser for the metrics (metrics.md §A1 "Number parsing"): privacy's numeric tier,
persona claims and the adversary all read numbers through :func:`parse_numbers`.

Surface forms: digits with thousands separators and decimals; currency symbols and codes;
magnitude suffixes and words (``52k``, ``1.2 mil``, ``52 grand``, ``3.5m``, ``2bn``); number
words composed the usual way (``ninety-five thousand``, ``one point two million``, ``half a
million``, ``thirty k``, ``twelve hundred``); percentages; intervals (``100-130``, ``50 to 55k``,
``between 100 and 130``); and decade phrases (``low fifties``, ``mid-40s``, ``fifty-something``)
whose magnitude is left to the reader (``Number.implied_scale``: "low fifties" about a salary
means thousands).

Number words are read word by word over whole tokens, never by regex alternation (which read
"eighteen" as 8 and "ninety-five thousand" as 9 and 5,000).
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass

from arena.metrics.number_words import SCALES, TENS, UNITS, word_runs


@dataclass(frozen=True)
class Number:
    """A number or an interval [lo, hi] found at ``start:end`` of the NFKC-normalised text."""

    lo: float
    hi: float
    start: int
    end: int
    percent: bool = False
    implied_scale: bool = False  # a decade phrase: the magnitude (×1, ×10³, ×10⁶) is unsaid
    share: bool = False  # a fraction of a whole ("a quarter", "1/4"): value is the share

    @property
    def is_interval(self) -> bool:
        return self.lo != self.hi

    @property
    def value(self) -> float:
        return self.lo

    def scaled_to(self, v: float) -> Number:
        """For an ``implied_scale`` number, the reading (×1, ×10³, ×10⁶, ×10⁹) nearest ``v``."""
        if not self.implied_scale or v == 0:
            return self
        mid = (self.lo + self.hi) / 2 or 1.0
        sc = min((1.0, 1e3, 1e6, 1e9), key=lambda k: abs(math.log(abs(mid * k / v))))
        return Number(self.lo * sc, self.hi * sc, self.start, self.end, self.percent, False)

    def of_total(self, total: float | None) -> Number:
        """A share or a percentage as an amount of ``total`` (a pie's size); else itself."""
        if total is None or not (self.share or self.percent):
            return self
        k = total if self.share else total / 100.0
        return Number(self.lo * k, self.hi * k, self.start, self.end, False, False)


_DECADES = {
    "twenties": 20, "thirties": 30, "forties": 40, "fifties": 50, "sixties": 60,
    "seventies": 70, "eighties": 80, "nineties": 90,
}  # fmt: skip

# Digits: 1,200 / 1 200 / 1_200 / 52.5 / .5, with a glued or spaced magnitude suffix.
_DIGITS = re.compile(
    r"(?<![\w.,])(?P<num>\d{1,3}(?:(?:,|_|\u00a0|\u202f| )\d{3})+(?!\d|,\d)|\d+)(?P<dec>\.\d+)?"
    r"(?:\s?(?P<suf>k|mn|mio|mil|mill|million|millions|m|bn|billion|billions|thousand|"
    r"thousands|grand|hundred)\b)?(?P<pct>\s?(?:%|percent\b|per cent\b))?"
    r"(?![\w])",
    re.I,
)
# Continental notation: "." groups thousands, "," marks decimals ("1.250,50", "62.000 £").
# Read as such only when it cannot be an English decimal: a decimal comma, two or more dot
# groups, or one dot group of three digits beside a currency sign or code.
_LOCALE = re.compile(r"(?<![\w.,])(?P<int>\d{1,3}(?:\.\d{3})+)(?P<dec>,\d{1,2})?(?![\d.,]\d)", re.I)
_COMMA_MAGNITUDE = re.compile(
    r"(?<![\w.,])(?P<a>\d{1,3}),(?P<b>\d{1,2})\s?(?P<suf>k|mio|mn|m|bn|million|thousand|grand)\b",
    re.I,
)
_CURRENCY_NEAR = re.compile(r"^\s?(?:[$€£¥]|eur|euros?|usd|gbp|chf|pounds?|dollars?)\b|^\s?[$€£¥]",
                            re.I)  # fmt: skip
_CURRENCY_BEFORE = re.compile(r"(?:[$€£¥]|\b(?:eur|usd|gbp|chf))\s?$", re.I)
# Nothing at all: a worth of zero ("worth nothing", "worthless", "zero").
_NOTHING = re.compile(r"\b(?:nothing|worthless|zero|nil|nada)\b", re.I)
_DECADE_PHRASE = re.compile(
    r"\b(?:(?P<q>low|lower|early|mid|middle|high|upper|late)[\s-]+)?"
    r"(?:(?P<w>twenties|thirties|forties|fifties|sixties|seventies|eighties|nineties)"
    r"|(?P<d>[2-9]0)'?s)\b"
    r"|\b(?P<w2>twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|[2-9]0)[\s-]?(?:something|ish)\b",
    re.I,
)
_QUALIFIER = {
    None: (0, 9), "low": (0, 3), "lower": (0, 3), "early": (0, 3), "mid": (3, 7),
    "middle": (3, 7), "high": (6, 9), "upper": (6, 9), "late": (6, 9),
}  # fmt: skip


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).replace("’", "'")


# -- the parser -----------------------------------------------------------------------------
def parse_numbers(text: str) -> list[Number]:
    """Every number in ``text``: digits, words, magnitudes, percentages, intervals, decades."""
    s = _fold(text)
    found: list[Number] = []
    for m in _DECADE_PHRASE.finditer(s):
        q = (m.group("q") or "").casefold() or None
        if m.group("w2"):
            base_s = m.group("w2").casefold()
            base = TENS.get(base_s) or int(base_s)
            lo, hi = base, base + 9
        else:
            base = _DECADES[m.group("w").casefold()] if m.group("w") else int(m.group("d"))
            a, b = _QUALIFIER[q]
            lo, hi = base + a, base + b
        found.append(Number(float(lo), float(hi), m.start(), m.end(), implied_scale=True))
    for m in _COMMA_MAGNITUDE.finditer(s):  # "1,5k", "2,4 mio": a decimal comma, a magnitude
        v = float(m.group("a") + "." + m.group("b")) * SCALES[m.group("suf").casefold()]
        found.append(Number(v, v, m.start(), m.end()))
    taken = [(n.start, n.end) for n in found]
    for m in _LOCALE.finditer(s):
        if any(a <= m.start() < b for a, b in taken):
            continue
        groups = m.group("int").count(".")
        money = _CURRENCY_NEAR.match(s[m.end() :]) or _CURRENCY_BEFORE.search(s[: m.start()])
        if not (m.group("dec") or groups >= 2 or money):
            continue
        v = float(m.group("int").replace(".", "") + (m.group("dec") or "").replace(",", "."))
        found.append(Number(v, v, m.start(), m.end()))
    taken = [(n.start, n.end) for n in found]
    for m in _DIGITS.finditer(s):
        if any(a <= m.start() < b for a, b in taken):
            continue
        if any(a <= m.start() < b for a, b in taken):
            continue
        raw = re.sub(r"[,_\u00a0\u202f ]", "", m.group("num"))
        v = float(raw + (m.group("dec") or ""))
        suf = (m.group("suf") or "").casefold()
        if suf:
            v *= 100.0 if suf == "hundred" else SCALES[suf]
        found.append(Number(v, v, m.start(), m.end(), percent=bool(m.group("pct"))))
    taken = [(n.start, n.end) for n in found]
    for value, start, end in word_runs(s, taken):
        n = Number(value, value, start, end)
        pct = re.match(r"\s*(?:percent\b|per cent\b|%)", s[end:], re.I)
        if pct:
            end += pct.end()
        found.append(Number(n.lo, n.hi, n.start, end, percent=bool(pct)))
    taken = [(n.start, n.end) for n in found]
    for m in _NOTHING.finditer(s):
        if not any(a <= m.start() < b for a, b in taken):
            found.append(Number(0.0, 0.0, m.start(), m.end()))
    found.sort(key=lambda n: n.start)
    return _fractions(s, _intervals(s, found))


# Shares of a whole: "a quarter", "a third of the pie", "two thirds", "1/4". Their value is the
# share (0.25); the secret's public total, when it has one, turns it into an amount.
_FRACTION_WORDS = {
    "half": 0.5, "third": 1 / 3, "thirds": 1 / 3, "quarter": 0.25, "quarters": 0.25,
    "fifth": 0.2, "fifths": 0.2, "tenth": 0.1, "tenths": 0.1, "sixth": 1 / 6, "eighth": 0.125,
}  # fmt: skip
_FRACTION = re.compile(
    r"\b(?P<n>a|an|one|two|three|four|\d)[\s-]+(?P<w>half|thirds?|quarters?|fifths?|tenths?|"
    r"sixth|eighth)\b|\b(?P<a>\d{1,2})\s?/\s?(?P<b>\d{1,2})\b",
    re.I,
)


def _fractions(s: str, nums: list[Number]) -> list[Number]:
    """``nums`` with the shares of ``s`` added (flagged ``share``), replacing the bare count
    a fraction word started with ("two thirds" is not 2)."""
    shares = []
    digits: list[Number] = []  # "1/4": its digits were read as numbers, the share replaces them
    for m in _FRACTION.finditer(s):
        if m.group("w"):
            k = m.group("n").casefold()
            count = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4}.get(k)
            share = (count if count is not None else int(k)) * _FRACTION_WORDS[
                m.group("w").casefold()
            ]
        else:
            b = int(m.group("b"))
            if not b or int(m.group("a")) >= b:
                continue
            share = int(m.group("a")) / b
            digits += [n for n in nums if m.start() <= n.start < m.end()]
            shares.append(Number(share, share, m.start(), m.end(), share=True))
            continue
        inside = any(n.start <= m.start("w") < n.end for n in nums)
        if not inside:  # "a grand and a half" is one amount, not a share
            shares.append(Number(share, share, m.start(), m.end(), share=True))
    if not shares:
        return nums
    keep = [n for n in nums if n not in digits
            and not any(f.start <= n.start < f.end for f in shares)]  # fmt: skip
    return sorted(keep + shares, key=lambda n: n.start)


_RANGE_GAP = re.compile(r"^\s*(?:-|–|—|to)\s*(?:[$€£¥]\s*)?$", re.I)
_BETWEEN = re.compile(r"(?:between|from)\s+(?:[$€£¥]\s*)?$", re.I)
_AND_GAP = re.compile(r"^\s*(?:and|to|-|–)\s*(?:[$€£¥]\s*)?$", re.I)


def _intervals(s: str, nums: list[Number]) -> list[Number]:
    """Pairs joined by a dash, "to" or "between … and" become one interval. A magnitude said
    once applies to both ends ("50 to 55k", "forty to fifty thousand")."""
    out: list[Number] = []
    i = 0
    while i < len(nums):
        a = nums[i]
        if i + 1 < len(nums) and not a.implied_scale and not nums[i + 1].implied_scale:
            b = nums[i + 1]
            gap = s[a.end : b.start]
            before = s[max(0, a.start - 12) : a.start]
            joined = _RANGE_GAP.match(gap) or (_BETWEEN.search(before) and _AND_GAP.match(gap))
            if joined:
                lo, hi = a.lo, b.hi
                # "50 to 55k": the lower end takes the upper end's magnitude
                for k in (1e9, 1e6, 1e3):
                    if hi >= k and lo < hi / 100 and lo * k <= hi:
                        lo *= k
                        break
                lo, hi = sorted((lo, hi))
                out.append(Number(lo, hi, a.start, b.end, a.percent or b.percent))
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


__all__ = ["SCALES", "TENS", "UNITS", "Number", "band", "parse_numbers"]
