"""The run directory's watcher tells the app when a pass changed what the screens draw, and only
then."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from arena.events import Event, GameEvent
from tui.model import RunModel
from tui.sources import Pass, RunDirSource


def _line(seq: int) -> str:
    event = Event.stamp(
        GameEvent(type="speech", text=f"line {seq}"), run_id="r", match_id="m", seq=seq
    )
    return event.model_dump_json() + "\n"


async def _until(predicate: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout} s")
        await asyncio.sleep(0.01)  # lets the source's task run a pass


async def test_the_watcher_tells_when_a_pass_changed_the_model_and_only_then(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "matches").mkdir()
    record = tmp_path / "matches" / "m.jsonl"
    record.write_text(_line(0))
    source, model = RunDirSource(tmp_path, interval=0.01), RunModel()
    passes: list[Pass] = []
    read = source.read

    def counted() -> Pass:
        got = read()
        passes.append(got)
        return got

    monkeypatch.setattr(source, "read", counted)
    told: list[int] = []
    task = asyncio.create_task(source.run(model, lambda: told.append(model.events_seen)))
    try:
        await _until(lambda: model.events_seen == 1 and bool(told))
        settled = len(told)
        seen = len(passes)
        await _until(lambda: len(passes) >= seen + 5)  # passes that found nothing new
        assert len(told) == settled
        with open(record, "a") as fh:
            fh.write(_line(1)[:25])  # half a line: nothing to show yet
        seen = len(passes)
        await _until(lambda: len(passes) >= seen + 3)
        assert len(told) == settled and model.events_seen == 1
        with open(record, "a") as fh:
            fh.write(_line(1)[25:])
        await _until(lambda: len(told) > settled)
        assert told[-1] == 2 and [e.text for e in model.matches["m"].events] == ["line 0", "line 1"]
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


def test_a_pass_is_read_apart_from_the_model_and_folded_into_it(tmp_path: Path) -> None:
    """Reading (files, SQLite: a worker thread's work) leaves the model alone; folding it in is
    the app's loop's work."""
    (tmp_path / "matches").mkdir()
    (tmp_path / "matches" / "m.jsonl").write_text(_line(0) + "not json\n")
    source, model = RunDirSource(tmp_path), RunModel()
    got = source.read()
    assert model.matches == {} and model.malformed == 0
    assert [(r.match_id, len(r.events), r.malformed) for r in got.records] == [("m", 1, 1)]
    assert source.fold(model, got) == 1
    assert model.events_seen == 1 and model.malformed == 1
    assert source.fold(model, source.read()) == 0  # nothing new: nothing folded twice
