"""Run status and leaderboard documents (the retained ``status`` and ``leaderboard`` messages).

Both are computed from the run's SQLite store, so the publisher and a TUI reading a run
directory show the same numbers. :class:`RunStatus` keeps the leaderboard's ratings between
polls and folds only the matches finished since the last one (:mod:`arena.ratings.fold`);
re-rating every result at every poll made a long run quadratic.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from arena.ratings.fold import RatingFold

HISTORY_POINTS = 24
# A poll reads the results finished since the newest one it folded, less this margin (those it
# already has are skipped by id): a wall clock stepped back must not hide a result.
SINCE_MARGIN_S = 5.0


def history_cuts(n: int) -> list[int]:
    """The numbers of results after which the history samples each agent's μ (up to 24)."""
    if not n:
        return []
    return sorted({max(1, round(n * (i + 1) / HISTORY_POINTS)) for i in range(HISTORY_POINTS)})


def leaderboard_doc(fold: RatingFold) -> dict[str, Any]:
    """Rows (μ, σ, μ−3σ, games, wins...) and each agent's μ at up to 24 points of the run."""
    history: dict[str, list[float]] = {}
    for cut in history_cuts(len(fold)):
        for agent, rating in fold.ratings_at(cut).items():
            history.setdefault(agent, []).append(round(rating.mu, 3))
    rows = [r.model_dump() for r in fold.rows()]
    return {"rows": rows, "history": history, "n_results": len(fold), "ts": time.time()}


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


class RunStatus:
    """The status and leaderboard of the run stored in ``db``, kept up to date incrementally.

    :meth:`poll` reads SQLite and folds new results: blocking work, so callers on an event loop
    run it in a thread (``asyncio.to_thread``). Polls are serialised by a lock.
    """

    def __init__(self, db: Path) -> None:
        self.db = Path(db)
        self.fold = RatingFold()
        self._rated = -1  # results in the last leaderboard handed out
        self._newest: float | None = None  # finish time of the newest result read
        self._lock = threading.Lock()

    def poll(
        self, running: int | None = None, **extra: Any
    ) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
        """(status, leaderboard); the leaderboard only when matches finished since the last one.

        The leaderboard comes from a read after the status's, so it counts at least the
        status's ``done`` matches: publish it first.
        """
        with self._lock:
            status = status_doc(self.db, running, **extra)
            if status is None:
                return None, None
            if status["done"] == self._rated:
                return status, None
            self.fold.add(self._new_results())
            self._rated = len(self.fold)
            return status, leaderboard_doc(self.fold)

    def _new_results(self) -> list[Any]:
        from arena.store import Store

        since = None if self._newest is None else self._newest - SINCE_MARGIN_S
        ids, newest = finished_since(self.db, since)
        if newest is not None:
            self._newest = newest if self._newest is None else max(self._newest, newest)
        new = set(ids) - self.fold.ids
        if not new:
            return []
        store = Store(self.db)
        try:
            results = store.results(ids=new)
        finally:
            store.close()
        # The fold keeps every result for the rest of the run (a late result refolds those
        # after it); a result's conditions, a third of its memory, are no part of a rating.
        return [r.model_copy(update={"conditions": None}) for r in results]


def finished_since(db: Path, since: float | None) -> tuple[list[str], float | None]:
    """The ids of the matches with a result finished at ``since`` or later (every one when
    None, and those without a time, from older runs), and the newest finish time among them.

    A poll used to read every finished id and subtract those folded: work that grew with the
    run, twice a second."""
    from arena.store import DONE

    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        done = ",".join("?" * len(DONE))
        rows = con.execute(
            f"SELECT match_id, finished_at FROM matches WHERE status IN ({done})"
            " AND (? IS NULL OR finished_at IS NULL OR finished_at >= ?)",
            (*DONE, since, since),
        ).fetchall()
    finally:
        con.close()
    times = [t for _, t in rows if t is not None]
    return [r[0] for r in rows], max(times) if times else None
