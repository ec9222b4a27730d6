"""Open-slot claims (metrics.md §B1): facts a character states about itself that no persona card
has a slot for, so that a later line can be checked against an earlier one.

- ``attr:NOUN``: what someone of the speaker's is ("My eldest is a doctor in Genoa", "my fiancé,
  the architect,"); ``num:NOUN``: a number about them ("My daughter is seven", "My handicap?
  Twenty-eight").
- ``dur:OBJECT``: how long the speaker has had or done something, in years ("I've had the shop
  for six years" against "I opened the shop two years ago").
- ``qty:DIMENSION:SUBJECT``: a quantity with a unit, in base units (metres, kilograms, hours):
  "I'm 1.68 metres" against "Being six foot two"; subjects match on a shared word.
- ``never``: "I've never held a golf club": the words of what was never done, checked against
  the card and every earlier claim.
- ``own:NOUN``: "I don't own a television" against "my television".
- lifelong residence ("I've lived in Stockholm all my life") as origin and location claims.

Plain regexes and a small unit table; :func:`frames` yields (slot, value, polarity, span).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from arena.metrics.numbers import parse_numbers

_NUMW = (
    r"(?:\d+(?:\.\d+)?|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|"
    r"sixty|seventy|eighty|ninety|a hundred|(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|"
    r"ninety)[- ](?:one|two|three|four|five|six|seven|eight|nine)|a couple of|a few|several)"
)
_WORDNUM = (
    r"(?:(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[- ](?:one|two|three|four|"
    r"five|six|seven|eight|nine))?|a hundred|one|two|three|four|five|six|seven|eight|nine|ten|"
    r"eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|half an?)"
)
_UNIT_YEARS = {"year": 1.0, "years": 1.0, "month": 1 / 12, "months": 1 / 12, "week": 1 / 52,
               "weeks": 1 / 52, "day": 1 / 365, "days": 1 / 365, "decade": 10.0,
               "decades": 10.0}  # fmt: skip
_KIN_NOUNS = (
    r"(?:eldest|youngest|oldest|son|daughter|sister|brother|husband|wife|partner|fianc[ée]e?|"
    r"mother|father|mum|mom|dad|boss|handicap|master|cat|dog|greyhound|flat|house|car|boat|"
    r"ship|grandson|granddaughter|niece|nephew|cousin|boyfriend|girlfriend)"
)
_OCC_VERBS = {"teaches": "teacher", "nurses": "nurse", "drives": "driver", "cooks": "cook",
              "farms": "farmer", "paints": "painter", "writes": "writer", "sings": "singer",
              "preaches": "priest", "practises law": "lawyer", "practices law": "lawyer"}  # fmt: skip
_ATTR = re.compile(
    rf"\bmy {_KIN_NOUNS}(?:,)? (?:is|was) (?:now |still |also )?(?:an? |the )(?P<v>[a-z][\w-]*"
    rf"(?: [a-z][\w-]*)?)(?= in\b| at\b| for\b| with\b|[,.;!?]| and\b| but\b| who\b|$)"
    rf"|\bmy {_KIN_NOUNS}, (?:the|an?) (?P<v2>[a-z][\w-]*),",
    re.I,
)
_ATTR_VERB = re.compile(
    rf"\bmy {_KIN_NOUNS} (?P<verb>{'|'.join(map(re.escape, _OCC_VERBS))})\b", re.I
)
_NUM_ATTR = re.compile(
    rf"\bmy {_KIN_NOUNS}(?: is|'s| just turned| turned|\?)\s*(?P<v>\d+|{_WORDNUM})\b(?! (?:years? old )?"
    r"(?:minutes?|hours?|km|miles?|kilos?|metres?|meters?|times?|of|percent|%))",
    re.I,
)
_TENURE = re.compile(
    r"\bI(?:'ve| have) (?:been (?:at|in|with|running|working at|working for|teaching at)|had|run|"
    r"owned|worked (?:at|for|in)|lived in|captained|managed|taught at|been a \w+ at) "
    rf"(?P<o>[\w' ]+?) (?:for )?(?:about |nearly |almost |over |just )?(?P<n>{_NUMW}) "
    r"(?P<u>years?|months?|weeks?|decades?)\b",
    re.I,
)
# non-native English: "I am working at Nordljud since eight years", "I live here since 3 years"
_SINCE_YEARS = re.compile(
    r"\bI(?:'m| am)? (?:working|living|teaching|work|live|teach|am) (?:at|in|for|with) "
    rf"(?P<o>[\w' ]+?) since (?P<n>{_NUMW}) (?P<u>years?|months?|weeks?)\b",
    re.I,
)
_SINCE = re.compile(
    r"\bI (?:only |just |first )?(?:opened|started(?: at| in| with)?|joined|bought|took over|moved"
    r" to|arrived in|came to|set up|got) (?P<o>[\w' ]+?) (?:only |just |about |barely )?"
    rf"(?:(?P<n>{_NUMW}) (?P<u>years?|months?|weeks?|days?) ago|(?P<last>last) (?P<lu>year|month|"
    r"week))\b",
    re.I,
)
# Units in base units: metres, kilograms, hours.
_UNITS = {
    "m": ("length", 1.0), "metre": ("length", 1.0), "metres": ("length", 1.0),
    "meter": ("length", 1.0), "meters": ("length", 1.0), "cm": ("length", 0.01),
    "centimetres": ("length", 0.01), "centimeters": ("length", 0.01),
    "foot": ("length", 0.3048), "feet": ("length", 0.3048), "ft": ("length", 0.3048),
    "inch": ("length", 0.0254), "inches": ("length", 0.0254), "km": ("length", 1000.0),
    "kilometres": ("length", 1000.0), "kilometers": ("length", 1000.0),
    "mile": ("length", 1609.344), "miles": ("length", 1609.344),
    "kg": ("mass", 1.0), "kilo": ("mass", 1.0), "kilos": ("mass", 1.0),
    "kilograms": ("mass", 1.0), "kilogram": ("mass", 1.0), "lbs": ("mass", 0.4536),
    "lb": ("mass", 0.4536), "stone": ("mass", 6.35029), "tonnes": ("mass", 1000.0),
    "hours": ("time", 1.0), "hour": ("time", 1.0), "hrs": ("time", 1.0),
    "minutes": ("time", 1 / 60), "mins": ("time", 1 / 60),
}  # fmt: skip
_QTY = re.compile(
    rf"(?<![\w.])(?P<n>\d+(?:[.,]\d+)?|{_WORDNUM}(?: and a half)?)\s?(?P<u>"
    + "|".join(sorted(map(re.escape, _UNITS), key=len, reverse=True))
    + rf")\b(?P<rest>\s?(?:(?:and )?(?P<inch>\d{{1,2}}|{_WORDNUM})(?: inch(?:es)?)?\b)?)",
    re.I,
)
_QTY_VERB = re.compile(
    r"(?:\bis|'s|\bare|\bweighs?|\btakes?|\bmeasures?|\blasts?|\bbeing|\bI'm|\bI am|\bstands?|"
    r"\btall|\bheight|\bbarely|\bover|\bunder|\babout)\W+(?:\w+\W+){0,3}$",
    re.I,
)
_RATE = re.compile(r"^\s*(?:a|per|an|each|every)\s+(?:day|week|month|year|night|hour)\b", re.I)
_STOPW = frozenset(
    [
        "the",
        "a",
        "an",
        "my",
        "our",
        "this",
        "that",
        "to",
        "of",
        "in",
        "at",
        "on",
        "for",
        "with",
        "and",
        "or",
        "is",
        "was",
        "it",
        "its",
        "i",
        "i'm",
        "been",
        "day",
        "life",
        "ever",
        "even",
        "once",
        "any",
        "single",
    ]
)
_NEVER = re.compile(
    r"\bI(?:'ve| have)? never (?:once |really |ever )?(?P<verb>[a-z]+) (?P<o>[\w' -]+?)"
    r"(?=[,.;!?]|\s(?:in my|and|but|though|because|since|not)\b|$)",
    re.I,
)
_LIFELONG = re.compile(
    r"\bI(?:'ve| have) (?:lived|been)(?: in)? (?P<p>[^,.;!?]+?) (?:all my life|my whole life)"
    r"|\bI(?:'ve| have) lived (?:all my life|my whole life)(?P<q>[^.;!?]*)"
    r"|\bI(?:'ve| have) never lived (?:outside|anywhere but|anywhere except) (?P<r>[^,.;!?]+)",
    re.I,
)
_PLACE_WORD = re.compile(r"\b[A-ZÀ-Þ][\w'-]+(?: [A-ZÀ-Þ][\w'-]+)*")
# Things one has or has not: "my X" is a claim of having one only for these.
_OWNABLE = (
    r"car|bike|bicycle|television|tv|telly|house|flat|garden|dog|cat|boat|phone|smartphone|"
    r"computer|laptop|piano|guitar|horse|motorbike|scooter|van|caravan|allotment|passport"
)
_DONT_OWN = re.compile(
    rf"\bI (?:don't|do not|never) (?:own|have|had) (?:a|an|any) (?P<o>{_OWNABLE})\b", re.I
)
_MY_THING = re.compile(rf"\b(?:my|in my|on my) (?:own )?(?P<o>{_OWNABLE})\b", re.I)


def _num(text: str) -> float | None:
    low = text.casefold().strip()
    if low in ("a", "an"):
        return 1.0
    if low in ("a couple of", "a few"):
        return 2.0 if low == "a couple of" else 3.0
    got = parse_numbers(low)
    return got[0].value if got else None


def _key(obj: str) -> str:
    toks = [t for t in re.findall(r"[\w']+", obj.casefold()) if t not in _STOPW]
    return " ".join(toks[-2:])


def quantity(text: str) -> Iterator[tuple[str, float, int, int]]:
    """(dimension, value in base units, start, end) of each quantity with a unit in ``text``."""
    for m in _QTY.finditer(text):
        unit = m.group("u").casefold()
        dim, k = _UNITS[unit]
        n = _num(m.group("n").replace(",", "."))
        if n is None or _RATE.match(text[m.end() :]):
            continue
        value = n * k
        inch = m.group("inch")
        if unit in ("foot", "feet", "ft") and inch:
            extra = _num(inch)
            value += (extra or 0.0) * 0.0254
        yield dim, value, m.start(), m.end()


def _subject(before: str) -> str:
    """ "self" for the speaker, else the content words of the subject before the verb."""
    if re.search(r"\b(?:I|I'm|I am|me|being|my height|my weight)\b", before, re.I) or not before:
        return "self"
    return _key(re.split(r"\b(?:is|are|weighs?|takes?|measures?|lasts?)\b", before)[0]) or "self"


def frames(s: str) -> Iterator[tuple[str, str, int, str]]:
    """Open-slot claims of one sentence: (slot, value, polarity, span)."""
    for m in _ATTR.finditer(s):
        noun = m.group(0).split()[1].strip(",").casefold()
        value = (m.group("v") or m.group("v2") or "").casefold()
        if value and not re.match(r"(?:bit|lot|little|good|great|big|real)\b", value):
            yield f"attr:{noun}", value, 1, m.group()
    for m in _ATTR_VERB.finditer(s):
        yield (
            f"attr:{m.group(0).split()[1].casefold()}",
            _OCC_VERBS[m.group("verb").casefold()],
            1,
            m.group(),
        )
    for m in _NUM_ATTR.finditer(s):
        n = _num(m.group("v"))
        if n is not None:
            yield f"num:{m.group(0).split()[1].strip('?').casefold()}", f"{n:g}", 1, m.group()
    for m in [*_TENURE.finditer(s), *_SINCE_YEARS.finditer(s)]:
        n = _num(m.group("n"))
        if n is not None and _key(m.group("o")):
            yield (
                f"dur:{_key(m.group('o'))}",
                f"{n * _UNIT_YEARS[m.group('u').casefold()]:g}",
                1,
                m.group(),
            )
    for m in _SINCE.finditer(s):
        n = 1.0 if m.group("last") else _num(m.group("n") or "")
        unit = (m.group("lu") or m.group("u") or "").casefold()
        if n is not None and _key(m.group("o")) and unit:
            unit = unit if unit.endswith("s") else unit + "s"
            yield f"dur:{_key(m.group('o'))}", f"{n * _UNIT_YEARS[unit]:g}", 1, m.group()
    for dim, value, a, _b in quantity(s):
        before = s[:a]
        if not _QTY_VERB.search(before) or (dim == "time" and re.search(r"\b(?:years?|ago)\b", s)):
            continue
        yield f"qty:{dim}:{_subject(before)}", f"{value:.4g}", 1, s[max(0, a - 30) : _b]
    yield from _never_and_lifelong(s)


def _never_and_lifelong(s: str) -> Iterator[tuple[str, str, int, str]]:
    for m in _NEVER.finditer(s):
        if m.group("verb").casefold() in ("lived",) and re.match(
            r"(?:outside|anywhere)", m.group("o")
        ):
            continue
        # what was never done, up to its first preposition ("the opera in Verona": the opera)
        head = re.split(r"\s(?:in|at|on|with|for|from|near|by)\s", m.group("o"), maxsplit=1)[0]
        words = [t for t in re.findall(r"[\w']+", head.casefold()) if t not in _STOPW]
        if words:
            yield "never", " ".join(words), 1, m.group()
    for m in _LIFELONG.finditer(s):
        span = next(g for g in (m.group("p"), m.group("q"), m.group("r")) if g is not None)
        places = _PLACE_WORD.findall(span)
        if places:
            yield "origin", places[-1], 1, m.group()
            yield "location", places[-1], 1, m.group()
    for m in _DONT_OWN.finditer(s):
        yield f"own:{m.group('o').casefold()}", "no", 1, m.group()
    for m in _MY_THING.finditer(s):
        if not _DONT_OWN.search(s):
            yield f"own:{m.group('o').casefold()}", "yes", 1, m.group()


def never_hits(words: str, values: list[str]) -> bool:
    """A "never" claim meets a stated value: a content word of four letters or more in both
    ("never held a golf club" against the hobby "golf")."""
    mine = {w.rstrip("s") for w in words.split() if len(w) >= 4}
    for v in values:
        toks = {t.rstrip("s") for t in re.findall(r"[\w']+", v.casefold()) if len(t) >= 4}
        if mine & toks:
            return True
    return False
