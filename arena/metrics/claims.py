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
import unicodedata
from dataclasses import dataclass

from arena.metrics.claim_frames import frames
from arena.metrics.claim_patterns import (
    FIGURATIVE,
    LANGUAGES,
    MEAT,
    NAME_NOT,
    OCC_CUES,
    OCCUPATIONS,
    RELATIONAL,
    TRAILING,
)
from arena.metrics.text import norm, parse_numbers, sentences

MULTI = {"pets", "hobbies", "likes", "dislikes", "languages"}
NUMERIC = {"age", "children", "siblings", "income"}
FAMILY = {"hobbies": "likes", "likes": "hobbies"}  # stated interchangeably ("I enjoy/love X")
TASTE = ("hobbies", "likes")  # a dislike is a negative "likes" claim against both
__all__ = ["FAMILY", "MULTI", "NUMERIC", "OCCUPATIONS", "Claim", "Matcher", "conflicts", "extract"]

OCC_SYNONYMS = [
    {"doctor", "physician", "medical doctor", "gp"},
    {"lawyer", "attorney", "solicitor"},
    {"programmer", "software developer", "developer", "software engineer", "coder"},
    {"teacher", "schoolteacher", "educator"},
    {"cook", "chef"},
    {"vet", "veterinarian"},
    {"taxi driver", "cab driver", "cabbie"},
    {"retiree", "retired", "pensioner"},
    {"coach", "trainer"},
]
LOC_ALIASES = [
    {"new york", "nyc", "new york city"},
    {"los angeles", "la"},
    {"united kingdom", "uk", "britain"},
    {"united states", "usa", "us", "america"},
    {"san francisco", "sf"},
    {"seville", "sevilla"},
    {"lisbon", "lisboa"},
    {"munich", "munchen"},
    {"cologne", "koln"},
    {"turin", "torino"},
    {"prague", "praha"},
]
# marital values that can hold at once: "partnered" (a partner, boyfriend) is compatible with
# married and engaged; the other values exclude each other
_MARITAL_OK = {frozenset({"partnered", "married"}), frozenset({"partnered", "engaged"}),
               frozenset({"partnered", "divorced"}), frozenset({"partnered", "widowed"})}  # fmt: skip

_NUMW = (r"(?:\d{1,3}|(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[- ](?:one|two|"
         r"three|four|five|six|seven|eight|nine))?|one|two|three|four|five|six|seven|eight|nine|"
         r"ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|"
         r"a hundred)")  # fmt: skip
_ADV = (r"(?:(?:actually|really|honestly|currently|just|only|still|already|now|recently|"
        r"originally|genuinely|officially|happily|proudly|newly|technically|basically|"
        r"literally|also|even|almost|nearly|exactly|turning|just about) )*")  # fmt: skip
_STOP = r"(?=\s*(?:[.,;!?:()—–]|\s-\s|$|\band\b|\bbut\b|\bbecause\b|\bsince\b|\bso\b|\bwith\b))"
_V = r"(?P<v>[\w'’ -]+?)" + _STOP
_VM = r"(?P<v>[\w'’ ,-]+?)(?=\s*(?:[.;!?:()—–]|$|\bbut\b|\bbecause\b|\bsince\b|\bso\b|\bwith\b))"
_PLACE = (
    r"(?P<v>[A-ZÀ-Þ][\w'’.-]*(?:(?: (?:de|del|la|le|am|an|upon|on|sur|di|da))? [A-ZÀ-Þ][\w'’.-]*)*)"
)
_NEG = r"(?P<neg>not |n't |no longer |never )?"
_AGE_END = (r"(?=\s*(?:[,.;!:—–)]|$|\band\b|\bbut\b|\bso\b|\bnow\b|\bthis\b|\bnext\b|\bsince\b|"
            r"\bif\b|\bwhich\b|\balready\b|\btoday\b|\byears?\b|\byrs?\b|\bbtw\b))")  # fmt: skip
_I_AM = r"\bI(?:'m| am) "
_KIN = r"(?:kids|children|sons|daughters|child|son|daughter|boys|girls)"
_SIB = r"(?:siblings|brothers|sisters|sibling|brother|sister)"

PATTERNS: list[tuple[str, str]] = [
    ("name", r"\b(?i:my name(?:'s| is)|the name's|name's) (?P<v>[A-ZÀ-Þ][\w'-]*(?: [A-ZÀ-Þ][\w'-]*)*)"),
    ("name", r"(?:^|[.!?]\s+|\b(?i:please|you can|just) )(?i:call me) (?P<v>[A-ZÀ-Þ][\w'-]*)"),
    ("name", r"^(?:(?i:hi|hello|hey)[,!]?\s+)?(?i:I'm|I am) (?P<v>[A-ZÀ-Þ][\w'-]+)(?=,\s*(?i:your|the|I|and|nice|from the)\b| here\b|,? by the way\b|[.!]?$)"),
    ("name", r"^(?:(?i:hi|hello|hey)[,!]?\s+)?(?P<v>[A-ZÀ-Þ][\w'-]+) here\b"),
    ("age", rf"{_I_AM}{_NEG}{_ADV}(?P<v>{_NUMW}) years? old\b"),
    ("age", rf"{_I_AM}{_ADV}an? (?P<v>{_NUMW})[- ]year[- ]old\b"),
    ("age", rf"{_I_AM}{_ADV}(?P<v>{_NUMW})(?![.,]\d){_AGE_END}"),
    ("age", rf"\bI (?:{_ADV})turned (?P<v>{_NUMW})\b(?! last year)"),
    ("age", r"\bmy age (?:is|:) ?(?P<v>\d{1,3})\b"),
    ("age", rf"{_I_AM}{_ADV}in my (?P<v>(?:early |mid-?|late )?(?:teens|twenties|thirties|forties|fifties|sixties|seventies|eighties|nineties))\b"),
    ("age", r"\bI(?:'ve| have) been (?:around|alive|on this earth) for (?P<v>half a century|(?:\w+) decades)\b"),
    ("occupation", rf"\bI work as (?:an? |the )?{_V}"),
    ("occupation", rf"{_I_AM}{_NEG}{_ADV}(?:an? |the )(?P<v>[\w' -]+?){_STOP}"),
    ("employer", rf"\bI (?:work|coach|teach|drive|volunteer|nurse) (?:at|for|with) {_V}"),
    ("employer", r"\bI(?:'m| am) (?:an? |the )[\w' -]+? (?:at|with) (?P<v>[A-ZÀ-Þ][\w'’.&-]*(?: [\w'’.&-]+)*?)" + _STOP),
    ("location", rf"\b(?:I|we) {_NEG}(?:live|am living|'m living|are living|'re living|reside) in {_V}"),
    ("location", rf"\b(?:I|we)(?:'m| am|'re| are) {_NEG}{_ADV}(?:living|based|settled) in {_V}"),
    ("location", rf"\b(?:I|we)(?:'ve| have) (?:lived|been living) in {_V}"),
    ("location", rf"\b(?:I|we)(?:'ve| have) settled in {_V}"),
    ("location", rf"\b(?:I|we) (?i:moved) to {_PLACE}"),
    ("location", rf"\bmy home is (?:in )?{_V}"),
    ("location", rf"\b(?i:here in) {_PLACE}"),
    ("location", rf"\bI (?i:call) {_PLACE} (?i:home)\b"),
    ("location", rf"^{_PLACE} (?:has been|is) (?:my )?home\b"),
    ("location", rf"\b(?i:my (?:flat|apartment|house|place|home) in) {_PLACE}"),
    ("origin", rf"{_I_AM}{_NEG}{_ADV}(?:originally )?from {_V}"),
    ("origin", rf"\bI (?:grew up|was born|was raised|was born and raised|was born and bred) in {_V}"),
    ("origin", rf"\bI come from {_V}"),
    ("origin", rf"^{_PLACE} is where I (?:grew up|was born|come from)\b"),
    ("origin", rf"\bmy home ?town is {_V}"),
    ("marital_status", rf"{_I_AM}{_NEG}{_ADV}(?P<v>married|single|divorced|widowed|engaged|a widow|a widower)\b(?! to (?:my|the|his|her) (?:job|work|research|career|craft|art|music|team))"),
    ("partner_name", r"\b(?i:my (?:wife|husband|partner|spouse|fiancée?)(?:'s name)? is) (?P<v>[A-Z][\w'-]*)"),
    ("children", rf"\b(?:I|we) have {_ADV}(?P<v>{_NUMW}|a couple of|half a dozen|a dozen|no|an?|a little|a baby|a grown-up) {_KIN}\b"),
    ("children", rf"\bmy (?P<v>{_NUMW}) {_KIN}\b"),
    ("siblings", rf"\bI have {_ADV}(?P<v>{_NUMW}|a couple of|no|an?|an older|a younger|a little|a big|an elder) {_SIB}\b"),
    ("siblings", rf"\bthe (?:youngest|oldest|eldest|middle one|middle child) of (?P<v>{_NUMW})\b"),
    ("pets", r"\bI have an? (?P<v>dog|cat|parrot|rabbit|hamster|horse|tortoise|turtle|fish|goldfish|budgie|canary|puppy|kitten|greyhound|terrier)\b"),
    ("hobbies", rf"\bI {_NEG}{_ADV}enjoy {_VM}"),
    ("likes", rf"\bI {_NEG}{_ADV}(?:love|like|adore) {_VM}"),
    ("languages", rf"\bI {_NEG}{_ADV}speak {_VM}"),
    ("education", rf"\bI studied {_V}"),
    ("age", rf"^(?:At|at) (?P<v>{_NUMW}),? (?:I|I've|I'm|I have)\b"),
    ("age", rf"{_I_AM}{_ADV}(?P<v>pushing {_NUMW}|barely past {_NUMW}|just past {_NUMW}|past {_NUMW}|nearly {_NUMW}|almost {_NUMW}|knocking on {_NUMW})\b"),
    ("age", rf"\bI turned (?P<v>{_NUMW} last year)\b"),
    ("occupation", r"^(?:As|as) (?:an? )(?P<v>[\w' -]+?),? (?:I|I'm|I've|I'd|I'll|we|my)\b"),
    ("occupation", r"\bI drive (?:an? |the )(?P<v>lorry|truck|bus|taxi|cab|tram|train|van|ambulance)\b"),
    ("religion", r"{_I_AM}{_NEG}{_ADV}(?:a |an )?(?P<v>Catholic|Jewish|Muslim|Hindu|Buddhist|Protestant|Christian|Orthodox|Anglican|Sikh|atheist|agnostic|Methodist|Baptist|Lutheran)\b"),
    ("education", r"\bmy (?:degree|diploma|doctorate|phd|training) (?:is|was) in {_V}"),
    ("origin", rf"\bI (?:was born|grew up) on {_V}"),
    ("children", rf"\b(?P<v>both|all {_NUMW}) of my {_KIN}\b"),
    ("children", rf"\bmy {_KIN}, (?:all|both) (?P<v>{_NUMW}) of them\b"),
    ("children", rf"\bmy {_KIN}, (?P<v>my only) child\b"),
    ("siblings", rf"\bI grew up with (?P<v>{_NUMW}) (?:older |younger |big |little )?{_SIB}\b"),
    ("marital_status", r"{_I_AM}(?:a )?(?:confirmed |lifelong |happy )?(?P<v>bachelor|spinster)\b"),
    ("income", r"\bI (?:earn|make|take home|bring in) (?:about |around |roughly |just over |just under |nearly |almost )?(?P<v>[$€£]?\s?[\d.,]*\d(?:\s?(?:k|K|grand)\b)?(?: (?:a|per) (?:year|month|week|annum))?)"),
]  # fmt: skip
_CASE_SENSITIVE = {"name", "partner_name"}
_COMPILED = [
    (slot, re.compile(p, re.M if slot in _CASE_SENSITIVE or "_PLACE" in p or "[A-Z" in p
                      else re.I | re.M)) for slot, p in PATTERNS
]  # fmt: skip
_DISLIKE = re.compile(
    r"\bI(?:'ve| have)? (?:really |just |honestly |absolutely |truly )?(?:hate|loathe|detest|"
    r"despise|dislike|can't stand|cannot stand|can't bear|never liked|never enjoyed|don't like|"
    r"do not like|don't enjoy|do not enjoy|no longer enjoy|don't love|don't care for)\s+" + _VM,
    re.I,
)  # fmt: skip
_NOT_FAN = re.compile(r"\bI(?:'m| am) not (?:a|really a|much of a|the biggest|a big|a huge) fan of " + _VM, re.I)  # fmt: skip
_BORES = re.compile(r"^(?P<v>[\w' -]+?) (?:bores|bore|annoys|isn't for|is not for|isn't really for) me\b", re.I)  # fmt: skip
_NEG_HAVE = re.compile(rf"\b(?:I|we) (?:don't|do not|never) (?:have any|have|had any|had)(?: an?)? ({_KIN}|{_SIB})\b|\bI(?:'ve| have) no ({_KIN})\b", re.I)  # fmt: skip
_NO_LANG = re.compile(r"\bI (?:can't|cannot|can not|don't|do not) speak (?:a word of |any )?(?P<v>[A-Z]\w+)|\bI (?:never learned|never learnt|have no|don't have any) (?P<w>[A-Z]\w+)")  # fmt: skip
_ONLY_CHILD = re.compile(r"\b(?:I(?:'m| am|was) an only child|being an only child|as an only child)\b", re.I)  # fmt: skip
_NO_PET = re.compile(r"\bI(?:'ve| have)? never (?:had|owned) (?:a |any )?pets?\b|\bI (?:don't|do not) have (?:a |any )?pets?\b", re.I)  # fmt: skip
_CAR = re.compile(r"\b(?P<no>I (?:don't|do not) (?:have|own) a car|I (?:don't|do not|can't) drive)\b|\bmy (?:own )?car\b|\bI (?:drove|drive my|drive to)\b", re.I)  # fmt: skip
_VEGGIE = re.compile(rf"{_I_AM}(?:{_ADV})(?:a )?(?P<v>vegetarian|vegan)\b|\bI (?:don't|do not|never) eat (?P<m>meat)\b", re.I)
_EAT_MEAT = re.compile(r"(?:\bI (?:\w+ )?(?:ate|eat|grilled|grill|had|love|like|cooked|cook|fancy)|\bmy favou?rite (?:dinner|meal|food|dish|lunch))\b[^.!?]*?\b(?:" + MEAT + r")\b", re.I)  # fmt: skip
_FIRST = re.compile(r"\b(i|my|me|i'm|i've|i'd|we|our|us|we're)\b", re.I)
_REPORTED = re.compile(
    r"\b(she|he|they|someone|you|people|everyone) (said|says|told|tells|claims?|claimed|thinks?)\b",
    re.I,
)
_HYPO = re.compile(
    r"\b(if i were|if i was|if i had|i would be|i'd be|imagine|suppose|pretend|in another life|"
    r"had i|i could have been|i wish|what if|say i|let's say|i want to be|i'd like to|"
    r"i would like to|someday|some day|one day|i'd love to)\b",
    re.I,
)
_PAST = re.compile(
    r"\b(when i was|used to|back then|years ago|as a child|as a kid|as a student|before i|"
    r"before (?:switching|becoming|moving|that|medicine|university|uni)|^before\b|"
    r"in my (?:youth|twenties|student days)|until last|once upon)\b",
    re.I,
)
_QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”|„[^“”]*[“”]")
_LATE = re.compile(r"\b(?:late|deceased)\b", re.I)
_EX = re.compile(r"\b(?:ex|former|first|previous)\b", re.I)
_IMPLICIT_FIRST = re.compile(
    r"^(?:(?i:hi|hello|hey)[,!]?\s+)?[A-Z][\w'-]+ here\b|\bhas been home\b|^(?i:the )?(?i:name's)"
)
_AGE_ANSWER = re.compile(r"^\s*(?:me|age|my age)\?\s*(?P<v>\d{1,3})(?=[.,!]|\s*$)", re.I)
_PASSED = re.compile(r"\b(god rest|rest (?:his|her) soul|passed|died|lost (?:him|her)|r\.?i\.?p|lost my (?:wife|husband|spouse))\b", re.I)  # fmt: skip
_REPAIR = re.compile(
    r"(?:[,;:.!…]+|\s[—–-]+)\s*(?:(?:er|um|uh|erm)[,.]?\s+)?(?:(?:sorry[,:]|no,? wait[,:]?|"
    r"wait[,:]|i mean|i meant|correction[,:]|scratch that[,:]?|or rather|no[,:]|"
    r"well,? actually[,:]?|make that)\s+)+",
    re.I,
)
_CORRECTS_EARLIER = re.compile(
    r"\b(i said \S+(?: \S+)? earlier|let me correct myself|i misspoke|correction:|"
    r"i was wrong earlier|earlier i said|i got that wrong)\b",
    re.I,
)
_LEAD_PREP = re.compile(r"^(?:in|from|at|to|for|with|it's|it is|i'm|i am)\s+", re.I)


@dataclass(frozen=True)
class Claim:
    slot: str
    value: str
    polarity: int  # +1 / -1
    turn: int
    span: str
    past: bool = False
    correction: bool = False  # replaces the speaker's earlier value of the slot


def fold(text: str) -> str:
    """``norm`` without diacritics ("Cádiz" = "Cadiz", "Tromsø" = "Tromso")."""
    x = unicodedata.normalize("NFKD", text)
    x = "".join(ch for ch in x if not unicodedata.combining(ch))
    x = x.translate(_FOLD)
    return norm(x)


_FOLD = str.maketrans({"ø": "o", "Ø": "O", "æ": "ae", "Æ": "AE", "ß": "ss", "ł": "l", "Ł": "L",
                       "đ": "d", "ı": "i", "œ": "oe"})  # fmt: skip


def repair(text: str) -> str:
    """Apply in-utterance repairs: the value after a repair marker replaces the value of the
    last claim before it ("I have two kids, no wait, three" → "I have three kids")."""
    for _ in range(4):
        m = _REPAIR.search(text)
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
        value = _LEAD_PREP.sub("", chunk)
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
        for slot, rx in _COMPILED:
            for m in rx.finditer(sent):
                if slot == "occupation" and not _known_occupation(m.group("v"), OCCUPATIONS):
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
    text = _QUOTED.sub(" ", text.replace("’", "'").replace("‘", "'"))
    correction = bool(_CORRECTS_EARLIER.search(text))
    text = repair(text)
    out: list[Claim] = []
    answer = _AGE_ANSWER.match(text)
    if answer:  # "Me? 45." / "Age? 35, though …": the bare number answers the age question
        out.append(Claim("age", answer.group("v"), 1, turn, answer.group(), False, correction))
    for sent in claim_sentences(text):
        s = sent.strip()
        if s.endswith("?") or _REPORTED.search(s) or _HYPO.search(s):
            continue
        if not (_FIRST.search(s) or _IMPLICIT_FIRST.search(s)):
            # the character's word about its own world ("The crossing takes nine hours")
            out += [Claim(sl, v, pol, turn, sp, False, correction) for sl, v, pol, sp in frames(s)
                    if sl.startswith("qty:") and not FIGURATIVE.search(s)]  # fmt: skip
            continue
        past = bool(_PAST.search(s))

        def add(slot: str, value: str, pol: int, span: str, past: bool = past) -> None:
            out.append(Claim(slot, value, pol, turn, span, past, correction))

        taste_spans: list[tuple[int, int]] = []
        for rx in (_DISLIKE, _NOT_FAN):
            for m in rx.finditer(s):
                taste_spans.append(m.span())
                for part in _parts(m.group("v")):
                    add("likes", part, -1, m.group())
        for m in _BORES.finditer(s):
            add("likes", _clean(m.group("v")), -1, m.group())
        for slot, rx in _COMPILED:
            for m in rx.finditer(s):
                if any(a <= m.start() < b for a, b in taste_spans):
                    continue
                v = _clean(m.group("v"))
                neg = bool(m.groupdict().get("neg"))
                if not v:
                    continue
                if slot == "occupation":
                    v = _cut_place(v)
                    if not _known_occupation(v, occ) or FIGURATIVE.search(s):
                        continue
                if slot == "employer":
                    v = _cut_place(v, employer=True)
                    if not v or FIGURATIVE.search(s):
                        continue
                if slot == "name" and (v.casefold() in NAME_NOT or _demonym(v)):
                    continue
                if slot in ("location", "origin", "education"):
                    v = _cut_place(v, employer=True)
                if slot == "marital_status":
                    v = {"a widow": "widowed", "a widower": "widowed"}.get(
                        v.casefold(), v.casefold()
                    )
                if slot == "age":
                    if m.group().endswith("last year"):
                        v += " last year"
                    age = _age_value(v)
                    if age is None:
                        continue
                    v = age
                if slot in ("children", "siblings"):
                    n = _count_value(v)
                    if n is None:
                        continue
                    if m.re.pattern.find("youngest") >= 0:
                        n = f"{float(n) - 1:g}"
                    v = n
                if slot == "income":
                    y = _yearly(v)
                    if y is None:
                        continue
                    v = y
                if slot == "languages" and neg:
                    continue  # handled by _NO_LANG with the language word alone
                if slot == "likes" and m.group().lower().startswith(("i don", "i do not")):
                    continue
                for part in _parts(v) if slot in MULTI else [v]:
                    add(slot, part, -1 if neg else 1, m.group())
        for m in _NEG_HAVE.finditer(s):
            slot = "siblings" if re.match(_SIB, m.group(1) or m.group(2), re.I) else "children"
            add(slot, "0", 1, m.group())
        for m in _NO_LANG.finditer(s):
            lang = m.group("v") or m.group("w")
            if lang and lang.casefold() in LANGUAGES:
                add("languages", lang, -1, m.group())
        if _ONLY_CHILD.search(s):
            add("siblings", "0", 1, "only child")
        if _NO_PET.search(s):
            add("pets", "none", 1, "no pet")
        for m in _CAR.finditer(s):
            add("car", "no" if m.group("no") else "yes", 1, m.group())
        for m in _VEGGIE.finditer(s):
            add("diet", (m.group("v") or "vegetarian").casefold(), 1, m.group())
        if _EAT_MEAT.search(s) and not re.search(r"\bnever\b|\bdon't\b|\bno\b", s, re.I):
            add("diet", "meat eater", 1, "eats meat")
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


def _relational(s: str, add: object) -> None:
    """Slots implied by how the speaker refers to people and places ("my late wife")."""
    assert callable(add)
    for m in RELATIONAL.finditer(s):
        noun = m.group("noun").casefold()
        if re.search(r"-in-law\b", s[m.end() : m.end() + 8]):
            continue
        mods = m.group()[: -len(m.group("noun"))]
        late = bool(_LATE.search(mods)) or (
            noun in ("wife", "husband", "spouse") and bool(_PASSED.search(s))
        )
        if _EX.search(mods):
            continue  # an ex says nothing certain about the present
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


def _parts(v: str) -> list[str]:
    return [p for p in (_clean(x) for x in re.split(r",\s*|\s+and\s+|\s+or\s+", v)) if p]


def _clean(v: str) -> str:
    v = v.strip(" -'")
    return TRAILING.sub("", v).strip(" -,")


def _cut_place(v: str, employer: bool = False) -> str:
    """ "surgeon at the university clinic" → "surgeon"; a place ends at the next preposition."""
    cut = r"\s+(?:at|in|for|with|near|on|from|by|off|since|who|where|when|like|to)\b"
    if employer:
        cut = r"\s+(?:in|near|on|since|who|where|when|by|off|for|to|mixing|making|working)\b"
    return re.split(cut, v, maxsplit=1, flags=re.I)[0].strip()


def _demonym(v: str) -> bool:
    return bool(re.search(r"(?:ish|ese|ian|ean|ayan|ican)$", v.casefold()))


_DECADES = {"teens": 10, "twenties": 20, "thirties": 30, "forties": 40, "fifties": 50,
            "sixties": 60, "seventies": 70, "eighties": 80, "nineties": 90}  # fmt: skip


_AGE_NEAR = {"pushing": (-3, 0), "nearly": (-2, 0), "almost": (-2, 0), "knocking on": (-3, 0),
             "barely past": (0, 2), "just past": (0, 2), "past": (0, 4)}  # fmt: skip


def _age_value(v: str) -> str | None:
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


def _count_value(v: str) -> str | None:
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


def _yearly(v: str) -> str | None:
    n = parse_numbers(re.sub(r"\s?grand\b", "k", v))
    if not n:
        return None
    x = n[0].value
    per = re.search(r"(year|month|week|annum)", v, re.I)
    mult = {"month": 12, "week": 52}.get(per.group(1).lower(), 1) if per else 1
    return f"{x * mult:g}"


def _known_occupation(v: str, occ: set[str]) -> bool:
    n = norm(v)
    return n in occ or any(n.endswith(" " + o) or n == o for o in occ)


class Matcher:
    """same(v₁, v₂) with the card's aliases, occupation synonyms and location aliases."""

    def __init__(self, card_aliases: dict[str, list[str]] | None = None, age_tol: float = 0.0):
        self.groups: list[set[str]] = [set(g) for g in OCC_SYNONYMS + LOC_ALIASES]
        for value, aliases in (card_aliases or {}).items():
            self.groups.append({fold(value), *(fold(a) for a in aliases)})
        self.age_tol = age_tol

    def same(self, slot: str, a: str, b: str) -> bool:
        a, b = str(a), str(b)
        if slot.startswith(("dur:", "qty:", "num:")):
            return _close(slot, a, b)
        if slot in NUMERIC:
            ra, rb = _range(a), _range(b)
            if ra is not None and rb is not None:
                tol = self.age_tol if slot == "age" else 0.0
                if slot == "income":
                    tol = 0.1 * max(abs(ra[0]), abs(rb[0]))
                return ra[0] - tol <= rb[1] and rb[0] - tol <= ra[1]
        if slot == "occupation" and (a.startswith("@") or b.startswith("@")):
            return _cue_fits(a, b)
        x, y = _strip(fold(a)), _strip(fold(b))
        if slot == "diet" and "meat eater" in (x, y):
            return not ({x, y} & {"vegetarian", "vegan", "pescatarian"})
        if slot == "marital_status":
            return x == y or frozenset({x, y}) in _MARITAL_OK
        if x == y:
            return True
        for g in self.groups:
            if x in g and y in g:
                return True
        tx, ty = set(x.split()), set(y.split())
        if slot in TASTE or slot == "dislikes":
            # "chess" = "playing chess", but not "losing at chess": only filler words may differ
            extra = (tx ^ ty) - _TASTE_FILLER
            return bool(tx & ty) and not extra
        return bool(tx and ty) and (tx <= ty or ty <= tx)


def _close(slot: str, a: str, b: str) -> bool:
    """Open numeric slots: durations within a third (or half a year), quantities within 12%
    (ordinary rounding across units), other numbers exactly."""
    try:
        x, y = float(a), float(b)
    except ValueError:
        return a == b
    if slot.startswith("dur:"):
        return abs(x - y) <= max(0.5, 0.34 * max(x, y))
    if slot.startswith("qty:"):
        return abs(x - y) <= 0.12 * max(abs(x), abs(y))
    return x == y


_TASTE_FILLER = {"playing", "doing", "going", "a", "the", "some", "good", "game", "games", "of",
                 "music", "much", "really", "all", "any", "anymore", "very"}  # fmt: skip


def _range(v: str) -> tuple[float, float] | None:
    m = re.match(r"^\s*(\d+(?:\.\d+)?)\s*(?:-\s*(\d+(?:\.\d+)?)|(\+))?\s*$", v)
    if m:
        lo = float(m.group(1))
        hi = float(m.group(2)) if m.group(2) else (float("inf") if m.group(3) else lo)
        return lo, hi
    n = parse_numbers(v)
    return (n[0].lo, n[0].hi) if n else None


def _cue_fits(a: str, b: str) -> bool:
    from arena.metrics.claim_patterns import CUE_FITS

    if a.startswith("@") and b.startswith("@"):
        return True
    cue, occ = (a, b) if a.startswith("@") else (b, a)
    words = set(fold(occ).replace("-", " ").split())
    return bool(words & CUE_FITS.get(cue[1:], set()))


def _strip(x: str) -> str:
    return re.sub(r"^(a|an|the|my)\s+", "", x)


def conflicts(m: Matcher, c: Claim, slot_multi: bool, values: list[tuple[str, int]]) -> bool:
    """Does claim ``c`` conflict with stored (value, polarity) pairs of its slot (§B1)?"""
    if slot_multi and c.value == "none":
        return any(pol > 0 and v != "none" for v, pol in values)
    if slot_multi and any(v == "none" and pol > 0 for v, pol in values) and c.polarity > 0:
        return True
    for v, pol in values:
        same = m.same(c.slot, c.value, v)
        if c.polarity != pol and same:
            return True
    if slot_multi or c.polarity < 0:
        return False
    pos = [v for v, pol in values if pol > 0]
    return bool(pos) and not any(m.same(c.slot, c.value, v) for v in pos)
