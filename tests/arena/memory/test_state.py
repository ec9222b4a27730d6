"""The bank's state transitions: every op kind the log can hold has one, through the table."""

from __future__ import annotations

from typing import get_args

from arena.memory.model import OpKind
from arena.memory.state import _APPLY


def test_every_op_kind_has_a_state_transition() -> None:
    assert set(_APPLY) == set(get_args(OpKind))
