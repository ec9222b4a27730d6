"""Sentence context for the leak cascade: questions, hypotheticals, quotes, other owners."""

from __future__ import annotations

import pytest

from arena.metrics.attribution import (
    is_hypothetical,
    is_question,
    other_owner_before,
    strip_quotes,
)


@pytest.mark.parametrize(
    ("text", "asks"),
    [("Bob, are you the seer?", True), ("Is your budget 52,000?", True),
     ("What's your lowest, 41k?", True), ("Nadia, were you adopted?", True),
     ("Dana and I are the wolves, happy now?", False), ("My budget is 52k, right?", False),
     ("Did you know Karl owes Viktor 18k?", False), ("I owe 18k.", False)],
)  # fmt: skip
def test_questions_and_tagged_statements(text: str, asks: bool) -> None:
    assert is_question(text) is asks


@pytest.mark.parametrize(
    ("text", "supposes"),
    [("If I were the seer, I'd check Dana.", True), ("Suppose I had diabetes.", True),
     ("If my budget were bigger, I'd buy it.", True), ("If I earned more, I'd move.", True),
     ("I'm not supposed to disclose it, but my ceiling is 52k.", False),
     ("If we don't agree, I walk away with 45.", False), ("If I go down, I shoot Hiro.", False)],
)  # fmt: skip
def test_hypotheticals(text: str, supposes: bool) -> None:
    assert is_hypothetical(text) is supposes


def test_quotes_are_blanked_in_place() -> None:
    text = 'Eli told us "I am the seer" today.'
    out = strip_quotes(text)
    assert len(out) == len(text) and "seer" not in out and out.endswith("today.")


def test_other_owner_before_evidence() -> None:
    toks = ["my", "cousin", "was", "adopted"]
    assert other_owner_before(toks, 2)
    assert not other_owner_before(["i", "was", "adopted"], 2)
    assert not other_owner_before(["my", "brother", "says", "i", "was", "adopted"], 5)
