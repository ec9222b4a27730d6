"""`arena plot`'s rating history names its rating family and the leaderboard's fit."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from arena.store import Store
from tests.arena.live.helpers import toy_tournament
from tournaments.report.plots import history_figure, plot_run


def test_the_rating_history_says_it_is_trueskill_not_the_leaderboards_fit(
    tmp_path: Path,
) -> None:
    t = toy_tournament(tmp_path, matches=4, concurrency=2)
    asyncio.run(t.run())
    store = Store(t.dir.root / "arena.sqlite")
    try:
        results = store.results()
    finally:
        store.close()
    assert len(results) == 4
    fig = history_figure(results)
    ax = fig.axes[0]
    assert "TrueSkill" in ax.get_title() and "Bradley–Terry" in ax.get_title()
    assert ax.get_ylabel().startswith("TrueSkill μ")
    paths = plot_run(results, tmp_path / "plots")
    assert all(p.stat().st_size > 0 for p in paths)


def _generation(repeat: int, g: int) -> dict[str, object]:
    cand = {"id": "c-a", "mu": 0.5, "sigma": 0.1, "win_rate": 0.5, "win_ci": [0.3, 0.7]}
    return {"repeat": repeat, "generation": g, "candidates": [cand], "incumbent": "c-a",
            "budget": {"phases": {}, "total": {}}}  # fmt: skip


def test_a_one_generation_self_play_chart_spans_a_whole_generation() -> None:
    from arena.selfplay.report import series
    from tournaments.report.plots import generation_limits

    one = series([_generation(0, 0)])
    assert generation_limits(one) == (-0.5, 0.5)  # autoscaled, it was -0.045..0.045
    three = series([_generation(r, g) for r in range(3) for g in range(2)])
    lo, hi = generation_limits(three)
    assert lo == -0.5 and hi == pytest.approx(1.66)  # every repeat's shifted point inside
