"""The SQLite file under an insight bank: its schema, how it is opened, how rows are stored.

A bank is opened in one of two ways:

* **to write** (:func:`connect_writer`): the schema is created if missing (table, append-only
  triggers), the journal is WAL — what appending needs;
* **to read** (:func:`connect_reader`): nothing is created or changed. The file is opened with
  SQLite's ``mode=ro``; a WAL file at rest (no ``-wal`` beside it, so nobody is writing) is
  opened ``immutable=1`` as well, because reading a WAL database otherwise creates ``-wal`` and
  ``-shm`` files beside it. A verifier must never change its evidence: the bytes of the file
  and the files around it are the same before and after any read.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.memory.model import Op, canonical
from arena.memory.state import BankError

SCHEMA = 1
TRIGGERS = ("ops_append_only_update", "ops_append_only_delete")
COLUMNS = "version, op, namespace, payload, prev_hash, hash, ts"

_DDL = """
CREATE TABLE IF NOT EXISTS ops (
    version INTEGER PRIMARY KEY,
    op TEXT NOT NULL,
    namespace TEXT NOT NULL,
    payload TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL,
    ts REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TRIGGER IF NOT EXISTS ops_append_only_update BEFORE UPDATE ON ops
BEGIN SELECT RAISE(ABORT, 'the insight log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS ops_append_only_delete BEFORE DELETE ON ops
BEGIN SELECT RAISE(ABORT, 'the insight log is append-only'); END;
"""
_SQLITE_MAGIC = b"SQLite format 3\x00"


def connect_writer(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, timeout=60.0, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA busy_timeout=60000")
    return conn


def create_schema(conn: sqlite3.Connection) -> None:
    conn.executescript(_DDL)
    conn.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('schema', ?)", (str(SCHEMA),))


def _is_wal_at_rest(path: Path) -> bool:
    """A WAL-mode file with no ``-wal`` beside it: no writer has it open."""
    with path.open("rb") as fh:
        header = fh.read(20)
    if not header.startswith(_SQLITE_MAGIC) or len(header) < 20:
        return False
    wal_mode = header[18] == 2 and header[19] == 2  # read and write format versions
    return wal_mode and not path.with_name(path.name + "-wal").exists()


def connect_reader(path: Path) -> sqlite3.Connection:
    """A read-only connection that writes nothing, not even beside the file (module doc)."""
    if not path.is_file():
        raise BankError(f"{path} does not exist")
    uri = path.resolve().as_uri() + "?mode=ro"
    if _is_wal_at_rest(path):
        uri += "&immutable=1"
    try:
        conn = sqlite3.connect(uri, uri=True, timeout=60.0, isolation_level=None)
        conn.execute("PRAGMA busy_timeout=60000")
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    except sqlite3.DatabaseError as err:
        raise BankError(f"{path} is not an insight bank ({err})") from None
    if "ops" not in names:
        conn.close()
        raise BankError(f"{path} is not an insight bank (no ops table)")
    return conn


def missing_triggers(conn: sqlite3.Connection) -> list[str]:
    """The append-only triggers the file lacks (someone removed them to rewrite rows)."""
    have = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
    return [t for t in TRIGGERS if t not in have]


def row_op(row: Sequence[Any]) -> Op:
    return Op(
        version=row[0],
        op=row[1],
        namespace=row[2],
        payload=json.loads(row[3]),
        prev_hash=row[4],
        hash=row[5],
        ts=row[6],
    )


def insert_ops(conn: sqlite3.Connection, ops: Sequence[Op]) -> None:
    """Append ``ops`` to the log inside the caller's transaction."""
    conn.executemany(
        f"INSERT INTO ops ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            (o.version, o.op, o.namespace, canonical(o.payload), o.prev_hash, o.hash, o.ts)
            for o in ops
        ],
    )
