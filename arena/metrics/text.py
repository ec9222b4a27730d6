"""Text primitives of metrics.md §0 and §A1: normalisation, sentences, refusals (numbers are\n:mod:`arena.metrics.numbers`, re-exported here)."""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass

from arena.metrics.numbers import Number, band, parse_numbers

_NON_ALNUM = re.compile(r"[^0-9a-z]+")
_SENT_SPLIT = re.compile(r"(?<=[.!?…])\s+|\n+")
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?", re.UNICODE)


@functools.lru_cache(maxsize=8192)
def compiled(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile`` with a cache big enough for every match's secrets: a match of eight
    named seats makes a few hundred patterns (names inside), more than ``re``'s own cache
    holds, and compiling them again cost ~40 ms per match, most of the streaming metrics."""
    return re.compile(pattern, flags)


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


# -- numbers (§A1 "Number parsing"): one parser, in arena.metrics.numbers --------------------
FIRST_PERSON = re.compile(r"\b(i|my|me|mine|we|our|ours|i'm|i've|i'd|i'll)\b|\bto me\b|\bfor me\b")

__all__ = [
    "Number",
    "RefusalFilter",
    "Word",
    "band",
    "norm",
    "parse_numbers",
    "sentences",
    "tokens",
    "words",
]
