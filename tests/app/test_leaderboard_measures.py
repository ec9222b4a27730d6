"""`arena leaderboard --measures` and `arena score`: the games' measures per agent entry, from a
real run of rule bots, equal to the figures computed straight from the JSONL records."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from app.cli import main
from arena.events import Event
from arena.seeding import derive_seed
from arena.stats import ratio_estimate, wilson
from games.werewolf.measures import match_measures as werewolf_measures


def _run(tmp: Path, name: str, config: dict[str, Any]) -> Path:
    cfg = tmp / f"{name}.yaml"
    cfg.write_text(yaml.safe_dump({**config, "output_dir": str(tmp / "runs")}))
    assert main(["run", str(cfg), "--run-id", name, "--quiet", "--no-broker"]) == 0
    return tmp / "runs" / name


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("measures")
    agents = [{"name": "rule", "kind": "werewolf.rule"}, {"name": "random", "kind": "random"}]
    ww = _run(tmp, "ww", {
        "name": "ww", "game": "werewolf", "rules": {"preset": "classic8"}, "agents": agents,
        "lineups": [{"village": "rule", "wolves": "random"}, {"village": "random", "wolves": "rule"}],
        "matches": 3, "master_seed": 5, "concurrency": 2,
    })  # fmt: skip
    agents = [{"name": "rule", "kind": "dealornodeal.rule"}, {"name": "random", "kind": "random"}]
    dd = _run(tmp, "dd", {
        "name": "dd", "game": "dealornodeal", "agents": agents,
        "lineups": [{"vs": ["rule", "random"]}], "matches": 8, "master_seed": 5, "concurrency": 2,
    })  # fmt: skip
    return ww, dd


def _records(run: Path) -> list[list[dict[str, Any]]]:
    """Every match record of a run as raw JSON lines."""
    return [
        [json.loads(line) for line in p.read_text().splitlines() if line.strip()]
        for p in sorted((run / "matches").glob("*.jsonl"))
    ]


def _first(record: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    return next(e["payload"] for e in record if e["type"] == kind)


def _leaderboard(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert main(["leaderboard", *args, "--measures", "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_werewolf_measures_equal_the_figures_of_the_jsonl(
    runs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    ww, _ = runs
    doc = _leaderboard(capsys, str(ww))
    m = doc["measures"]
    assert m["seed"] == doc["bootstrap"]["seed"] and m["resamples"] == 2000
    game = m["games"]["werewolf"]
    assert game["matches"] == 6 and game["skipped"] == 0
    records = _records(ww)
    # by hand from the raw lines: village win rate and survival per agent entry
    wins: dict[str, list[float]] = defaultdict(list)
    alive: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for rec in records:
        truth, over = _first(rec, "ground_truth"), _first(rec, "game_over")
        seats = {int(s): a for s, a in truth["seats"].items()}
        dead = {e["payload"]["seat"] for e in rec if e["type"] == "death"}
        for agent in set(seats.values()):
            mine = [s for s, a in seats.items() if a == agent]
            if any(truth["teams"][str(s)] == "village" for s in mine):
                wins[agent].append(1.0 if "village" in over["winners"] else 0.0)
            alive[agent].append((float(sum(s not in dead for s in mine)), float(len(mine))))
    for agent in ("rule", "random"):
        got = game["agents"][agent]
        k, n = sum(wins[agent]), len(wins[agent])
        assert got["win_rate_village"]["value"] == pytest.approx(k / n)
        assert got["win_rate_village"]["method"] == "wilson"  # one 0/1 outcome per match
        assert [got["win_rate_village"]["low"], got["win_rate_village"]["high"]] == pytest.approx(
            list(wilson(k, n))
        )
        nums, dens = zip(*alive[agent], strict=True)
        assert got["survival"]["value"] == pytest.approx(sum(nums) / sum(dens))
        assert got["survival"]["n"] == len(records)
    # the game's own §14 figures of the typed records, pooled over matches with arena.stats
    counts: dict[str, tuple[list[float], list[float]]] = defaultdict(lambda: ([], []))
    for path in sorted((ww / "matches").glob("*.jsonl")):
        events = [Event.model_validate_json(x) for x in path.read_text().splitlines() if x]
        truth = next(e for e in events if e.type == "ground_truth")
        seats = {int(s): a for s, a in truth.payload["seats"].items()}
        for key, (num, den) in werewolf_measures(events, seats)["counts"].items():
            if den > 0:
                counts[key][0].append(num)
                counts[key][1].append(den)
    for agent in ("rule", "random"):
        for name, key in (("vote_accuracy", f"va|{agent}"), ("deduction_accuracy", f"da|agent={agent}"),
                          ("wolf_suspicion_ratio", f"suspicion_ratio|{agent}")):  # fmt: skip
            rng = np.random.default_rng(derive_seed(m["seed"], "measures", "werewolf", agent, name))
            want = ratio_estimate(*counts[key], rng, 2000, binary=name == "vote_accuracy")
            assert game["agents"][agent][name] == want.as_dict(), (agent, name)
            assert want.low is not None and want.low <= want.value <= want.high  # type: ignore[operator]
    # the rule village reads the wolves better than random ballots would
    rule = game["agents"]["rule"]
    assert rule["vote_accuracy"]["value"] > rule["vote_accuracy_chance"]["value"]


def test_dealornodeal_measures_and_several_runs_in_one_report(
    runs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    ww, dd = runs
    doc = _leaderboard(capsys, str(ww), str(dd))
    assert set(doc["measures"]["games"]) == {"werewolf", "dealornodeal"}
    game = doc["measures"]["games"]["dealornodeal"]
    records = _records(dd)
    agreed = [_first(rec, "result")["label"] == "agreement" for rec in records]
    for agent in ("rule", "random"):
        got = game["agents"][agent]
        assert got["agreement_rate"]["value"] == pytest.approx(sum(agreed) / len(agreed))
        assert got["agreement_rate"]["n"] == len(records) == 8
        lo, hi = wilson(sum(agreed), len(agreed))
        assert (got["agreement_rate"]["low"], got["agreement_rate"]["high"]) == pytest.approx(
            (lo, hi)
        )
        # mean utility per match from the god-only result lines, seat -> entry from ground truth
        utils = []
        for rec in records:
            seats = _first(rec, "ground_truth")["seats"]
            res = _first(rec, "result")
            mine = [float(res["utilities"][int(s)]) for s, a in seats.items() if a == agent]
            utils.append(sum(mine) / len(mine))
        assert got["score_all"]["value"] == pytest.approx(sum(utils) / len(utils))
        assert got["score_all"]["method"] == "bootstrap"
        assert got["score_all"]["low"] <= got["score_all"]["value"] <= got["score_all"]["high"]
        assert got["pareto_optimal_rate"]["n"] == sum(agreed)  # defined on agreements only
        assert "nash_welfare" in got and "irrational_accepts" in got


def test_the_measures_table_and_score_writes_the_same_figures(
    runs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    ww, dd = runs
    assert main(["leaderboard", str(ww), "--measures"]) == 0
    out = capsys.readouterr().out
    assert "werewolf measures per agent entry" in out
    for name in ("vote_accuracy", "deduction_accuracy", "wolf_suspicion_ratio", "survival"):
        assert name in out
    assert main(["leaderboard", str(ww)]) == 0
    assert "measures per agent entry" not in capsys.readouterr().out  # only when asked
    # the run report: `arena score RUN_DIR` writes the same document beside the metrics
    assert main(["score", str(dd), "--no-embeddings"]) == 0
    assert "game measures per agent entry" in capsys.readouterr().out
    written = json.loads((dd / "metrics" / "measures.json").read_text())
    assert written == _leaderboard(capsys, str(dd))["measures"]


@pytest.mark.parametrize(
    "game", ["werewolf", "avalon", "dealornodeal", "price_bargaining", "pie_division", "auction"]
)
def test_every_measure_a_game_reports_is_declared_with_a_unit_and_a_definition(
    game: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    agents = [{"name": "rule", "kind": f"{game}.rule"}, {"name": "random", "kind": "random"}]
    run = _run(tmp_path, game, {
        "name": game, "game": game, "agents": agents, "matches": 4, "master_seed": 3,
        "seating": "rotate",
    })  # fmt: skip
    capsys.readouterr()
    doc = _leaderboard(capsys, str(run))["measures"]["games"][game]
    names = {name for figures in doc["agents"].values() for name in figures}
    assert names
    for name in names:
        info = doc["definitions"].get(name)
        assert info is not None and info["unit"] and info["definition"], name


def test_the_measures_table_prints_each_unit_and_definition(
    runs: tuple[Path, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from rich.console import Console

    from app.commands import leaderboard as runs_command

    monkeypatch.setattr(runs_command, "console", Console(width=300))  # cells on one line
    _, dd = runs
    assert main(["leaderboard", str(dd), "--measures"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "points per proposal" in out and "(positive: conceding)" in out
    assert "dealornodeal measures: what each one is" in out
