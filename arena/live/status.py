"""Run status and leaderboard documents (the retained ``status`` and ``leaderboard`` messages).

Both are computed from the run's SQLite store, so the publisher and a TUI reading a run
directory show the same numbers. :class:`RunStatus` keeps the leaderboard's ratings between
polls and folds only the matches finished since the last one (:mod:`arena.ratings.fold`);
re-rating every result at every poll made a long run quadratic. It tells the fold which results
can no longer arrive (those planned before the first match not done yet), so the fold forgets
them: a run's memory does not grow with its number of matches.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from arena.ratings.fold import Key, RatingFold, history_cuts

# A poll reads the results finished since the newest one it folded, less this margin (those it
# already has are skipped by id): a wall clock stepped back must not hide a result.
SINCE_MARGIN_S = 5.0
# Results read from the store at a time (a resumed run's or a finished run's first poll reads
# every one: folded chunk by chunk, they are never all in memory together).
READ_CHUNK = 500


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
        self, running: int | None = None, *, board: bool = False, **extra: Any
    ) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
        """(status, leaderboard); the leaderboard only when matches finished since the last one,
        or always with ``board`` (a run's final status: a poll whose answer was lost, such as
        one cancelled at close, must not leave the last leaderboard unpublished).

        The leaderboard comes from a read after the status's, so it counts at least the
        status's ``done`` matches: publish it first.
        """
        with self._lock:
            status = status_doc(self.db, running, **extra)
            if status is None:
                return None, None
            if status["done"] == self._rated and not board:
                return status, None
            self._fold_new()
            self._rated = len(self.fold)
            return status, leaderboard_doc(self.fold)

    def _fold_new(self) -> None:
        """Fold the results finished since the last poll, then settle those before the first
        match not done (read first: a match that finishes meanwhile is at or after it)."""
        from arena.store import Store

        settled = first_unfinished(self.db)
        since = None if self._newest is None else self._newest - SINCE_MARGIN_S
        keys, newest = finished_since(self.db, since)
        if newest is not None:
            self._newest = newest if self._newest is None else max(self._newest, newest)
        new = sorted(k for k in keys if self.fold.wants(k))
        if new:
            store = Store(self.db)
            try:
                for at in range(0, len(new), READ_CHUNK):
                    chunk = store.results(ids=[k[1] for k in new[at : at + READ_CHUNK]])
                    # conditions are no part of a rating (a third of a result's memory)
                    self.fold.add(r.model_copy(update={"conditions": None}) for r in chunk)
                    if at + READ_CHUNK < len(new):  # every result before the next chunk is in
                        self.fold.settle(min(settled, new[at + READ_CHUNK]))
            finally:
                store.close()
        self.fold.settle(settled)


def _read_only(db: Path) -> contextlib.closing[sqlite3.Connection]:
    """The store opened read-only (a status poll never writes), closed at the block's end."""
    return contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True))


def first_unfinished(db: Path) -> Key:
    """The fold key of the first match not done yet (past the last one when all are done):
    every result before it has finished, so none arrives after this read."""
    from arena.store import DONE

    with _read_only(db) as con:
        done = ",".join("?" * len(DONE))
        row = con.execute(
            f"SELECT idx, match_id FROM matches WHERE status NOT IN ({done})"
            " ORDER BY idx, match_id LIMIT 1",
            DONE,
        ).fetchone()
        if row is None:
            (last,) = con.execute("SELECT MAX(idx) FROM matches").fetchone()
            return (0 if last is None else last + 1, "")
    return (row[0], row[1])


def finished_since(db: Path, since: float | None) -> tuple[list[Key], float | None]:
    """The fold keys (plan index, id) of the matches with a result finished at ``since`` or later (every one when
    None, and those without a time, from older runs), and the newest finish time among them.

    A poll used to read every finished id and subtract those folded: work that grew with the
    run, twice a second."""
    from arena.store import DONE

    with _read_only(db) as con:
        done = ",".join("?" * len(DONE))
        rows = con.execute(
            f"SELECT idx, match_id, finished_at FROM matches WHERE status IN ({done})"
            " AND (? IS NULL OR finished_at IS NULL OR finished_at >= ?)",
            (*DONE, since, since),
        ).fetchall()
    times = [t for _, _, t in rows if t is not None]
    return [(r[0], r[1]) for r in rows], max(times) if times else None
