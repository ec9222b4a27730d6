"""Persona consistency over the whole history, per class found by blind validation: each class
a contradiction that is caught and a near miss that is not. Every line is written for this file.
"""

from __future__ import annotations

from typing import Any

import pytest

from arena.metrics.claim_store import Card, consistency

CARD = Card([
    {"slot": "name", "value": "Jonas Berg"}, {"slot": "age", "value": 52},
    {"slot": "occupation", "value": "anaesthetist"}, {"slot": "location", "value": "Gothenburg"},
    {"slot": "origin", "value": "Bergen"}, {"slot": "marital_status", "value": "married"},
    {"slot": "children", "value": 3}, {"slot": "siblings", "value": 1},
    {"slot": "hobbies", "value": "trail running", "multi_valued": True},
    {"slot": "likes", "value": "jazz", "multi_valued": True},
])  # fmt: skip


def last_turn(text: str, earlier: tuple[str, ...] = ()) -> dict[str, Any]:
    turns = [(t, False) for t in (*earlier, text)]
    row: dict[str, Any] = consistency(turns, CARD, 0.0, {"anaesthetist"})["per_turn"][-1]
    return row


def flagged(text: str, earlier: tuple[str, ...] = ()) -> bool:
    row = last_turn(text, earlier)
    return bool(row["contra_card"] or row["contra_self"])


@pytest.mark.parametrize(
    ("earlier", "say", "contradicts"),
    [
        (
            ("The kettle is broken.", "My youngest is a plumber in Lund."),
            "My youngest is a pilot, she flies to Oslo.",
            True,
        ),
        (
            ("My youngest is a plumber in Lund.",),
            "My youngest is a plumber, and proud of it.",
            False,
        ),
        (("My granddaughter is six.", "Rain again."), "My granddaughter just turned eleven.", True),
        (("I've run the clinic for nine years.",), "I took over the clinic two years ago.", True),
        (("I've run the clinic for nine years.",), "I took over the clinic nine years ago.", False),
        (("I don't own a car.",), "I drove to Malmö in my own car.", True),
        (("My boss? Forty-one.",), "My boss is forty-one.", False),
    ],
)
def test_a_claim_is_checked_against_every_earlier_line(earlier: tuple[str, ...], say: str,
                                                       contradicts: bool) -> None:  # fmt: skip
    assert flagged(say, earlier) is contradicts


def test_a_contradiction_names_the_line_it_is_against() -> None:
    row = last_turn("My youngest is a pilot.", ("Hello.", "My youngest is a plumber.", "Bye."))
    assert [a["line"] for a in row["against"]] == [2]
    row = last_turn("I'm a dentist, thirty years now.")
    assert [a["line"] for a in row["against"]] == ["card"]


@pytest.mark.parametrize(
    ("earlier", "say", "contradicts"),
    [
        (("I'm 1.80 metres tall.",), "Being five foot five, I can't reach the shelf.", True),
        (("I'm 1.80 metres tall.",), "At five foot eleven I fit in any car.", False),
        (("Our terrier, Bosse, weighs 9 kilos.",), "Bosse is huge, a good forty kilos.", True),
        (("Our terrier, Bosse, weighs 9 kilos.",), "Bosse is about twenty pounds.", False),
        (
            ("The drive to the cabin takes three hours.",),
            "The drive is barely forty minutes.",
            True,
        ),
        (("I cycle 12 km to work.",), "The ferry takes two hours.", False),
    ],
)
def test_quantities_with_units(earlier: tuple[str, ...], say: str, contradicts: bool) -> None:
    assert flagged(say, earlier) is contradicts


@pytest.mark.parametrize(
    ("say", "contradicts"),
    [
        ("All five of my children came home for Christmas.", True),
        ("My kids, all three of them, hate skiing.", False),
        ("Two of my three kids live abroad.", False),
        ("My son, my only child, is at university.", True),
        ("Both of my children are grown.", True),
        ("I grew up with four older sisters.", True),
        ("My ex-wife kept the dog.", True),
        ("I'm a confirmed bachelor.", True),
        ("Jazz bores me, I can't stand it.", True),
        ("I never listen to opera.", False),
        ("I detest running, always have.", True),
        ("I've never laced up a pair of trail shoes in my life.", True),
        ("I've never been to Iceland.", False),
        ("I've never run a trail in my life.", True),
        ("I've lived in Gothenburg all my life.", True),
        ("I've lived in Gothenburg for twenty years.", False),
        ("I live in Göteborg, by the harbour.", False),
        ("I grew up in Björgvin, as my grandmother called it.", False),
        ("I live in Stockholm now.", True),
        ("I work as an anesthesiologist at the county hospital.", False),
        ("I'm fifty-two, and I'm twelve years old at heart.", False),
        ('My brother always says "I\'m a pilot at heart".', False),
        ("I'm pushing sixty and feel it.", True),
        ("I turned fifty-one last year.", False),
    ],
)
def test_card_classes(say: str, contradicts: bool) -> None:
    assert flagged(say) is contradicts


@pytest.mark.parametrize(
    ("earlier", "say", "contradicts"),
    [
        ((), "im 47 lol", True),
        ((), "ive got two brothers", True),
        ((), "I have 52 years and three children.", False),
        ((), "I have 30 years of experience in the theatre.", False),
        (
            ("I am working at the county hospital since twelve years.",),
            "I only joined the county hospital two years ago.",
            True,
        ),
    ],
)
def test_chat_and_non_native_registers(earlier: tuple[str, ...], say: str,
                                       contradicts: bool) -> None:  # fmt: skip
    assert flagged(say, earlier) is contradicts
