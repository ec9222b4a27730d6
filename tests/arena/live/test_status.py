"""RunStatus: the status and leaderboard of a run's store, folded as matches finish."""

from __future__ import annotations

import random
from pathlib import Path

from arena.live.status import RunStatus
from arena.results import MatchSpec
from arena.store import Store
from tests.arena.ratings.test_fold import completion_order, from_scratch, werewolf_like, without_ts


def test_polls_fold_each_finished_match_once_and_match_a_from_scratch_rating(
    tmp_path: Path,
) -> None:
    rng = random.Random(3)
    results = [werewolf_like(i, rng) for i in range(60)]
    db = tmp_path / "arena.sqlite"
    store = Store(db)
    store.create_run("run", "run", "werewolf", {})
    store.plan(
        [
            MatchSpec(match_id=r.match_id, game="werewolf", seed=r.seed, seats=[], index=r.index)
            for r in results
        ]
    )
    status = RunStatus(db)
    doc, board = status.poll(running=0)
    assert doc is not None and doc["done"] == 0 and doc["total"] == 60 and doc["running"] == 0
    assert board is not None and board["n_results"] == 0 and board["rows"] == []
    assert status.poll()[1] is None  # nothing finished since: no re-rating
    written = 0
    for result in completion_order(results, window=8, rng=rng):
        store.write_result(result)
        written += 1
        if written % 7 and written != len(results):
            continue
        doc, board = status.poll()
        assert doc is not None and doc["done"] == written
        assert board is not None
        assert without_ts(board) == from_scratch(store.results())
        assert status.poll()[1] is None
    store.close()
    assert len(status.fold) == 60


def test_no_store_yet_is_no_status(tmp_path: Path) -> None:
    assert RunStatus(tmp_path / "arena.sqlite").poll() == (None, None)
