"""The one number parser (arena.metrics.numbers), one test per class of surface form."""

from __future__ import annotations

import pytest

from arena.metrics.numbers import parse_numbers


def only(text: str) -> tuple[float, float]:
    (n,) = parse_numbers(text)
    return n.lo, n.hi


@pytest.mark.parametrize(
    ("text", "value"),
    [("eighteen", 18), ("sixty", 60), ("seventeen", 17), ("fourteen", 14), ("nineteen", 19),
     ("ninety-five thousand", 95000), ("ninety five thousand", 95000),
     ("fifty-two thousand", 52000), ("thirty four", 34), ("twelve hundred", 1200),
     ("one hundred eighteen", 118), ("a hundred and fifty", 150),
     ("two hundred and fifty thousand", 250000), ("two million three hundred thousand", 2.3e6)],
)  # fmt: skip
def test_number_words_read_whole_words_never_a_shorter_prefix(text: str, value: float) -> None:
    assert only(text) == (value, value)


@pytest.mark.parametrize(
    ("text", "value"),
    [("52 grand", 52000), ("1.2 mil", 1.2e6), ("one point two million", 1.2e6),
     ("thirty k", 30000), ("half a million", 5e5), ("a grand", 1000), ("a hundred grand", 1e5),
     ("one and a half million", 1.5e6), ("€1.2m", 1.2e6), ("52K", 52000), ("2bn", 2e9),
     ("3.5 million", 3.5e6), ("forty-eight thousand", 48000)],
)  # fmt: skip
def test_colloquial_magnitudes(text: str, value: float) -> None:
    assert only(text) == (value, value)


@pytest.mark.parametrize(
    ("text", "lo", "hi"),
    [("low fifties", 50, 53), ("the mid-40s", 43, 47), ("upper sixties", 66, 69),
     ("fifty-something", 50, 59), ("in the thirties", 30, 39)],
)  # fmt: skip
def test_decade_phrases_leave_the_magnitude_to_the_reader(text: str, lo: float, hi: float) -> None:
    (n,) = parse_numbers(text)
    assert (n.lo, n.hi, n.implied_scale) == (lo, hi, True)
    scaled = n.scaled_to(52000.0)
    assert (scaled.lo, scaled.hi) == (lo * 1000, hi * 1000)
    assert n.scaled_to(52.0).lo == lo


@pytest.mark.parametrize(
    ("text", "lo", "hi"),
    [("50 to 55k", 50000, 55000), ("forty to fifty thousand", 40000, 50000),
     ("between 100 and 130", 100, 130), ("from $40k to $45k", 40000, 45000),
     ("1-2 million", 1e6, 2e6), ("100–130", 100, 130)],
)  # fmt: skip
def test_intervals_share_a_magnitude_said_once(text: str, lo: float, hi: float) -> None:
    assert only(text) == (lo, hi)


def test_separate_numbers_stay_separate() -> None:
    assert [n.lo for n in parse_numbers("twenty twelve, five six")] == [20, 12, 5, 6]
    assert [n.lo for n in parse_numbers("I'm 41 and have 3 kids")] == [41, 3]
    assert [n.lo for n in parse_numbers("100 or 130")] == [100, 130]
    assert parse_numbers("the 5th of May, someone, a lot") == []


def test_percentages_are_marked() -> None:
    a, b = parse_numbers("12% now, ten percent later")
    assert (a.lo, a.percent, b.lo, b.percent) == (12, True, 10, True)


def test_spans_cover_the_surface_form() -> None:
    text = "Honestly, ninety-five thousand is my ceiling."
    (n,) = parse_numbers(text)
    assert text[n.start : n.end] == "ninety-five thousand"
