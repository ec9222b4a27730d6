"""``arena selfplay`` end to end on the context-sensitive test backend: ordinary run
directories, per-unit results, lineage, export to an ``arena run`` entry, and resume after
kill -9 reaching the same champion, bank and ratings."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
import yaml

from arena.llm.fakes.context import ContextEngine
from arena.llm.server import ServerThread
from arena.store import Store
from tests.builders import selfplay_cli, selfplay_fingerprint
from tests.tournaments.selfplay.held_engine import HeldEngine
from tests.tournaments.selfplay.selfplay_setup import (
    kill_when_recorded,
    raw_config,
    seed_bank,
    write_config,
)
from tournaments.config import RunConfig
from tournaments.executor import Tournament
from tournaments.selfplay.config import parse
from tournaments.selfplay.driver import SelfPlay


def test_a_run_writes_ordinary_runs_units_lineage_and_an_exportable_champion(
    tmp_path: Path,
) -> None:
    with ServerThread(ContextEngine(seed=1)) as server:
        raw = raw_config(server.url, seed_bank(tmp_path / "seed.sqlite"))
        root = tmp_path / "sp"
        report = asyncio.run(SelfPlay(parse(raw), root).run())
        rdir = root / "r0"
        gens = sorted(rdir.glob("g*/generation.json"))
        assert len(gens) == 3
        first = json.loads(gens[0].read_text())
        assert len(first["candidates"]) == 4  # the seed and three children
        ops = {c["operator"] for g in gens for c in json.loads(g.read_text())["candidates"]}
        assert "seed" in ops and len(ops) >= 3
        # every game is an ordinary match in an ordinary store, with per-unit rows on disk
        store = Store(rdir / "g000" / "play" / "arena.sqlite")
        results = store.results()
        store.close()
        assert len(results) == 4 * 2 * (2 + 6) and all(r.status == "finished" for r in results)
        rows = [json.loads(x) for x in (rdir / "g000" / "play" / "units.jsonl").open()]
        assert {r["split"] for r in rows} == {"train", "select"}
        by_unit: dict[str, set[str]] = {}
        for r in rows:
            by_unit.setdefault(r["key"], set()).add(r["candidate"])
        assert all(len(v) == 4 for v in by_unit.values())  # common units for all candidates
        assert report["budget"]["total"]["games"] >= len(results)
        # the champion exported as an agent entry plays in an ordinary `arena run`
        out = selfplay_cli("export", str(root), cwd=tmp_path)
        stdout, stderr = out.communicate(timeout=120)
        assert out.returncode == 0, stderr
        entry = yaml.safe_load(stdout)["agents"][0]
        assert entry["name"] == report["repeats"][0]["champion"]
        config = RunConfig.model_validate(
            {
                "game": "dealornodeal",
                "agents": [entry, {"name": "bot", "kind": "rule"}],
                "lineups": [{"vs": [entry["name"], "bot"]}],
                "matches": 2,
            }
        )
        played = asyncio.run(Tournament(config, tmp_path / "run", "x").run())
        assert len(played) == 2 and all(r.status == "finished" for r in played)


@pytest.mark.slow  # two self-play runs, one killed (kill -9) and resumed
def test_resume_after_kill_reaches_the_same_champion_bank_and_ratings(tmp_path: Path) -> None:
    with ServerThread(ContextEngine(seed=1)) as server:
        bank = seed_bank(tmp_path / "seed.sqlite")
        # two generations: the kill lands in the last one, after generation 0's fold
        raw = raw_config(server.url, bank, concurrency=2, generations=2)
        cfg = write_config(tmp_path / "sp.yaml", raw)
        whole = selfplay_cli(str(cfg), "--out", str(tmp_path / "whole"), cwd=tmp_path)
        _, err = whole.communicate(timeout=300)
        assert whole.returncode == 0, err
        killed = selfplay_cli(str(cfg), "--out", str(tmp_path / "killed"), cwd=tmp_path)
        # kill -9 once generation 1 is being played (after a reflection was folded)
        target = tmp_path / "killed" / "r0" / "g001" / "play" / "matches"
        kill_when_recorded(killed, target, 5)
        assert not (tmp_path / "killed" / "r0" / "result.json").exists()
        resumed = selfplay_cli("--resume", str(tmp_path / "killed"), cwd=tmp_path)
        _, err = resumed.communicate(timeout=300)
        assert resumed.returncode == 0, err
        assert selfplay_fingerprint(tmp_path / "killed") == selfplay_fingerprint(tmp_path / "whole")


def test_a_games_cap_is_overshot_by_at_most_the_games_in_flight(tmp_path: Path) -> None:
    with ServerThread(ContextEngine(seed=1)) as server:
        raw = raw_config(
            server.url,
            seed_bank(tmp_path / "seed.sqlite"),
            concurrency=3,
            budget={"games": 20, "per_phase": {"gate": {"games": 5}}},
        )
        report = asyncio.run(SelfPlay(parse(raw), tmp_path / "sp").run())
        spent = report["budget"]["total"]["games"]
        assert 20 <= spent <= 20 + 3, spent
        assert report["budget"]["stopped"] == "budget: games"
        # a stop file admits nothing more
        (tmp_path / "sp2").mkdir()
        (tmp_path / "sp2" / "STOP").touch()
        raw = raw_config(server.url, seed_bank(tmp_path / "seed.sqlite"))
        report = asyncio.run(SelfPlay(parse(raw), tmp_path / "sp2").run())
        assert report["budget"]["total"]["games"] == 0
        assert report["budget"]["stopped"].startswith("stop file")


def test_a_wall_cap_ends_the_games_in_flight(tmp_path: Path) -> None:
    """The model stops answering mid-phase (each decision may wait 30 s): the run still ends at
    its wall cap, not when the stuck games end, and says it was stopped; the games cut short
    are not stored, so ``--resume`` plays them."""
    engine = HeldEngine(seed=1, hold_after=3)
    with ServerThread(engine) as server:
        raw = raw_config(server.url, seed_bank(tmp_path / "seed.sqlite"), budget={"wall_s": 2.0})
        try:
            report = asyncio.run(SelfPlay(parse(raw), tmp_path / "sp").run())
            released_before_the_end = engine.release.is_set()
        finally:
            engine.release.set()
    assert engine.held.is_set()
    assert not released_before_the_end  # it ended while the model was still stuck
    assert report["budget"]["stopped"] == "budget: wall_s (games in flight cancelled)"
    store = Store(tmp_path / "sp" / "r0" / "g000" / "play" / "arena.sqlite")
    try:
        assert len(store.done_ids()) < 4 * 8  # not every game of the phase was stored
    finally:
        store.close()
