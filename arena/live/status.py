"""Run status and leaderboard documents (the retained ``status`` and ``leaderboard`` messages).

Both are computed from the run's SQLite store, so the publisher and a TUI reading a run
directory show the same numbers.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from arena.results import MatchResult

HISTORY_POINTS = 24


def leaderboard_doc(results: list[MatchResult]) -> dict[str, Any]:
    """Rows (μ, σ, μ−3σ, games, wins...) and each agent's μ at up to 24 points of the run."""
    from arena.ratings import leaderboard, rate

    rows = [r.model_dump() for r in leaderboard(results)]
    history: dict[str, list[float]] = {}
    n = len(results)
    if n:
        cuts = sorted({max(1, round(n * (i + 1) / HISTORY_POINTS)) for i in range(HISTORY_POINTS)})
        for cut in cuts:
            for agent, rating in rate(results[:cut]).items():
                history.setdefault(agent, []).append(round(rating.mu, 3))
    return {"rows": rows, "history": history, "n_results": n, "ts": time.time()}


def status_doc(db: Path, running: int | None = None, **extra: Any) -> dict[str, Any] | None:
    """Progress of the run stored in ``db`` (``None`` when no run is recorded yet)."""
    from arena.store import DONE, read_run

    found = read_run(db)
    if found is None:
        return None
    info, counts = found
    total = sum(counts.values())
    done = sum(counts.get(s, 0) for s in DONE)
    doc = {
        "run_id": info["run_id"],
        "name": info["name"],
        "game": info["game"],
        "status": info["status"],
        "total": total,
        "done": done,
        "failed": done - counts.get("finished", 0),
        "counts": counts,
        "ts": time.time(),
    }
    if running is not None:
        doc["running"] = running
    doc.update(extra)
    return doc


def read_results(db: Path) -> list[MatchResult]:
    from arena.store import Store

    store = Store(db)
    try:
        return store.results()
    finally:
        store.close()
