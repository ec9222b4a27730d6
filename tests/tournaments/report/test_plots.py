"""`arena plot`'s rating history names its rating family and the leaderboard's fit."""

from __future__ import annotations

import asyncio
from pathlib import Path

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
