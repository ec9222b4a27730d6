"""``export_run`` over a run directory: the formats round-trip, filters hold, bad runs refused."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from arena.sinks import read_jsonl
from arena.store import Store
from tests.builders import werewolf_config
from tournaments.executor import Tournament
from tournaments.export import ExportError, ExportOptions, RowFilter, export_run
from tournaments.rundir import run_lock


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("export")
    asyncio.run(Tournament(werewolf_config(root), root / "run", "run").run())
    return root / "run"


def decisions(run_dir: Path) -> dict[tuple[str, int], Any]:
    """Every decision record of the run by (match id, seq)."""
    out = {}
    for path in sorted((run_dir / "matches").glob("*.jsonl")):
        for e in read_jsonl(path):
            if e.type == "decision":
                out[(e.match_id, e.seq)] = e
    return out


def read_rows(out: Path, fmt: str) -> list[dict[str, Any]]:
    if fmt == "jsonl":
        lines = (out / "trajectories.jsonl").read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines]
    if fmt == "parquet":
        import pyarrow.parquet as pq

        return list(pq.read_table(out / "trajectories.parquet").to_pylist())
    import datasets

    return list(datasets.load_from_disk(str(out)))


@pytest.mark.parametrize("fmt", ["jsonl", "parquet", "hf"])
def test_an_export_round_trips_to_the_match_records(
    run_dir: Path, tmp_path: Path, fmt: str
) -> None:
    out = tmp_path / fmt
    summary = export_run(run_dir, ExportOptions(fmt=fmt, out=out, batch=50))  # type: ignore[arg-type]
    rows = read_rows(out, fmt)
    records = decisions(run_dir)
    store = Store(run_dir / "arena.sqlite")
    n_decisions = sum(r.n_decisions for r in store.results())
    store.close()
    assert summary.rows == len(rows) == len(records) == n_decisions and summary.matches == 6
    assert {(r["match_id"], r["step"]) for r in rows} == set(records)
    for row in rows:
        event = records[(row["match_id"], row["step"])]
        assert event.actor == row["seat"] and json.loads(row["action"]) == event.payload["action"]
        assert row["observation"] and row["observation"].startswith(f"You are {row['name']} ")
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "# Trajectories of run `run`" in card and "| rule |" in card and "| rnd |" in card
    assert "master_seed: '(withheld" in card and "preset: classic8" in card


def test_the_formats_hold_the_same_rows(run_dir: Path, tmp_path: Path) -> None:
    every = {}
    for fmt in ("jsonl", "parquet", "hf"):
        export_run(run_dir, ExportOptions(fmt=fmt, out=tmp_path / fmt))
        every[fmt] = read_rows(tmp_path / fmt, fmt)
    assert every["jsonl"] == every["parquet"] == every["hf"]


def test_filters_select_the_seats_they_name(run_dir: Path, tmp_path: Path) -> None:
    store = Store(run_dir / "arena.sqlite")
    seats = {(r.match_id, s.seat): s for r in store.results() for s in r.seats}
    store.close()
    records = decisions(run_dir)
    cases: list[tuple[RowFilter, Any]] = [
        (RowFilter(agent="rule"), lambda s: s.agent == "rule"),
        (RowFilter(role="seer"), lambda s: s.role == "seer"),
        (RowFilter(outcome="loss"), lambda s: s.result == "loss"),
        (RowFilter(seat=3), lambda s: s.seat == 3),
        (RowFilter(agent="rnd", outcome="win"), lambda s: s.agent == "rnd" and s.result == "win"),
    ]
    for i, (keep, wanted) in enumerate(cases):
        out = tmp_path / str(i)
        export_run(run_dir, ExportOptions(fmt="jsonl", out=out, keep=keep))
        rows = read_rows(out, "jsonl")
        expected = {k for k, e in records.items() if wanted(seats[(k[0], e.actor)])}
        assert expected and {(r["match_id"], r["step"]) for r in rows} == expected


def test_a_large_hf_export_is_sharded_and_loads_whole(
    run_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tournaments.export.writers import HfDatasetWriter

    monkeypatch.setattr(HfDatasetWriter, "SHARD_BYTES", 1)  # a new shard every batch
    summary = export_run(run_dir, ExportOptions(fmt="hf", out=tmp_path / "hf", batch=100))
    shards = sorted(p.name for p in (tmp_path / "hf").glob("*.arrow"))
    assert len(shards) == -(-summary.rows // 100) > 1
    assert shards[0] == f"data-00000-of-{len(shards):05d}.arrow"
    export_run(run_dir, ExportOptions(fmt="jsonl", out=tmp_path / "jsonl"))
    assert read_rows(tmp_path / "hf", "hf") == read_rows(tmp_path / "jsonl", "jsonl")


@pytest.mark.parametrize("fmt", ["jsonl", "parquet", "hf"])
def test_a_filter_that_keeps_nothing_is_refused_and_writes_nothing(
    run_dir: Path, tmp_path: Path, fmt: str
) -> None:
    keep = RowFilter(agent="nobody")
    out = tmp_path / "out"
    with pytest.raises(ExportError, match="no seat matches --agent nobody"):
        export_run(run_dir, ExportOptions(fmt=fmt, out=out, keep=keep))  # type: ignore[arg-type]
    assert not out.exists()


def test_the_god_view_is_only_there_when_asked(run_dir: Path, tmp_path: Path) -> None:
    export_run(run_dir, ExportOptions(fmt="parquet", out=tmp_path / "god", god=True))
    rows = read_rows(tmp_path / "god", "parquet")
    assert all(r["ground_truth"] and r["spectator_view"] for r in rows)
    assert "master_seed: 11" in (tmp_path / "god" / "README.md").read_text(encoding="utf-8")
    export_run(run_dir, ExportOptions(fmt="parquet", out=tmp_path / "seat"))
    assert "ground_truth" not in read_rows(tmp_path / "seat", "parquet")[0]


def test_a_missing_or_foreign_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ExportError, match="no such directory"):
        export_run(tmp_path / "nope", ExportOptions())
    with pytest.raises(ExportError, match="not a run directory"):
        export_run(tmp_path, ExportOptions())


def test_a_run_being_written_is_refused(run_dir: Path, tmp_path: Path) -> None:
    with (
        run_lock(run_dir / "run.lock"),
        pytest.raises(ExportError, match="being run by another process"),
    ):
        export_run(run_dir, ExportOptions(out=tmp_path / "x"))
    assert not (tmp_path / "x").exists()


def test_an_unfinished_run_is_refused_unless_partial(tmp_path: Path) -> None:
    t = Tournament(werewolf_config(tmp_path, matches=3), tmp_path / "half", "half")
    store = t.prepare()
    asyncio.run(t.run_one(t.specs[0], store))
    store.close()
    with pytest.raises(ExportError, match=r"2 of 3 planned matches have no result.*--resume"):
        export_run(tmp_path / "half", ExportOptions(out=tmp_path / "o"))
    summary = export_run(tmp_path / "half", ExportOptions(out=tmp_path / "o", partial=True))
    assert summary.matches == 1 and summary.rows == len(read_rows(tmp_path / "o", "parquet")) > 0


def test_an_earlier_export_is_replaced_only_with_force(run_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "o"
    export_run(run_dir, ExportOptions(fmt="jsonl", out=out))
    with pytest.raises(ExportError, match="--force"):
        export_run(run_dir, ExportOptions(fmt="jsonl", out=out))
    export_run(run_dir, ExportOptions(fmt="parquet", out=out, force=True))
    assert sorted(p.name for p in out.iterdir()) == ["README.md", "trajectories.parquet"]
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me", encoding="utf-8")
    with pytest.raises(ExportError, match="choose another --out"):
        export_run(run_dir, ExportOptions(out=tmp_path / "mine", force=True))
    assert (tmp_path / "mine" / "notes.txt").exists()
