"""Self-play reporting: per generation the bank's size and churn, each candidate's churn
against its parent, wall time per phase; the PNG plots and the series they draw."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from arena.llm.fakes.context import ContextEngine
from arena.llm.server import ServerThread
from arena.memory.bank import open_bank
from tests.tournaments.selfplay.selfplay_setup import seed_bank, small_config
from tournaments.selfplay.config import parse
from tournaments.selfplay.driver import SelfPlay
from tournaments.selfplay.plots import SELFPLAY_PLOTS, plot_selfplay
from tournaments.selfplay.report import churn, generations, series


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("sp-report")
    with ServerThread(ContextEngine(seed=1)) as server:
        raw = small_config(server.url, seed_bank(tmp / "seed.sqlite"))
        asyncio.run(SelfPlay(parse(raw), tmp / "sp").run())
    return tmp / "sp"


def _population(root: Path) -> dict[str, dict]:  # type: ignore[type-arg]
    out = {}
    for path in (root / "r0").glob("g*/population.json"):
        for row in json.loads(path.read_text()):
            out[row["id"]] = row
    seed = json.loads((root / "r0" / "seed.json").read_text())
    out[seed["id"]] = seed
    return out


def test_churn_counts_added_and_removed_ids() -> None:
    assert churn(["a", "b"], ["b", "c", "d"]) == {"size": 3, "added": 2, "removed": 1}
    assert churn([], []) == {"size": 0, "added": 0, "removed": 0}


def test_each_generation_reports_bank_size_and_churn_against_the_one_before(
    finished: Path,
) -> None:
    gens = generations(finished)
    assert [g["generation"] for g in gens] == [0, 1]
    bank = open_bank(finished / "r0" / "bank.sqlite")
    seed = json.loads((finished / "r0" / "seed.json").read_text())
    before = {i.id for i in bank.at(seed["version"]).insights()}
    for g in gens:
        now = {i.id for i in bank.at(g["bank"]["version"]).insights()}
        assert g["bank"]["size"] == g["bank"]["active"] == len(now)
        assert g["bank"]["added"] == len(now - before)
        assert g["bank"]["removed"] == len(before - now)
        before = now
    # reflection folded insights in: the bank grew at some point of the run
    assert sum(g["bank"]["added"] for g in gens) > 0


def test_each_candidate_reports_what_its_operator_changed_against_its_parent(
    finished: Path,
) -> None:
    known = _population(finished)
    rows = [c for g in generations(finished) for c in g["candidates"]]
    assert any(c["churn"]["added"] + c["churn"]["removed"] > 0 for c in rows)
    for c in rows:
        mine = set(known[c["id"]]["insights"])
        parent = known[c["parents"][0]] if c["parents"] else known[c["id"]]
        theirs = set(parent["insights"])
        assert c["churn"] == {
            "size": len(mine),
            "added": len(mine - theirs),
            "removed": len(theirs - mine),
        }


def test_the_budget_counts_wall_time_per_phase(finished: Path) -> None:
    budget = json.loads((finished / "budget.json").read_text())
    phases = budget["phases"]
    assert phases["play"]["wall_s"] > 0 and phases["play"]["games"] > 0
    if phases["gate"]["games"]:
        assert phases["gate"]["wall_s"] > 0
    assert phases["reflect"]["llm_calls"] == 0  # the scripted reflector calls no model
    assert phases["reflect"]["wall_s"] > 0 and phases["memory_update"]["wall_s"] > 0
    spent = sum(p["wall_s"] for p in phases.values())
    assert spent <= budget["total"]["wall_s"]  # phases never overlap; bookkeeping is outside


def test_plots_draw_the_generations_as_reported(finished: Path, tmp_path: Path) -> None:
    paths = plot_selfplay(finished, tmp_path / "plots")
    assert [p.name for p in paths] == list(SELFPLAY_PLOTS)
    for p in paths:
        data = p.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000
    gens = generations(finished)
    drawn = series(gens)[0]
    assert drawn["generation"] == [0, 1]
    for g, champ, pop in zip(gens, drawn["champion"], drawn["population"], strict=True):
        inc = next(c for c in g["candidates"] if c["id"] == g["incumbent"])
        assert champ == {
            "id": g["incumbent"],
            "win_rate": inc["win_rate"],
            "low": inc["win_ci"][0],
            "high": inc["win_ci"][1],
        }
        assert [cid for cid, _, _ in pop] == [c["id"] for c in g["candidates"]]


def test_each_candidate_reports_its_harness_health(finished: Path) -> None:
    rows = [c for g in generations(finished) for c in g["candidates"]]
    for c in rows:
        health = c["health"]
        assert health["decisions"] > 0 and health["unknown_matches"] == 0
        refused = health["refused"]
        assert refused["of"] == health["decisions"] and 0 <= refused["low"] <= refused["high"]
        # a flag says exactly when a share passes the threshold
        over = any((health[k]["share"] or 0) > 0.05 for k in ("refused", "forfeit"))
        assert (health["flag"] is not None) == over
