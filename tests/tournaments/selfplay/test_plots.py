"""The self-play charts' generation axis."""

from __future__ import annotations

import pytest

from tournaments.selfplay.plots import generation_limits
from tournaments.selfplay.report import series


def _generation(repeat: int, g: int) -> dict[str, object]:
    cand = {"id": "c-a", "mu": 0.5, "sigma": 0.1, "win_rate": 0.5, "win_ci": [0.3, 0.7]}
    return {"repeat": repeat, "generation": g, "candidates": [cand], "incumbent": "c-a",
            "budget": {"phases": {}, "total": {}}}  # fmt: skip


def test_a_one_generation_self_play_chart_spans_a_whole_generation() -> None:
    one = series([_generation(0, 0)])
    assert generation_limits(one) == (-0.5, 0.5)  # autoscaled, it was -0.045..0.045
    three = series([_generation(r, g) for r in range(3) for g in range(2)])
    lo, hi = generation_limits(three)
    assert lo == -0.5 and hi == pytest.approx(1.66)  # every repeat's shifted point inside
