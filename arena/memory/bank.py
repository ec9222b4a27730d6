"""The insight bank: an append-only SQLite log of operations with a hash chain.

* **Append-only.** One row per operation (add, edit, retire, merge, restore, support, effect,
  reject); triggers refuse UPDATE and DELETE, and nothing is ever hard-deleted — retiring
  takes a reason and ``restore`` brings an insight back.
* **Tamper-evident.** Each row stores ``hash = sha256(prev_hash ‖ canonical(row))``;
  :meth:`Bank.verify` recomputes the chain and replays the log. (Truncating the newest rows
  is only detectable against a head hash kept elsewhere — match events record it.)
* **State is derived.** The bank at any version is the replay of the log up to it
  (:meth:`Bank.at`), byte for byte the same whenever it is materialised.
* **Concurrency.** WAL journal; a writer appends a whole update in one ``BEGIN IMMEDIATE``
  transaction; a reader materialises one committed version, so it never sees half an update.
* **Evidence.** ``Bank(path, readonly=True)`` (:func:`open_reader`) reads without writing a
  byte (:mod:`arena.memory.db`); :func:`open_bank`, what every user of a bank goes through,
  refuses a bank whose chain is broken (:class:`BrokenBank`) before anything reads its state.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, TypeVar

from arena.memory.db import (
    COLUMNS,
    SCHEMA,
    connect_reader,
    connect_writer,
    create_schema,
    insert_ops,
    missing_triggers,
    row_op,
)
from arena.memory.model import (
    GENESIS,
    Namespace,
    Op,
    OpKind,
    canonical,
    chain_hash,
)
from arena.memory.state import BankError, BankSnapshot, apply_op, replay
from arena.memory.txn import Draft, Txn, check_text, complete

T = TypeVar("T")
EXPORT_FORMAT = "llm-arena-memory-bank"
__all__ = [
    "SCHEMA",
    "Bank",
    "BrokenBank",
    "Draft",
    "Txn",
    "Verification",
    "check_text",
    "complete",
    "open_bank",
    "open_reader",
]


@dataclass(frozen=True)
class Verification:
    ok: bool
    n_ops: int
    head_hash: str
    bad_version: int | None = None
    reason: str = ""
    warnings: tuple[str, ...] = ()  # what is wrong with the file though the chain holds

    def problem(self, path: str | Path) -> str:
        """One line naming the bank and its first bad row (empty when the chain holds)."""
        if self.ok:
            return ""
        where = f" at version {self.bad_version}" if self.bad_version else ""
        return f"bank {path} is broken{where}: {self.reason} (arena memory verify {path})"


class BrokenBank(BankError):
    """A bank whose hash chain does not verify: it is refused, never read as it stands."""


class Bank:
    """One bank file. Safe to share between threads; any number of processes may open it.

    ``readonly``: the file must exist and is never written — no schema, no journal change, no
    files beside it (:func:`arena.memory.db.connect_reader`); writing raises BankError."""

    def __init__(self, path: str | Path, readonly: bool = False) -> None:
        self.path = Path(path).expanduser()
        self.readonly = readonly
        self._local = threading.local()
        self._lock = threading.Lock()
        self._cache: BankSnapshot | None = None  # the newest snapshot materialised here
        if readonly:
            self._connect()  # fails now on a missing file or one that is not a bank
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as conn:
            create_schema(conn)

    # -- connections -------------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = connect_reader(self.path) if self.readonly else connect_writer(self.path)
            self._local.conn = conn
        return conn

    def _writable(self) -> sqlite3.Connection:
        if self.readonly:
            raise BankError(f"{self.path} is open read-only")
        return self._connect()

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    # -- reading -----------------------------------------------------------------------
    _row = staticmethod(row_op)

    def _ops(self, conn: sqlite3.Connection, after: int, upto: int | None) -> list[Op]:
        sql = f"SELECT {COLUMNS} FROM ops WHERE version > ?"
        args: list[Any] = [after]
        if upto is not None:
            sql += " AND version <= ?"
            args.append(upto)
        return [self._row(r) for r in conn.execute(sql + " ORDER BY version", args)]

    def head(self) -> tuple[int, str]:
        """(version, hash) of the newest committed operation; (0, GENESIS) when empty."""
        row = (
            self._connect()
            .execute("SELECT version, hash FROM ops ORDER BY version DESC LIMIT 1")
            .fetchone()
        )
        return (row[0], row[1]) if row else (0, GENESIS)

    def ops(self, after: int = 0, upto: int | None = None) -> list[Op]:
        return self._ops(self._connect(), after, upto)

    def at(self, version: int | None = None) -> BankSnapshot:
        """The bank as of ``version`` (None: the newest committed version), replayed from the
        log. Reads happen in one read transaction, so the result is one committed state."""
        with self._lock:
            cached = self._cache
        if cached is not None and version == cached.version:
            return cached  # a committed version never changes: no need to ask the file
        conn = self._connect()
        conn.execute("BEGIN")
        try:
            head = conn.execute("SELECT MAX(version) FROM ops").fetchone()[0] or 0
            target = head if version is None else version
            if not 0 <= target <= head:
                raise BankError(f"version {version} does not exist (newest is {head})")
            with self._lock:
                cached = self._cache
            if cached is not None and cached.version == target:
                return cached
            if cached is not None and cached.version < target:
                snap = self._extend(cached, self._ops(conn, cached.version, target))
            else:
                snap = replay(self._ops(conn, 0, target))
        finally:
            conn.execute("COMMIT")
        with self._lock:
            if self._cache is None or snap.version >= self._cache.version:
                self._cache = snap
        return snap

    @staticmethod
    def _extend(base: BankSnapshot, ops: list[Op]) -> BankSnapshot:
        state = {i.id: i for i in base.all()}
        version, head, rejected = base.version, base.head_hash, base.rejected
        for op in ops:
            apply_op(state, op)
            version, head = op.version, op.hash
            rejected += op.op == "reject"
        return BankSnapshot(version, head, state, rejected)

    def latest(self, op: str, namespace: str, limit: int) -> list[Op]:
        """The newest ``limit`` operations of one kind in one namespace, oldest first."""
        rows = self._connect().execute(
            f"SELECT {COLUMNS} FROM ops"
            " WHERE op = ? AND namespace = ? ORDER BY version DESC LIMIT ?",
            (op, namespace, limit),
        )
        return [self._row(r) for r in reversed(rows.fetchall())]

    def of_kind(self, op: str) -> list[Op]:
        """Every operation of one kind, oldest first (e.g. the ``fold`` markers of learning)."""
        rows = self._connect().execute(
            f"SELECT {COLUMNS} FROM ops WHERE op = ? ORDER BY version",
            (op,),
        )
        return [self._row(r) for r in rows.fetchall()]

    def history(self, insight_id: str) -> list[Op]:
        """Every operation that names ``insight_id`` (as its subject, a merge source or target)."""
        out = []
        for op in self.ops():
            p = op.payload
            named = {p.get("id"), p.get("into"), p.get("new_id"), *(p.get("ids") or [])}
            if insight_id in named:
                out.append(op)
        return out

    # -- verification ------------------------------------------------------------------
    def verify(self, expect_head: str | None = None) -> Verification:
        """Recompute the hash chain and replay the log; the first inconsistency is reported."""
        prev, n = GENESIS, 0
        state: dict[str, Any] = {}
        conn = self._connect()
        missing = missing_triggers(conn)
        warnings = (
            (f"the append-only triggers are missing ({', '.join(missing)}): the file was "
             "changed outside arena",) if missing else ()
        )  # fmt: skip
        rows = conn.execute(f"SELECT {COLUMNS} FROM ops ORDER BY version")
        for row in rows:
            n += 1
            version = row[0]
            if version != n:
                return Verification(False, n, prev, version, f"version {n} is missing")
            try:
                op = self._row(row)
            except (ValueError, TypeError) as err:
                return Verification(False, n, prev, version, f"malformed row: {err}")
            if op.prev_hash != prev:
                return Verification(False, n, prev, version, "prev_hash does not match the chain")
            if chain_hash(prev, op.body()) != op.hash:
                return Verification(False, n, prev, version, "hash does not match the row")
            try:
                apply_op(state, op)
            except (BankError, KeyError, ValueError) as err:
                return Verification(False, n, prev, version, f"replay fails: {err}")
            prev = op.hash
        if expect_head is not None and expect_head != prev:
            return Verification(False, n, prev, None, "head hash differs from the expected one")
        return Verification(True, n, prev, warnings=warnings)

    def require_intact(self) -> Verification:
        """The verification of a bank about to be used; BrokenBank when its chain is broken."""
        result = self.verify()
        if not result.ok:
            raise BrokenBank(result.problem(self.path))
        return result

    # -- writing -----------------------------------------------------------------------
    def write(self, drafts: Iterable[Draft], expect_version: int | None = None) -> list[Op]:
        """Append ``drafts`` as one transaction; each is checked against the state it lands on
        (an inapplicable one aborts the whole update with BankError). ``expect_version`` makes
        the write conditional on the head (optimistic concurrency)."""
        drafts = list(drafts)

        def plan(txn: Txn) -> None:
            if expect_version is not None and txn.base_version != expect_version:
                raise BankError(
                    f"bank moved: head is {txn.base_version}, expected {expect_version}"
                )
            for d in drafts:
                txn.append(d)

        return self.update(plan)[1]

    def update(self, plan: Callable[[Txn], T]) -> tuple[T, list[Op]]:
        """Run ``plan`` inside one write transaction: it sees the current state and appends
        drafts one by one (each applied at once, so later drafts see earlier ones); everything
        it appended commits together, or nothing if it raises."""
        conn = self._writable()
        conn.execute("BEGIN IMMEDIATE")
        try:
            row = conn.execute(
                "SELECT version, hash FROM ops ORDER BY version DESC LIMIT 1"
            ).fetchone()
            version, prev = (row[0], row[1]) if row else (0, GENESIS)
            base = self._snapshot_in(conn, version)
            txn = Txn(base, prev)
            result = plan(txn)
            insert_ops(conn, txn.ops)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return result, txn.ops

    def _snapshot_in(self, conn: sqlite3.Connection, version: int) -> BankSnapshot:
        with self._lock:
            cached = self._cache
        if cached is not None and cached.version == version:
            return cached
        if cached is not None and cached.version < version:
            return self._extend(cached, self._ops(conn, cached.version, version))
        return replay(self._ops(conn, 0, version))

    # -- conveniences ------------------------------------------------------------------
    def add(self, namespace: str | Namespace, text: str, **payload: Any) -> str:
        ns = Namespace.parse(namespace).key()
        (op,) = self.write([Draft("add", ns, {"text": text, **payload})])
        return str(op.payload["id"])

    def change(self, op: OpKind, insight_id: str, **payload: Any) -> Op:
        """edit / retire / restore / support / effect of one insight."""
        ns = self.at().get(insight_id).namespace
        (written,) = self.write([Draft(op, ns, {"id": insight_id, **payload})])
        return written

    # -- export / import ---------------------------------------------------------------
    def export(self, out: IO[str]) -> int:
        version, head = self.head()
        header = {"format": EXPORT_FORMAT, "schema": SCHEMA, "version": version, "head_hash": head}
        out.write(canonical(header) + "\n")
        n = 0
        for op in self.ops():
            out.write(canonical(op.model_dump(mode="json")) + "\n")
            n += 1
        return n

    def import_log(self, lines: Iterable[str]) -> int:
        """Append an exported log. The bank must be empty or hold a prefix of it (a
        fast-forward); the imported chain is verified row by row. Returns rows appended."""
        it: Iterator[str] = (ln for ln in lines if ln.strip())
        header = json.loads(next(it, "{}"))
        if header.get("format") != EXPORT_FORMAT:
            raise BankError("not an exported insight bank (missing header line)")
        incoming = [Op.model_validate(json.loads(ln)) for ln in it]
        if header.get("version") != len(incoming):
            raise BankError("export header does not match its rows (truncated file?)")
        prev = GENESIS
        state: dict[str, Any] = {}
        for i, op in enumerate(incoming, 1):
            if op.version != i or op.prev_hash != prev or chain_hash(prev, op.body()) != op.hash:
                raise BankError(f"imported log breaks its hash chain at version {i}")
            apply_op(state, op)
            prev = op.hash
        if header.get("head_hash") != prev:
            raise BankError("imported log's head hash differs from its header")
        conn = self._writable()
        conn.execute("BEGIN IMMEDIATE")
        try:
            mine = self._ops(conn, 0, None)
            if [o.hash for o in mine] != [o.hash for o in incoming[: len(mine)]]:
                raise BankError("this bank's log is not a prefix of the imported one")
            insert_ops(conn, incoming[len(mine) :])
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return len(incoming) - len(mine)


_OPEN: dict[str, Bank] = {}
_OPEN_LOCK = threading.Lock()


def open_bank(path: str | Path) -> Bank:
    """One Bank object (and snapshot cache) per path and process, for a user of the bank
    (matches, learning, ablation, self-play): its chain is verified the first time this
    process opens it, and a broken bank raises BrokenBank (it is not kept: asked again,
    it is checked again)."""
    with _OPEN_LOCK:
        bank = _OPEN.get(str(path))
        if bank is None:
            key = str(Path(path).expanduser().resolve())
            bank = _OPEN.get(key)
            if bank is None:
                bank = Bank(key)
                try:
                    bank.require_intact()
                except BrokenBank:
                    bank.close()
                    raise
            _OPEN[key] = _OPEN[str(path)] = bank
        return bank


def open_reader(path: str | Path) -> Bank:
    """A read-only view of the bank file at ``path`` (BankError when it is missing)."""
    return Bank(path, readonly=True)
