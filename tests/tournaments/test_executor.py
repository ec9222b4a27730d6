"""Running a tournament writes the run directory; resuming finishes exactly the missing matches."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import yaml

from app.cli import main
from arena.ratings.leaderboard import leaderboard
from arena.sinks import read_jsonl
from arena.store import Store
from tournaments import config as tconfig
from tournaments import schedule
from tournaments.executor import Tournament


def make_config(tmp_path: Path, **over: object) -> tconfig.RunConfig:
    raw = {
        "name": "t",
        "game": "toy",
        "rules": {"n_players": 4},
        "agents": [{"name": "rnd", "kind": "random"}, {"name": "low", "kind": "toy.lowest"}],
        "matches": 12,
        "concurrency": 4,
        "master_seed": 3,
        "output_dir": str(tmp_path),
    }
    raw.update(over)
    return tconfig.parse(raw)


def test_plan_is_deterministic_and_rotates_seats(tmp_path: Path) -> None:
    cfg = make_config(tmp_path)
    a, b = schedule.plan(cfg), schedule.plan(cfg)
    assert a == b and len({s.seed for s in a}) == 12
    assert a[0].seats == ["rnd", "low", "rnd", "low"] and a[1].seats == ["low", "rnd", "low", "rnd"]


def test_run_writes_config_db_and_one_jsonl_per_match(tmp_path: Path) -> None:
    cfg = make_config(tmp_path)
    t = Tournament(cfg, tmp_path / "run1", "run1")
    results = asyncio.run(t.run())
    assert len(results) == 12 and all(r.status == "finished" for r in results)
    assert yaml.safe_load((tmp_path / "run1" / "config.yaml").read_text())["game"] == "toy"
    files = sorted((tmp_path / "run1" / "matches").glob("*.jsonl"))
    assert len(files) == 12
    for r in results:
        events = list(read_jsonl(tmp_path / "run1" / r.jsonl))  # type: ignore[operator]
        assert events[-1].type == "match_end" and len(events) == r.n_events


def test_resume_runs_only_missing_matches_with_the_same_seeds(tmp_path: Path) -> None:
    cfg = make_config(tmp_path)
    full = asyncio.run(Tournament(cfg, tmp_path / "full", "full").run())
    # simulate a crash: a partial run where only some results were written
    part_dir = tmp_path / "part"
    t = Tournament(cfg, part_dir, "part")
    store = t.prepare()
    for spec in t.specs[:5]:
        asyncio.run(t.run_one(spec, store))
    store.close()
    resumed = asyncio.run(Tournament(cfg, part_dir, "part").run())
    assert [r.match_id for r in resumed] == [r.match_id for r in full]
    assert [(r.seed, r.outcome, [s.reward for s in r.seats]) for r in resumed] == [
        (r.seed, r.outcome, [s.reward for s in r.seats]) for r in full
    ]
    assert leaderboard(resumed) == leaderboard(full)
    db = sqlite3.connect(part_dir / "arena.sqlite")
    assert db.execute("SELECT COUNT(*) FROM matches").fetchone()[0] == 12
    assert db.execute("SELECT COUNT(*) FROM seats").fetchone()[0] == 12 * 4


def test_a_result_is_written_once(tmp_path: Path) -> None:
    cfg = make_config(tmp_path, matches=1)
    results = asyncio.run(Tournament(cfg, tmp_path / "r", "r").run())
    store = Store(tmp_path / "r" / "arena.sqlite")
    try:
        store.write_result(results[0])
    except RuntimeError as err:
        assert "already has a result" in str(err)
    else:
        raise AssertionError("a second result for the same match was accepted")
    finally:
        store.close()


def test_cli_run_prints_a_leaderboard_and_leaderboard_reprints_it(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    cfg = tmp_path / "c.yaml"
    cfg.write_text(yaml.safe_dump(make_config(tmp_path).model_dump(mode="json")))
    assert main(["run", str(cfg), "--run-id", "cli", "--quiet", "--no-broker"]) == 0
    out = capsys.readouterr().out
    assert "Leaderboard" in out and "rnd" in out and "low" in out
    assert main(["leaderboard", str(tmp_path / "cli"), "--json"]) == 0
    assert '"agent"' in capsys.readouterr().out
    # the same run id again is refused, pointing at --resume
    assert main(["run", str(cfg), "--run-id", "cli", "--quiet", "--no-broker"]) == 2
