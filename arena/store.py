"""The results store: one SQLite file (WAL) per run directory.

Layout of a run directory::

    runs/<run_id>/config.yaml       the resolved config
    runs/<run_id>/arena.sqlite      runs, matches (planned and finished), seats
    runs/<run_id>/matches/<id>.jsonl  the event record of each match (the record of truth)

A match's result is written once, after its JSONL file is complete and fsynced; resume skips
matches that have a result and reruns the rest with the same seeds.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

from arena.results import MatchResult, MatchSpec, SeatResult

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    game TEXT NOT NULL,
    created REAL NOT NULL,
    status TEXT NOT NULL,
    config TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS matches (
    match_id TEXT PRIMARY KEY,
    run_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    repeat INTEGER NOT NULL,
    game TEXT NOT NULL,
    seed INTEGER NOT NULL,
    spec TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'planned',
    outcome TEXT,
    reason TEXT,
    winners TEXT,
    n_events INTEGER,
    n_decisions INTEGER,
    duration_s REAL,
    jsonl TEXT,
    finished_at REAL
);
CREATE TABLE IF NOT EXISTS seats (
    match_id TEXT NOT NULL,
    seat INTEGER NOT NULL,
    name TEXT NOT NULL,
    agent TEXT NOT NULL,
    team TEXT NOT NULL,
    role TEXT NOT NULL,
    reward REAL NOT NULL,
    result TEXT NOT NULL,
    invalid INTEGER NOT NULL,
    fallbacks INTEGER NOT NULL,
    PRIMARY KEY (match_id, seat)
);
CREATE INDEX IF NOT EXISTS matches_by_status ON matches(status);
"""
# Added later: created when a run is written (a new run, a resumed old one), never when one is
# only read, so reading a run directory written before them leaves its file as it was. Its
# seats then read with unknown health and its matches with unknown conditions.
LATER_SCHEMA = """
CREATE TABLE IF NOT EXISTS seat_health (
    match_id TEXT NOT NULL,
    seat INTEGER NOT NULL,
    decisions INTEGER NOT NULL,
    refused INTEGER NOT NULL,
    reasked INTEGER NOT NULL,
    timeouts INTEGER NOT NULL,
    forfeited INTEGER NOT NULL,
    PRIMARY KEY (match_id, seat)
);
CREATE TABLE IF NOT EXISTS conditions (
    match_id TEXT PRIMARY KEY,
    data TEXT NOT NULL
);
"""
_HEALTH = ("decisions", "refused", "reasked", "timeouts", "forfeited")

DONE = ("finished", "forfeited", "errored")


class Store:
    """Access to one run's ``arena.sqlite``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(str(path), isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(SCHEMA)
        self._later_ready = False

    def close(self) -> None:
        self.db.close()

    # -- runs --------------------------------------------------------------------------
    def _later_tables(self) -> None:
        if not self._later_ready:  # once per connection: a write path, never a read
            self.db.executescript(LATER_SCHEMA)
            self._later_ready = True

    def _has(self, table: str) -> bool:
        row = self.db.execute(
            "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", (table,)
        ).fetchone()
        return row is not None

    def create_run(self, run_id: str, name: str, game: str, config: dict[str, Any]) -> None:
        self._later_tables()
        self.db.execute(
            "INSERT OR IGNORE INTO runs VALUES (?, ?, ?, ?, 'running', ?)",
            (run_id, name, game, time.time(), json.dumps(config, sort_keys=True)),
        )

    def set_run_status(self, run_id: str, status: str) -> None:
        self.db.execute("UPDATE runs SET status=? WHERE run_id=?", (status, run_id))

    def run_info(self) -> dict[str, Any] | None:
        row = self.db.execute(
            "SELECT run_id, name, game, created, status, config FROM runs"
        ).fetchone()
        if row is None:
            return None
        keys = ("run_id", "name", "game", "created", "status", "config")
        info = dict(zip(keys, row, strict=True))
        info["config"] = json.loads(info["config"])
        return info

    # -- matches -----------------------------------------------------------------------
    def plan(self, specs: list[MatchSpec]) -> None:
        """Record planned matches (idempotent: a resumed run re-plans the same ids)."""
        with self.db:
            self.db.execute("BEGIN")
            self.db.executemany(
                "INSERT OR IGNORE INTO matches (match_id, run_id, idx, repeat, game, seed, spec)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (s.match_id, s.run_id, s.index, s.repeat, s.game, s.seed, s.model_dump_json())
                    for s in specs
                ],
            )

    def done_ids(self) -> set[str]:
        rows = self.db.execute(
            f"SELECT match_id FROM matches WHERE status IN ({','.join('?' * len(DONE))})", DONE
        )
        return {r[0] for r in rows}

    def write_result(self, result: MatchResult) -> None:
        """Write a finished match's result and seats in one transaction (exactly once)."""
        self.write_results([result])

    def write_results(self, results: Sequence[MatchResult]) -> None:
        """Several results in one transaction (a group commit): all of them or none."""
        self._later_tables()
        with self.db:
            self.db.execute("BEGIN")
            for result in results:
                self._write_one(result)

    def _write_one(self, result: MatchResult) -> None:
        cur = self.db.execute(
            "UPDATE matches SET status=?, outcome=?, reason=?, winners=?, n_events=?,"
            " n_decisions=?, duration_s=?, jsonl=?, finished_at=?"
            " WHERE match_id=? AND status NOT IN ('finished','forfeited','errored')",
            (
                result.status,
                result.outcome,
                result.reason,
                json.dumps(result.winners),
                result.n_events,
                result.n_decisions,
                result.duration_s,
                result.jsonl,
                time.time(),
                result.match_id,
            ),
        )
        if cur.rowcount != 1:
            raise RuntimeError(f"match {result.match_id} is not planned or already has a result")
        self.db.executemany(
            "INSERT INTO seats VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    result.match_id,
                    s.seat,
                    s.name,
                    s.agent,
                    s.team,
                    s.role,
                    s.reward,
                    s.result,
                    s.invalid,
                    s.fallbacks,
                )
                for s in result.seats
            ],
        )
        self._write_later(result)

    def results(
        self, repeat: int | None = None, ids: Collection[str] | None = None
    ) -> list[MatchResult]:
        """Every match with a result (or those of ``ids``), in plan order (the fold order)."""
        if ids is not None:
            # a live fold asks for the few new ones; chunks keep under SQLite's variable limit
            chosen = sorted(ids)
            out = [
                r
                for i in range(0, len(chosen), 500)
                for r in self._results(repeat, chosen[i : i + 500])
            ]
            return sorted(out, key=lambda r: (r.index, r.match_id))
        return self._results(repeat, None)

    def _results(self, repeat: int | None, ids: list[str] | None) -> list[MatchResult]:
        only = f" match_id IN ({','.join('?' * len(ids))})" if ids is not None else ""
        seats: dict[str, list[SeatResult]] = {}
        health = self._health(only, ids)
        conditions = self._conditions(only, ids)
        for row in self.db.execute(
            "SELECT match_id, seat, name, agent, team, role, reward, result, invalid, fallbacks"
            " FROM seats" + (f" WHERE{only}" if only else "") + " ORDER BY match_id, seat",
            ids or (),
        ):
            seats.setdefault(row[0], []).append(
                SeatResult(
                    seat=row[1],
                    name=row[2],
                    agent=row[3],
                    team=row[4],
                    role=row[5],
                    reward=row[6],
                    result=row[7],
                    invalid=row[8],
                    fallbacks=row[9],
                    **health.get((row[0], row[1]), {}),
                )
            )
        out = []
        params: list[Any] = [*DONE]
        if repeat is not None:
            params.append(repeat)
        for row in self.db.execute(
            "SELECT match_id, run_id, game, seed, idx, repeat, status, outcome, reason, winners,"
            " n_events, n_decisions, duration_s, jsonl FROM matches"
            f" WHERE status IN ({','.join('?' * len(DONE))})"
            + (" AND repeat=?" if repeat is not None else "")
            + (f" AND{only}" if only else "")
            + " ORDER BY idx, match_id",
            [*params, *(ids or ())],
        ):
            out.append(
                MatchResult(
                    match_id=row[0],
                    run_id=row[1],
                    game=row[2],
                    seed=row[3],
                    index=row[4],
                    repeat=row[5],
                    status=row[6],
                    outcome=row[7],
                    reason=row[8],
                    winners=json.loads(row[9] or "[]"),
                    seats=seats.get(row[0], []),
                    n_events=row[10] or 0,
                    n_decisions=row[11] or 0,
                    duration_s=row[12] or 0.0,
                    jsonl=row[13],
                    conditions=conditions.get(row[0]),
                )
            )
        return out

    def _write_later(self, result: MatchResult) -> None:
        """The seats' harness health and the match's conditions (inside write_result's
        transaction)."""
        self.db.executemany(
            "INSERT INTO seat_health VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    result.match_id,
                    s.seat,
                    s.decisions,
                    s.refused or 0,
                    s.reasked or 0,
                    s.timeouts or 0,
                    int(bool(s.forfeited)),
                )
                for s in result.seats
                if s.decisions is not None
            ],
        )
        if result.conditions is not None:
            self.db.execute(
                "INSERT INTO conditions VALUES (?, ?)",
                (result.match_id, json.dumps(result.conditions, sort_keys=True)),
            )

    def _health(self, only: str, ids: list[str] | None) -> dict[tuple[str, int], dict[str, Any]]:
        """Per (match, seat): the harness health counts (absent in older run directories)."""
        if not self._has("seat_health"):
            return {}
        rows = self.db.execute(
            "SELECT match_id, seat, "
            + ", ".join(_HEALTH)
            + " FROM seat_health"
            + (f" WHERE{only}" if only else ""),
            ids or (),
        )
        return {
            (r[0], r[1]): {**dict(zip(_HEALTH, r[2:], strict=True)), "forfeited": bool(r[6])}
            for r in rows
        }

    def _conditions(self, only: str, ids: list[str] | None) -> dict[str, dict[str, Any]]:
        if not self._has("conditions"):
            return {}
        rows = self.db.execute(
            "SELECT match_id, data FROM conditions" + (f" WHERE{only}" if only else ""),
            ids or (),
        )
        return {r[0]: json.loads(r[1]) for r in rows}

    def set_config(self, run_id: str, config: dict[str, Any]) -> None:
        """Replace the stored config (a forced resume with a changed config)."""
        self.db.execute(
            "UPDATE runs SET config=? WHERE run_id=?", (json.dumps(config, sort_keys=True), run_id)
        )

    def specs(self, pending: bool = False, repeat: int | None = None) -> list[MatchSpec]:
        """Planned specs in plan order; ``pending``: only those without a result."""
        where: list[str] = []
        args: list[Any] = []
        if pending:
            where.append(f"status NOT IN ({','.join('?' * len(DONE))})")
            args.extend(DONE)
        if repeat is not None:
            where.append("repeat=?")
            args.append(repeat)
        sql = "SELECT spec FROM matches" + (" WHERE " + " AND ".join(where) if where else "")
        rows = self.db.execute(sql + " ORDER BY idx", args)
        return [MatchSpec.model_validate_json(r[0]) for r in rows]

    def replan(self, specs: list[MatchSpec]) -> int:
        """Make the pending rows match a new plan; finished rows are kept. Returns rows dropped."""
        keep = {s.match_id for s in specs}
        with self.db:
            self.db.execute("BEGIN")
            pending = [
                r[0]
                for r in self.db.execute(
                    f"SELECT match_id FROM matches WHERE status NOT IN ({','.join('?' * len(DONE))})",
                    DONE,
                )
            ]
            dropped = [m for m in pending if m not in keep]
            self.db.executemany("DELETE FROM matches WHERE match_id=?", [(m,) for m in dropped])
            self.db.executemany(
                "UPDATE matches SET idx=?, repeat=?, game=?, seed=?, spec=? WHERE match_id=?"
                f" AND status NOT IN ({','.join('?' * len(DONE))})",
                [
                    (s.index, s.repeat, s.game, s.seed, s.model_dump_json(), s.match_id, *DONE)
                    for s in specs
                ],
            )
        return len(dropped)

    def match_row(self, match_id: str) -> dict[str, Any] | None:
        cur = self.db.execute("SELECT * FROM matches WHERE match_id=?", (match_id,))
        row = cur.fetchone()
        if row is None:
            return None
        return dict(zip([d[0] for d in cur.description], row, strict=True))

    def counts(self) -> dict[str, int]:
        rows = self.db.execute("SELECT status, COUNT(*) FROM matches GROUP BY status")
        return {r[0]: r[1] for r in rows}


def read_run(db: Path) -> tuple[dict[str, Any], dict[str, int]] | None:
    """(run info, match counts by status) of the run in ``db``; ``None`` when none is recorded."""
    if not db.exists():
        return None
    store = Store(db)
    try:
        info = store.run_info()
        counts = store.counts()
    finally:
        store.close()
    return None if info is None else (info, counts)
