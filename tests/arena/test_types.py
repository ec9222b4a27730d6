"""Strict parsing of answers against decisions."""

from __future__ import annotations

import pytest

from arena.types import Action, Decision, InvalidAction, Option


def choice(k: int = 1, free: bool = False) -> Decision:
    opts = [Option(id=str(i), label=n) for i, n in enumerate(["Alice", "Bruno", "Chloe", "Dmitri"])]
    return Decision(kind="pick", options=opts, min_choices=k, max_choices=k, free_text=free)


def speech() -> Decision:
    return Decision(
        kind="speak",
        options=[Option(id="pass")],
        free_text=True,
        silent_option="pass",
        max_chars=20,
    )


def test_option_id_label_and_index_are_accepted() -> None:
    d = choice()
    assert d.parse("2", 0).choices == ("2",)
    assert d.parse("chloe", 0).choices == ("2",)
    assert d.parse(1, 0).choices == ("1",)
    assert d.parse('{"choice": "Dmitri"}', 0).choices == ("3",)


def test_unknown_option_is_refused_with_the_legal_ids() -> None:
    with pytest.raises(InvalidAction, match="legal ids: 0, 1, 2, 3"):
        choice().parse("Zed", 0)


def test_choose_exactly_k_distinct() -> None:
    d = choice(k=2)
    assert d.parse("0, 3", 0).choices == ("0", "3")
    assert d.parse('{"choice": ["Alice", "Bruno"]}', 0).choices == ("0", "1")
    with pytest.raises(InvalidAction, match="choose 2"):
        d.parse("0", 0)
    with pytest.raises(InvalidAction, match="twice"):
        d.parse(Action(choices=("1", "1")), 0)


def test_free_text_only_where_allowed_and_bounded() -> None:
    assert speech().parse("hello there", 3).text == "hello there"
    assert speech().parse("pass", 3).choices == ("pass",)
    with pytest.raises(InvalidAction, match="too long"):
        speech().parse("x" * 21, 3)
    with pytest.raises(InvalidAction):
        choice().parse("I vote for nobody in particular", 0)


def test_garbage_types_and_empty_answers_are_refused() -> None:
    for raw in ("", "   ", True, 99, {"choice": "9"}, {"weird": 1}):
        with pytest.raises(InvalidAction):
            choice().parse(raw, 0)  # type: ignore[arg-type]


def test_beliefs_are_validated_probabilities() -> None:
    d = Decision(kind="belief", options=[Option(id="pass")], free_text=True, belief_only=True)
    a = d.parse('{"belief": {"1": 0.25, "2": "0.5"}}', 0)
    assert a.belief == {"1": 0.25, "2": 0.5}
    with pytest.raises(InvalidAction, match="probability"):
        d.parse('{"belief": {"1": 1.5}}', 0)
    with pytest.raises(InvalidAction, match="neither"):
        choice().parse('{"belief": {"1": 0.5}}', 0)


def test_action_seat_is_the_asking_seat() -> None:
    assert choice().parse(Action(seat=7, choices=("0",)), 2).seat == 2


def test_decision_rejects_inconsistent_definitions() -> None:
    with pytest.raises(ValueError):
        Decision(kind="x")
    with pytest.raises(ValueError):
        Decision(kind="x", options=[Option(id="a"), Option(id="a")])
