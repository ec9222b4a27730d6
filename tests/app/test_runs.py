"""`arena leaderboard`, `arena runs`, `arena show`, `arena plot`."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import re
from pathlib import Path

import pytest

from app.cli import main
from arena.store import Store
from tests.builders import make_config
from tournaments.executor import Tournament


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    cfg = make_config(tmp_path, lineups=[{"vs": ["rnd", "low"]}], matches=10, repeats=2)
    asyncio.run(Tournament(cfg, tmp_path / "runs" / "done", "done").run())
    return tmp_path / "runs" / "done"


def test_leaderboard_json_is_identical_for_identical_results(
    run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["leaderboard", str(run_dir), "--json"]) == 0
    first = capsys.readouterr().out
    cfg = make_config(tmp_path, lineups=[{"vs": ["rnd", "low"]}], matches=10, repeats=2)
    asyncio.run(Tournament(cfg, tmp_path / "again", "again").run())
    assert main(["leaderboard", str(tmp_path / "again"), "--json"]) == 0
    assert capsys.readouterr().out == first
    doc = json.loads(first)
    assert {r["agent"] for r in doc["rows"]} == {"rnd", "low"}
    row = doc["rows"][0]
    for key in (
        "mu",
        "sigma",
        "conservative",
        "wr_low",
        "wr_high",
        "rse",
        "pr",
        "wpe",
        "aggregate",
    ):
        assert row[key] is not None, key
    assert doc["repeats"] == 2 and doc["bootstrap"]["resamples"] == 2000
    assert doc["population"]["table"]["low"]["rnd"]["games"] == 20


def test_leaderboard_csv_and_by_role(run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["leaderboard", str(run_dir), "--csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [r["agent"] for r in rows] and {"mu", "wr_low", "wr_high", "roles"} <= set(rows[0])
    assert main(["leaderboard", str(run_dir), "--by", "faction", "--json"]) == 0
    agents = {r["agent"] for r in json.loads(capsys.readouterr().out)["rows"]}
    assert agents and all("@seat" in a for a in agents)
    assert main(["leaderboard", str(run_dir)]) == 0
    out = capsys.readouterr().out
    assert "Leaderboard by agent" in out and "Cross-table" in out


def test_leaderboard_of_a_non_run_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["leaderboard", str(tmp_path)]) == 2
    assert "not a run directory" in capsys.readouterr().err


def test_runs_lists_runs_with_their_status(
    run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = make_config(tmp_path, matches=4)
    t = Tournament(cfg, tmp_path / "runs" / "crashed", "crashed")
    store = t.prepare()  # planned, status 'running', and no process holds the lock
    asyncio.run(t.run_one(t.specs[0], store))
    store.close()
    assert main(["runs", str(tmp_path / "runs"), "--json"]) == 0
    runs = {r["run_id"]: r for r in json.loads(capsys.readouterr().out)}
    assert runs["done"]["status"] == "complete" and runs["done"]["done"] == 20
    assert runs["crashed"]["status"] == "crashed" and (
        runs["crashed"]["done"],
        runs["crashed"]["planned"],
    ) == (1, 4)
    assert main(["runs", str(tmp_path / "runs")]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "resume: arena run --resume" in out and "crashed" in out


def test_show_prints_the_outcome_and_transcript(
    run_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = Store(run_dir / "arena.sqlite")
    result = store.results()[3]
    store.close()
    assert main(["show", result.match_id, "--runs-dir", str(run_dir.parent)]) == 0
    out = capsys.readouterr().out
    assert result.match_id in out and f"status: finished — {result.outcome}" in out
    assert "public transcript" in out and "Votes:" in out
    for seat in result.seats:
        assert seat.agent in out
    # the count of events is broken down by every type, not the six most common
    head = " ".join(out.split()).split("events: ", 1)[1].split(")", 1)[0]
    total, kinds = head.split(" (")
    assert sum(int(n) for n in re.findall(r" (\d+)(?:,|$)", kinds)) == int(total)
    assert main(["show", "nope", "--run", str(run_dir)]) == 2


def test_show_refuses_a_match_id_that_several_runs_share(
    run_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Match ids repeat across runs of one config: `show` names the runs, never picks one."""
    cfg = make_config(run_dir.parent.parent, lineups=[{"vs": ["rnd", "low"]}], matches=10)
    again = run_dir.parent / "again"
    asyncio.run(Tournament(cfg, again, "again").run())
    store = Store(run_dir / "arena.sqlite")
    match_id = store.results()[0].match_id
    store.close()
    capsys.readouterr()
    assert main(["show", match_id, "--runs-dir", str(run_dir.parent)]) == 2
    err = capsys.readouterr().err
    assert f"match {match_id!r} is in 2 runs" in " ".join(err.split())
    assert str(run_dir) in err and str(again) in err and "--run RUN_DIR" in err
    assert main(["show", match_id, "--run", str(again)]) == 0


def test_plot_writes_pngs(run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plot", str(run_dir)]) == 0
    for name in ("rating_history_agent.png", "win_rate_agent.png"):
        data = (run_dir / "plots" / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000


def test_leaderboard_by_game_rates_each_game_apart(
    run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.tournaments.strength import population, register
    from tournaments import config as tconfig

    register()
    duel = tconfig.parse(
        {"game": "duel", "agents": population()[:2], "matches": 6, "output_dir": str(tmp_path)}
    )
    asyncio.run(Tournament(duel, tmp_path / "duel", "duel").run())
    assert (
        main(["leaderboard", str(run_dir), str(tmp_path / "duel"), "--by", "game", "--json"]) == 0
    )
    agents = {r["agent"] for r in json.loads(capsys.readouterr().out)["rows"]}
    assert agents == {"toy/rnd", "toy/low", "duel/p000", "duel/p025"}


def test_the_board_and_the_plan_name_the_pairs_that_never_met(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A gauntlet never seats two baselines together: --check, the end-of-run board and
    `arena leaderboard` say so (the board ranks them against each other all the same)."""
    agents = [
        {"name": "low", "kind": "toy.lowest"},
        {"name": "rnd", "kind": "random"},
        {"name": "rnd2", "kind": "random"},
    ]
    gauntlet = {"candidates": ["low"], "baselines": ["rnd", "rnd2"]}
    cfg = make_config(
        tmp_path, rules={"n_players": 2}, agents=agents, format="gauntlet", gauntlet=gauntlet
    )
    path = tmp_path / "g.yaml"
    path.write_text(json.dumps(cfg.model_dump(mode="json") | {"matches": 4}))
    assert main(["run", str(path), "--check"]) == 0
    assert "coverage: 2 of 3 pairs meet; never meet: rnd vs rnd2\n" in capsys.readouterr().out
    assert main(["run", str(path), "--run-id", "g", "--no-broker", "--quiet"]) == 0
    end = capsys.readouterr().out
    assert "match coverage (any match): 2 of 3 pairs met; never met: rnd vs rnd2" in end
    assert main(["leaderboard", str(tmp_path / "g")]) == 0
    board = capsys.readouterr().out
    assert "cross-table coverage: 2 of 3 pairs met; never met: rnd vs rnd2\n" in board
    assert "only through common opponents" in board
    assert main(["leaderboard", str(tmp_path / "g"), "--json"]) == 0
    h2h = json.loads(capsys.readouterr().out)["coverage"]["head_to_head"]
    assert (h2h["pairs"], h2h["met"], h2h["never"], h2h["fewest"]) == (3, 2, [["rnd", "rnd2"]], 4)


def test_a_board_where_every_pair_met_says_how_often(
    run_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["leaderboard", str(run_dir)]) == 0
    board = capsys.readouterr().out
    assert "cross-table coverage: the one pair met 20 times\n" in board
    assert "never met" not in board and "common opponents" not in board


def test_the_end_of_run_board_says_every_pair_met(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = Path(__file__).parents[2] / "tournaments/examples/dealornodeal_bots.yaml"
    argv = ["run", str(config), "--output", str(tmp_path), "--run-id", "d", "--no-broker"]
    assert main([*argv, "--quiet"]) == 0
    end = capsys.readouterr().out
    assert "match coverage (any match): all 6 pairs met, 16 times each\n" in end
    assert "common opponents" not in end


def test_show_and_the_leaderboard_count_a_persona_match_alike(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The engine names no winner, the rewards differ: `show` prints the result the board
    counts (one notion), never a draw beside the board's win and loss."""
    from arena.ratings.tallies import seat_returns
    from tournaments import config as tconfig

    cfg = tconfig.load(
        "tournaments/examples/persona_bots.yaml", {"matches": 1, "output_dir": str(tmp_path)}
    )
    asyncio.run(Tournament(cfg, tmp_path / "p", "p").run())
    store = Store(tmp_path / "p" / "arena.sqlite")
    results = store.results()
    store.close()
    decided = [r for r in results if len({s.reward for s in r.seats}) > 1]
    assert decided, "the example should have a match whose seats' rewards differ"
    result = decided[0]
    returns = seat_returns(result)
    assert returns is not None
    assert main(["show", result.match_id, "--run", str(tmp_path / "p")]) == 0
    out = capsys.readouterr().out
    assert "none (draw)" not in out
    won = sorted({s.team for s in result.seats if returns[s.seat] > 0})
    assert f"winners (as rated, by reward): {', '.join(won)}" in out
    points = {1.0: "win", 0.0: "draw", -1.0: "loss"}
    for r in results:  # the store records the same result the board counts
        counted = seat_returns(r)
        assert counted is not None
        assert [s.result for s in r.seats] == [points[counted[s.seat]] for s in r.seats]
