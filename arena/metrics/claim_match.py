"""Persona claims and their comparison (metrics.md §B1): when two values of a slot are the same
(card aliases, occupation synonyms, place variants, number ranges) and when a claim conflicts with
stored values of its slot."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from arena.metrics.text import norm, parse_numbers

MULTI = {"pets", "hobbies", "likes", "dislikes", "languages"}
NUMERIC = {"age", "children", "siblings", "income"}
FAMILY = {"hobbies": "likes", "likes": "hobbies"}  # stated interchangeably ("I enjoy/love X")
TASTE = ("hobbies", "likes")  # a dislike is a negative "likes" claim against both

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
    # exonyms and old names: one place, several spellings
    *[
        set(g.split("/"))
        for g in (
            "basel/basle/bale/basilea",
            "brno/brunn",
            "olomouc/olmutz",
            "tallinn/reval",
            "izmir/smyrna",
            "crete/kriti/candia",
            "beirut/beyrouth/bayrut",
            "mysuru/mysore",
            "mumbai/bombay",
            "chennai/madras",
            "kolkata/calcutta",
            "bengaluru/bangalore",
            "beijing/peking",
            "guangzhou/canton",
            "istanbul/constantinople/stamboul",
            "gdansk/danzig",
            "wroclaw/breslau",
            "bratislava/pressburg/pozsony",
            "lviv/lemberg/lwow/lvov",
            "kaliningrad/konigsberg",
            "livorno/leghorn",
            "florence/firenze",
            "venice/venezia",
            "naples/napoli",
            "milan/milano",
            "rome/roma",
            "genoa/genova",
            "geneva/geneve/genf",
            "vienna/wien",
            "warsaw/warszawa",
            "moscow/moskva",
            "athens/athina/athinai",
            "copenhagen/kobenhavn",
            "gothenburg/goteborg",
            "antwerp/antwerpen/anvers",
            "the hague/den haag/s gravenhage",
            "brussels/bruxelles/brussel",
            "zurich/zuerich",
            "nuremberg/nurnberg",
            "hanover/hannover",
            "brunswick/braunschweig",
            "aachen/aix la chapelle",
            "zaragoza/saragossa",
            "a coruna/corunna/la coruna",
            "kyiv/kiev",
            "tbilisi/tiflis",
            "corfu/kerkyra",
            "rhodes/rodos",
            "thessaloniki/salonica/salonika",
            "heraklion/iraklio",
            "chania/hania/canea",
            "porto/oporto",
            "seville/sevilla",
            "cadiz/cadix",
            "lyon/lyons",
            "marseille/marseilles",
            "dunkirk/dunkerque",
            "ghent/gent/gand",
            "bruges/brugge",
            "leuven/louvain",
            "liege/luik",
            "strasbourg/strassburg",
            "mainz/mayence",
            "koblenz/coblenz",
            "trier/treves",
            "cracow/krakow/krakau",
            "poznan/posen",
            "szczepin/stettin/szczecin",
            "ljubljana/laibach",
            "zagreb/agram",
            "pula/pola",
            "rijeka/fiume",
            "tartu/dorpat",
            "riga/riia",
            "vilnius/wilno/vilna",
            "helsinki/helsingfors",
            "turku/abo",
            "bergen/bjorgvin",
            "bolzano/bozen",
            "merano/meran",
            "trento/trient",
            "ho chi minh city/saigon",
            "yangon/rangoon",
            "myanmar/burma",
            "sri lanka/ceylon",
            "varanasi/benares",
            "pune/poona",
            "kochi/cochin",
            "thiruvananthapuram/trivandrum",
            "mangaluru/mangalore",
            "belagavi/belgaum",
            "vadodara/baroda",
            "kanpur/cawnpore",
            "shimla/simla",
        )
    ],
]
# marital values that can hold at once: "partnered" (a partner, boyfriend) is compatible with
# married and engaged; the other values exclude each other
_MARITAL_OK = {frozenset({"partnered", "married"}), frozenset({"partnered", "engaged"}),
               frozenset({"partnered", "divorced"}), frozenset({"partnered", "widowed"})}  # fmt: skip


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
            # "chess" = "playing chess", "skiing" = "cross-country skiing" (a kind of it), but
            # not "losing at chess": only filler words or a leading modifier may differ
            extra = (tx ^ ty) - _TASTE_FILLER
            short, long_ = sorted((x, y), key=len)
            kind_of = long_.endswith(" " + short) and not (set(long_.split()) & _TASTE_RELATIONS)
            return bool(tx & ty) and (not extra or kind_of)
        if slot in ("location", "origin") and _near_place(x, y):
            return True
        return bool(tx and ty) and (tx <= ty or ty <= tx)


_TASTE_RELATIONS = {"at", "in", "on", "to", "of", "for", "with", "about", "losing", "watching",
                    "against", "without", "not", "no"}  # fmt: skip


def _near_place(x: str, y: str) -> bool:
    """One place in two spellings ("Basle"/"Basel", "Koeln"/"Köln" folded): same first letter,
    five letters or more, and an edit similarity of 80% or more."""
    from rapidfuzz import fuzz

    return (len(x) >= 5 and len(y) >= 5 and x[0] == y[0]
            and fuzz.ratio(x, y) >= 80)  # fmt: skip


def _close(slot: str, a: str, b: str) -> bool:
    """Open numeric slots: durations within a third (or half a year), quantities within 6%
    (ordinary rounding across units: 5'6" is 1.68 m), other numbers exactly."""
    try:
        x, y = float(a), float(b)
    except ValueError:
        return a == b
    if slot.startswith("dur:"):
        return abs(x - y) <= max(0.5, 0.34 * max(x, y))
    if slot.startswith("qty:"):
        return abs(x - y) <= 0.06 * max(abs(x), abs(y))
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
