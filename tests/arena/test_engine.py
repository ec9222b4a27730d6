"""The rules-engine base: checks every game gets without writing them."""

from __future__ import annotations

import pytest

from arena.types import Decision
from tests.arena.toygame import ToyEngine


class AnswersAnySeat(ToyEngine):
    """A game whose ``decision`` forgets to check that the seat owes one."""

    def decision(self, seat: int) -> Decision:
        return Decision(kind="speak", free_text=True)


def test_current_decision_refuses_a_seat_that_owes_none() -> None:
    e = AnswersAnySeat(seed=1)
    assert e.current_pending() == [0]
    assert e.current_decision(0).kind == "speak"
    with pytest.raises(KeyError):
        e.current_decision(1)
