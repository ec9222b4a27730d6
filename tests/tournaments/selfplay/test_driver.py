"""``arena selfplay`` end to end on the context-sensitive test backend: ordinary run
directories, per-unit results, lineage, export to an ``arena run`` entry, and resume after
kill -9 reaching the same champion, bank and ratings."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import yaml

from arena.llm.fakes.context import ContextEngine
from arena.llm.server import ServerThread
from arena.memory.bank import open_bank
from arena.store import Store
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

ROOT = Path(__file__).resolve().parents[3]


def _cli(*args: str, cwd: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    return subprocess.Popen(
        [sys.executable, "-m", "app.cli", "selfplay", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _fingerprint(root: Path) -> dict[str, object]:
    result = json.loads((root / "r0" / "result.json").read_text())
    bank = open_bank(root / "r0" / "bank.sqlite")
    gens = [json.loads(p.read_text()) for p in sorted((root / "r0").glob("g*/generation.json"))]
    return {
        "champion": result["champion"]["id"],
        "decisions": result["decisions"],
        "bank_head": bank.head(),
        "ratings": [[(c["id"], c["mu"], c["sigma"]) for c in g["candidates"]] for g in gens],
    }


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
        out = _cli("export", str(root), cwd=tmp_path)
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


def test_resume_after_kill_reaches_the_same_champion_bank_and_ratings(tmp_path: Path) -> None:
    with ServerThread(ContextEngine(seed=1)) as server:
        bank = seed_bank(tmp_path / "seed.sqlite")
        raw = raw_config(server.url, bank, concurrency=2)
        cfg = write_config(tmp_path / "sp.yaml", raw)
        whole = _cli(str(cfg), "--out", str(tmp_path / "whole"), cwd=tmp_path)
        _, err = whole.communicate(timeout=300)
        assert whole.returncode == 0, err
        killed = _cli(str(cfg), "--out", str(tmp_path / "killed"), cwd=tmp_path)
        # kill -9 once generation 1 is being played (after a reflection was folded)
        target = tmp_path / "killed" / "r0" / "g001" / "play" / "matches"
        kill_when_recorded(killed, target, 5)
        assert not (tmp_path / "killed" / "r0" / "result.json").exists()
        resumed = _cli("--resume", str(tmp_path / "killed"), cwd=tmp_path)
        _, err = resumed.communicate(timeout=300)
        assert resumed.returncode == 0, err
        assert _fingerprint(tmp_path / "killed") == _fingerprint(tmp_path / "whole")


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
