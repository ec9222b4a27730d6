"""The words a human seat reads for its private facts."""

from __future__ import annotations

from arena.types import PrivateFact
from tui.play_text import fact_lines

NAMES = ["Ann", "Bob"]


def _valuation(owner: int, values: dict[str, int]) -> list[PrivateFact]:
    """Deal or No Deal's facts: one per item and the whole table, as its engine states them."""
    each = [
        PrivateFact(owner=owner, kind="valuation", key=f"val:{k}", value=v, audience=(owner,))
        for k, v in values.items()
    ]
    table = PrivateFact(
        owner=owner, kind="valuation", key="valuation", value=dict(values), audience=(owner,)
    )
    return [*each, table]


def test_a_table_fact_reads_as_words_once_without_the_entries_it_repeats() -> None:
    facts = _valuation(0, {"book": 0, "hat": 0, "ball": 5})
    facts.append(PrivateFact(owner=0, kind="role", key="role", value="buyer", audience=(0,)))
    assert fact_lines(facts, 0, NAMES) == [
        "you: valuation: book 0, hat 0, ball 5",
        "you: role = buyer",
    ]
    assert fact_lines(facts, 1, NAMES)[0] == "Ann: valuation: book 0, hat 0, ball 5"


def test_an_entry_the_table_does_not_hold_is_kept_and_repeats_are_shown_once() -> None:
    extra = PrivateFact(owner=0, kind="valuation", key="val:hat", value=3, audience=(0,))
    facts = [*_valuation(0, {"book": 1}), extra, extra]
    assert fact_lines(facts, 0, NAMES) == [
        "you: valuation: book 1",
        "you: valuation val:hat = 3",
    ]
