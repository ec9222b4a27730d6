"""A driver's group commits in a process of its own, killed (SIGKILL) at a chosen point.

``python -m tests.tournaments.ray.commit_child RUN_DIR MATCHES POINT``: plans MATCHES matches
in RUN_DIR's store (a resumed run re-plans the same ids), writes each missing match's record
and queues its result for a group commit of at most 4, and prints ``done <match id>`` for every
match reported finished. POINT ``sync:G`` dies while group G's records are being synced (one
of them synced), ``rows:G`` just before group G's rows are written, ``after:G`` right after the
first match of group G was reported; ``none`` runs to the end.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from pathlib import Path

from arena.results import MatchResult, MatchSpec
from arena.store import Store
from tournaments.ray.commit import Finished, GroupCommit, RecordFile, sync_records

LINES = 3  # events per record before its "end" line


def die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


class Killed(GroupCommit):
    """Group commits that die at ``point`` (a kind and a group number)."""

    def __init__(self, store: Store, point: tuple[str, int]) -> None:
        super().__init__(store, self._report, most=4)
        self.point = point

    def _sync(self, group: list[Finished]) -> None:
        if self.point == ("sync", self.groups):
            sync_records([f.record for f in group[:1] if f.record is not None])
            die()
        super()._sync(group)

    def _rows(self, group: list[Finished]) -> None:
        if self.point == ("rows", self.groups):
            die()
        super()._rows(group)

    def _report(self, result: MatchResult) -> None:
        print("done", result.match_id, flush=True)
        if self.point == ("after", self.groups - 1):
            die()


async def play(run_dir: Path, matches: int, point: tuple[str, int]) -> None:
    store = Store(run_dir / "arena.sqlite")
    specs = [MatchSpec(match_id=f"m{i:03d}", game="toy", seed=i, seats=["a"], index=i)
             for i in range(matches)]  # fmt: skip
    store.plan(specs)
    done = store.done_ids()
    commits = Killed(store, point)
    for spec in specs:
        if spec.match_id in done:
            continue
        record = RecordFile(run_dir / "matches" / f"{spec.match_id}.jsonl")
        record.write([json.dumps({"seq": i}) for i in range(LINES)] + ['{"type":"end"}'])
        record.close(sync=False)
        result = MatchResult(match_id=spec.match_id, game="toy", seed=spec.seed,
                             index=spec.index, status="finished", outcome="done",
                             jsonl=f"matches/{spec.match_id}.jsonl")  # fmt: skip
        commits.add(result, record)
        if spec.index % 3 == 2:  # results arrive in bursts, as from several chunks
            await asyncio.sleep(0)
    await commits.drain()
    store.close()


if __name__ == "__main__":
    kind, _, group = sys.argv[3].partition(":")
    asyncio.run(play(Path(sys.argv[1]), int(sys.argv[2]), (kind, int(group or -1))))
