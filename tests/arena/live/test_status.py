"""RunStatus: the status and leaderboard of a run's store, folded as matches finish."""

from __future__ import annotations

import random
from pathlib import Path

from arena.live.status import RunStatus
from arena.results import MatchSpec
from arena.store import Store
from tests.builders import completion_order, from_scratch, werewolf_like, without_ts


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
    held = []
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
        held.append(status.fold.held())
    store.close()
    assert len(status.fold) == 60
    assert max(held) <= 8 + 7 and held[-1] == 0  # those in flight, never the whole run


def test_a_first_poll_folds_a_long_run_chunk_by_chunk(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import arena.live.status as live_status

    monkeypatch.setattr(live_status, "READ_CHUNK", 7)
    rng = random.Random(8)
    results = [werewolf_like(i, rng) for i in range(40)]
    db = tmp_path / "arena.sqlite"
    store = Store(db)
    store.create_run("run", "run", "werewolf", {})
    store.plan([MatchSpec(match_id=r.match_id, game="werewolf", seed=r.seed, seats=[],
                          index=r.index) for r in results])  # fmt: skip
    for result in results[:12] + results[13:]:  # the 13th still running
        store.write_result(result)
    status = RunStatus(db)
    board = status.poll()[1]
    assert board is not None and without_ts(board) == from_scratch(store.results())
    assert status.fold.held() == 27  # from the one still running on
    store.write_result(results[12])
    board = status.poll()[1]
    assert board is not None and without_ts(board) == from_scratch(results)
    assert status.fold.held() == 0
    store.close()


def test_no_store_yet_is_no_status(tmp_path: Path) -> None:
    assert RunStatus(tmp_path / "arena.sqlite").poll() == (None, None)


def test_a_poll_reads_only_the_results_finished_since_the_last_one(tmp_path: Path) -> None:
    import sqlite3

    from arena.live.status import SINCE_MARGIN_S, finished_since

    rng = random.Random(5)
    played = {"rules": {"preset": "classic8"}, "prompts": "p1"}  # as the runner records
    results = [werewolf_like(i, rng).model_copy(update={"conditions": played}) for i in range(6)]
    db = tmp_path / "arena.sqlite"
    store = Store(db)
    store.create_run("run", "run", "werewolf", {})
    store.plan([MatchSpec(match_id=r.match_id, game="werewolf", seed=r.seed, seats=[],
                          index=r.index) for r in results])  # fmt: skip
    status = RunStatus(db)
    con = sqlite3.connect(db)

    def finish(i: int, at: float) -> None:
        store.write_result(results[i])
        with con:
            con.execute(
                "UPDATE matches SET finished_at=? WHERE match_id=?", (at, results[i].match_id)
            )

    for i in range(3):
        finish(i, 1000.0 + i)
    assert sorted(finished_since(db, None)[0]) == [(r.index, r.match_id) for r in results[:3]]
    assert finished_since(db, 1001.5) == ([(2, results[2].match_id)], 1002.0)
    assert status.poll()[1]["n_results"] == 3  # type: ignore[index]
    finish(3, 1010.0)
    finish(4, 1010.0 - SINCE_MARGIN_S / 2)  # the clock stepped back a little: still folded
    assert status.poll()[1]["n_results"] == 5  # type: ignore[index]
    finish(5, 1020.0)
    doc, board = status.poll()
    assert doc is not None and doc["done"] == 6
    assert board is not None and without_ts(board) == from_scratch(store.results())
    # every match done: the fold holds no result any more, only each entry's state
    assert len(status.fold) == 6 and status.fold.held() == 0
    con.close()
    store.close()
