"""The Ray driver's writes: match records from streamed lines, and group commit of results.

A match counts as done when its result row is in the store, and a row is written only once
its JSONL record is durable (fsynced). One ``fsync`` per match bound the driver at about 130
matches/s, so results that arrive together are committed together (:class:`GroupCommit`):
their records are fsynced side by side by worker threads (the file system then commits them
together) while the driver's loop keeps receiving, then their rows go into the store in one
transaction. A group holds at most ``most`` results; results arriving while a group commits
form the next one. A kill -9 at any moment loses nothing that was reported finished: a row
is never ahead of its record, and a match whose row was not written yet is played again on
resume (its record started afresh).
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from arena.results import MatchResult
from arena.store import Store

GROUP_MOST = 256  # results per group commit (and so records fsynced before their rows)
SYNC_THREADS = 16  # a group's fsyncs in flight at once


class RecordFile:
    """A match's JSONL record as the driver writes it from streamed lines (the lines are the
    worker's ``Event.model_dump_json()``: byte for byte what :class:`JsonlSink` writes)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._fh: IO[str] = open(path, "w", encoding="utf-8")  # noqa: SIM115
        self.count = 0
        self.durable = False  # fsynced and closed

    def write(self, lines: list[str]) -> None:
        if lines:  # one write of the batch (the lines are single-line JSON)
            self._fh.write("\n".join(lines) + "\n")
        self._fh.flush()
        self.count += len(lines)

    def close(self, sync: bool = True) -> None:
        """Close the record; ``sync``: fsync it first. Unsynced, :meth:`sync` makes it durable
        later (a group commit), through a new descriptor: no file stays open meanwhile."""
        if self._fh.closed:
            if sync:
                self.sync()
            return
        self._fh.flush()
        if sync:
            os.fsync(self._fh.fileno())
        self._fh.close()
        self.durable = sync

    def sync(self) -> None:
        """fsync the closed record (any descriptor of a file syncs its data)."""
        if self.durable:
            return
        if not self._fh.closed:
            self.close(sync=True)
            return
        fd = os.open(self.path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        self.durable = True


@dataclass
class Finished:
    """A result waiting for its group commit, and its record (None: it has none to sync)."""

    result: MatchResult
    record: RecordFile | None


def sync_records(records: list[RecordFile]) -> None:
    """Make every record durable (fsync): a group's first step, in a thread. The fsyncs run
    side by side: one after the other, each waited for its own journal commit and disk flush
    (about 9 ms a file on the development machine); at once, the file system commits them
    together (0.2 to 1 ms a file)."""
    if len(records) < 2:
        for record in records:
            record.sync()
        return
    with ThreadPoolExecutor(min(SYNC_THREADS, len(records))) as pool:
        for _ in pool.map(RecordFile.sync, records):  # re-raises the first failure
            pass


class GroupCommit:
    """Results committed in groups: records fsynced, then the rows in one transaction.

    ``add`` queues a result (its record written and flushed, not yet synced) and returns at
    once; ``recorded(result)`` is called for each result once its row is in the store, in the
    order they were added. ``drain`` waits until everything queued is committed; ``commit_now``
    does it synchronously (an interrupted run keeps what it already received).
    """

    def __init__(
        self, store: Store, recorded: Callable[[MatchResult], None], most: int = GROUP_MOST
    ) -> None:
        if most < 1:
            raise ValueError("a group holds at least one result")
        self.store = store
        self.recorded = recorded
        self.most = most
        self.pending: list[Finished] = []
        self.ids: set[str] = set()  # match ids queued, not committed yet
        self.groups = 0  # group commits done (the benchmark reports results per group)
        self.sync_s = 0.0  # seconds syncing records (in a thread, beside the driver's loop)
        self.rows_s = 0.0  # seconds writing rows (on the driver's loop)
        self._task: asyncio.Task[None] | None = None
        # a cancelled task's sync goes on in its thread: commit_now waits for it here
        self._syncing = threading.Lock()

    def add(self, result: MatchResult, record: RecordFile | None) -> None:
        self.pending.append(Finished(result, record))
        self.ids.add(result.match_id)
        if self._task is None or self._task.done():
            # runs once the loop has handled the messages already received: they join the group
            self._task = asyncio.get_running_loop().create_task(self._commit_all())

    async def _commit_all(self) -> None:
        while self.pending:
            group = self.pending[: self.most]  # stays queued until its rows are written
            await asyncio.to_thread(self._sync, group)
            self._rows(group)

    def _sync(self, group: list[Finished]) -> None:
        with self._syncing:
            began = time.perf_counter()
            sync_records([f.record for f in group if f.record is not None])
            self.sync_s += time.perf_counter() - began

    def _rows(self, group: list[Finished]) -> None:
        """The group's rows in one transaction; should one fail (a row the store already has),
        the others are written one by one, so it cannot take its group-mates down with it."""
        del self.pending[: len(group)]  # the group is the queue's head: adds go to its tail
        results = [f.result for f in group]
        began = time.perf_counter()
        try:
            self.store.write_results(results)
        except RuntimeError:
            for result in results:
                try:
                    self.store.write_result(result)
                except RuntimeError:
                    self.ids.discard(result.match_id)
                    continue
                self._done(result)
            raise
        finally:
            self.rows_s += time.perf_counter() - began
        self.groups += 1
        for result in results:
            self._done(result)

    def _done(self, result: MatchResult) -> None:
        self.ids.discard(result.match_id)
        self.recorded(result)

    async def drain(self) -> None:
        """Wait until every queued result is committed (a failed commit raises here)."""
        while self._task is not None:
            task = self._task
            await task
            if task is self._task:
                self._task = None

    def commit_now(self) -> None:
        """Commit what is queued, synchronously (after the loop's task was cancelled)."""
        if self._task is not None:
            self._task.cancel()
            self._task = None
        while self.pending:
            group = self.pending[: self.most]
            self._sync(group)
            self._rows(group)
