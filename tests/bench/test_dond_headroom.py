"""The headroom bench's policies do what their names say, against the real rule bot."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import dond_headroom as hr  # noqa: E402

SEEDS = list(range(1000, 1020))


def test_never_accepting_scores_nothing_and_waiting_beats_accepting_at_once() -> None:
    never = asyncio.run(hr.play(hr.POLICIES["pass"], SEEDS[:5]))
    assert never == [0.0] * 10  # two seats per deal, no deal in any
    first = asyncio.run(hr.play(hr.POLICIES["accept_first"], SEEDS))
    late = asyncio.run(hr.play(hr.POLICIES["accept_from_turn_8"], SEEDS))
    assert len(first) == len(late) == 40
    assert sum(late) > sum(first)  # the rule bot concedes as the turns run out


def test_a_worth_threshold_never_accepts_less() -> None:
    picky = asyncio.run(hr.play({"min_worth": 9}, SEEDS))
    assert all(x == 0.0 or x >= 9 for x in picky)


def test_the_interval_holds_the_mean() -> None:
    xs = [0.0, 2.0, 4.0, 6.0, 8.0] * 4
    lo, hi = hr.bootstrap_ci(xs, 1)
    assert lo < 4.0 < hi
