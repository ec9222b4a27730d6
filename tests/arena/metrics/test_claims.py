"""Persona claim extraction per class of issue 16 (each class: a hit, and a near miss)."""

from __future__ import annotations

import pytest

from arena.metrics import persona as P
from arena.metrics.claims import Matcher, extract, fold, repair

CARD = P.Card([
    {"slot": "name", "value": "Carmen Ruiz"}, {"slot": "age", "value": 71},
    {"slot": "occupation", "value": "retired pharmacist"}, {"slot": "location", "value": "Seville"},
    {"slot": "origin", "value": "Cádiz"}, {"slot": "marital_status", "value": "widowed"},
    {"slot": "children", "value": 0}, {"slot": "hobbies", "value": "crossword puzzles"},
    {"slot": "likes", "value": "sherry"}, {"slot": "income", "value": 24000},
    {"slot": "languages", "value": "Spanish", "multi_valued": True},
    {"slot": "diet", "value": "vegetarian"},
])  # fmt: skip


def flagged(text: str, earlier: tuple[str, ...] = (), card: P.Card | None = CARD) -> bool:
    turns = [(t, False) for t in (*earlier, text)]
    occ = {"retired pharmacist"}
    last = P.consistency(turns, card, 0.0, occ)["per_turn"][-1]
    return bool(last["contra_card"] or last["contra_self"])


def slots(text: str) -> list[tuple[str, str, int]]:
    return [(c.slot, c.value, c.polarity) for c in extract(text, 1, {"retired pharmacist"})]


@pytest.mark.parametrize(
    ("text", "expect"),
    [
        ("I'm 41, so I remember dial-up.", ("age", "41", 1)),
        ("I just turned 65.", ("age", "65", 1)),
        ("I'm actually 52.", ("age", "52", 1)),
        ("Me? 45. Started late.", ("age", "45", 1)),
        ("I'm in my late sixties.", ("age", "66-69", 1)),
        ("I'm a surgeon at the university clinic.", ("occupation", "surgeon", 1)),
        ("I'm honestly a nurse, not a manager.", ("occupation", "nurse", 1)),
        ("My name's Anja, nice to meet you.", ("name", "Anja", 1)),
        ("Hi, Kofi here, founder of Tidewell.", ("name", "Kofi", 1)),
        ("Here in Hamburg we take bread seriously.", ("location", "Hamburg", 1)),
        ("I moved to Munich last year.", ("location", "Munich", 1)),
        ("I call Tallinn home.", ("location", "Tallinn", 1)),
        ("My hometown is Buenos Aires.", ("origin", "Buenos Aires", 1)),
        ("I can't stand rowing.", ("likes", "rowing", -1)),
        ("Golf bores me to tears.", ("likes", "Golf", -1)),
        ("I don't speak a word of Arabic.", ("languages", "Arabic", -1)),
        ("I earn about 6,000 a month.", ("income", "72000", 1)),
        ("My late husband hated crosswords.", ("marital_status", "widowed", 1)),
        ("My husband picks me up at six.", ("marital_status", "married", 1)),
        ("My daughter calls on Sundays.", ("children", "1+", 1)),
        ("As the youngest of three, I got hand-me-downs.", ("siblings", "2", 1)),
        ("My patients don't listen.", ("occupation", "@patients", 1)),
        ("I grilled a steak for dinner.", ("diet", "meat eater", 1)),
    ],
)  # fmt: skip
def test_claim_forms(text: str, expect: tuple[str, str, int]) -> None:
    assert expect in slots(text)


@pytest.mark.parametrize(
    "text",
    [
        "I'm 5 minutes away.", "I'm 100% sure.", "I'm in Paris for the weekend.",
        "I'm Uruguayan, from Montevideo.", "My patients call me Dr Raman? No.",
        "If I were a surgeon I'd earn more.", 'She told me "I am a surgeon".',
        "I'm a total chef when it comes to toast.", "I'm married to my job, really.",
        "My sister is 41 and a surgeon in Munich.", "Some days I'm a plumber and a judge.",
    ],
)  # fmt: skip
def test_hard_negatives_yield_no_slot_claim(text: str) -> None:
    assert [s for s in slots(text) if s[0] in ("age", "occupation", "location", "name",
                                               "marital_status")] == []  # fmt: skip


@pytest.mark.parametrize(
    ("text", "contradiction"),
    [
        ("I'm 71, crosswords keep me sharp.", False),
        ("I'm 65.", True),
        ("I'm in my sixties.", True),
        ("I'm in my early seventies.", False),
        ("I'm actually a nurse at the health centre.", True),
        ("I grew up in Cadiz.", False),  # diacritics
        ("I grew up in Málaga.", True),
        ("I live in Sevilla, in Triana.", False),  # alias
        ("I hate crossword puzzles.", True),  # dislike vs hobby
        ("I hate losing at crossword puzzles.", False),
        ("My late husband taught me.", False),
        ("My husband is picking me up.", True),
        ("My daughter calls every Sunday.", True),  # implicit: children 0
        ("I don't have any children.", False),
        ("I earn 2,000 a month.", False),  # 24,000 a year
        ("I earn 5,000 a month.", True),
        ("I'm 70, sorry, 71 since March.", False),  # self-correction
        ("I'm 71, er, no, 73 actually.", True),
        ("I had a steak last night.", True),
        ("I don't speak Spanish at all.", True),
        ("I also speak some Italian.", False),
    ],
)  # fmt: skip
def test_card_contradictions_per_class(text: str, contradiction: bool) -> None:
    assert flagged(text) == contradiction


@pytest.mark.parametrize(
    ("earlier", "text", "contradiction"),
    [
        (("I have two sisters back home.",), "I'm an only child.", True),
        (("I have two sisters back home.",), "My sisters both live in Cádiz.", False),
        (("I have a dog called Bosse.",), "I've never had a pet in my life.", True),
        (("I have a brother in Toronto.",), "I have no siblings at all.", True),
        (("I work for myself, my own cab.",), "I work for Uber now.", True),
        (("I'm a vegetarian, since school.",), "I love a good steak.", True),
        (("I don't have a car, I cycle.",), "I drive my car to work.", True),
        (("I have two kids.",), "I don't have any kids yet.", True),
        (("I have two kids.",), "My two kids think I work too much.", False),
    ],
)  # fmt: skip
def test_self_contradictions_against_earlier_lines(earlier: tuple[str, ...], text: str,
                                                   contradiction: bool) -> None:  # fmt: skip
    assert flagged(text, earlier, card=None) == contradiction


def test_correction_of_an_earlier_line_replaces_it() -> None:
    assert not flagged("Sorry, I said 70 earlier, I'm 71.", ("I'm 70, more or less.",), None)
    assert flagged("I'm 73.", ("I'm 70, more or less.",), None)


def test_repair_and_fold() -> None:
    assert repair("I have two kids, no wait, three.") == "I have three kids."
    assert repair("I grew up in Stockholm, well, actually in Uppsala.") == "I grew up in Uppsala."
    assert repair("I have two kids, no pets.") == "I have two kids, no pets."
    assert fold("Tromsø") == fold("Tromso") and fold("Cádiz") == "cadiz"
    m = Matcher()
    assert m.same("name", "Elif Sahin", "Elif Şahin") and not m.same("name", "Lucía Fernández",
                                                                     "Lucía Gómez")  # fmt: skip
