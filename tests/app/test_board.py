"""The published board: harness health caught and refused, seasons of identical conditions.

Real tournaments through ``arena run``: an LLM entry against a scripted OpenAI-compatible server
on 127.0.0.1 that answers garbage (a well-formed reply no parser accepts) half the time, rule
bots, and runs that differ only in an LLM entry's prompt.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from app.cli import main
from arena.llm.fakes.scripted import ScriptedEngine
from arena.llm.server import ServerThread

GARBAGE_RATE = 0.5


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[ServerThread, ScriptedEngine]]:
    engine = ScriptedEngine(seed=3, fault_rates={"garbage": GARBAGE_RATE})
    with ServerThread(engine) as thread:
        yield thread, engine


def llm_entry(url: str, **params: Any) -> dict[str, Any]:
    backend = {"base_url": url, "model": "scripted", "max_retries": 0}
    return {"name": "model", "kind": "llm", "params": {"backend": backend, **params}}


def run(
    tmp: Path, name: str, agents: list[dict[str, Any]], matches: int = 12, **extra: Any
) -> Path:
    doc = {
        "name": name,
        "game": "price_bargaining",
        "agents": agents,
        "matches": matches,
        "master_seed": 5,
        "concurrency": 1,  # one request at a time: the server's fault draws come in one order
        "policy": {"retries": 2, "fallback": "random_legal", "timeout_s": 30},
        "output_dir": str(tmp / "runs"),
        **extra,
    }
    path = tmp / f"{name}.yaml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    code = main(["run", str(path), "--quiet", "--no-broker", "--no-metrics", "--run-id", name])
    assert code == 0
    return tmp / "runs" / name


def board(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["leaderboard", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


BOTS = [
    {"name": "boulware", "kind": "price_bargaining.boulware"},
    {"name": "conceder", "kind": "price_bargaining.conceder"},
]


@pytest.fixture(scope="module")
def garbled(
    server: tuple[ServerThread, ScriptedEngine], tmp_path_factory: pytest.TempPathFactory
) -> Path:
    return run(tmp_path_factory.mktemp("garbled"), "garbled", [llm_entry(server[0].url), BOTS[0]])


def test_a_garbage_answering_entry_is_caught_flagged_and_refused(
    garbled: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = board(capsys, str(garbled))
    rows = {r["agent"]: r for r in doc["rows"]}
    health = rows["model"]["health"]
    refused = health["refused"]
    # every decision's first answer is garbage with probability 1/2, whatever came before
    assert refused["of"] >= 40
    assert refused["low"] <= GARBAGE_RATE <= refused["high"]
    # a fallback needs three garbage answers in a row: 1/8 of decisions
    assert health["fallback"]["low"] <= GARBAGE_RATE**3 <= health["fallback"]["high"]
    assert health["reasked"]["share"] == refused["share"]  # retries 2: every refusal re-asks
    assert health["timeout"]["share"] == 0.0
    assert rows["model"]["flags"] and "answers refused" in rows["model"]["flags"][0]
    assert rows["boulware"]["flags"] == [] and rows["boulware"]["health"]["refused"]["share"] == 0
    assert doc["health"]["flagged"] == ["model"]
    assert doc["clean_fit"]["left_out"] > 0

    capsys.readouterr()
    assert main(["leaderboard", str(garbled), "--strict"]) == 2
    err = capsys.readouterr().err
    assert "refusing to print the board" in err and "model: answers refused" in err

    capsys.readouterr()
    assert main(["leaderboard", str(garbled), "--csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = lines[0].split(",")
    assert "refused_share" in header and "clean_rank" in header and "flags" in header


def test_clean_rule_bot_runs_are_never_flagged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    clean = run(tmp_path, "bots", BOTS, matches=6)
    doc = board(capsys, str(clean))
    assert doc["health"]["flagged"] == []
    assert all(r["flags"] == [] for r in doc["rows"])
    assert all(r["health"]["refused"]["share"] == 0.0 for r in doc["rows"])
    assert doc["clean_fit"]["left_out"] == 0
    capsys.readouterr()
    assert main(["leaderboard", str(clean), "--strict"]) == 0
    out = capsys.readouterr().out
    assert "Harness health" in out
    # re-running the run reproduces its board exactly, and the two pool as one season
    rerun = run(tmp_path, "bots-again", BOTS, matches=6)
    assert board(capsys, str(rerun))["rows"] == doc["rows"]
    pooled = board(capsys, str(clean), str(rerun))
    assert pooled["season"]["of"] == 1 and pooled["season"]["matches"] == 12


def test_runs_differing_only_in_a_prompt_are_never_pooled_silently(
    server: tuple[ServerThread, ScriptedEngine],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    url = server[0].url
    a = run(tmp_path, "a", [llm_entry(url), BOTS[0]], matches=2)
    same = run(tmp_path, "same", [llm_entry(url), BOTS[0]], matches=2)
    edited = run(tmp_path, "edited", [llm_entry(url, style="Be terse."), BOTS[0]], matches=2)

    pooled = board(capsys, str(a), str(same))
    assert pooled["season"]["of"] == 1 and pooled["season"]["matches"] == 4
    assert "other_seasons" not in pooled

    split = board(capsys, str(a), str(edited))
    assert split["season"]["of"] == 2
    other = split["other_seasons"][0]["season"]
    assert any(line.startswith("entry.model.prompt.hash") for line in other["differs"])

    capsys.readouterr()
    assert main(["leaderboard", str(a), str(edited), "--pool", "strict"]) == 2
    assert "refusing to pool" in capsys.readouterr().err

    alone = board(capsys, str(a))
    again = board(capsys, str(a))
    assert alone["rows"] == again["rows"]  # re-reading a run reproduces its board exactly


def test_a_strict_config_refuses_the_end_of_run_board_and_the_leaderboard(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    strict = {"strict": True, "max_harness_error": 0.2}
    capsys.readouterr()
    # a server of its own: its fault draws do not depend on the tests run before
    with ServerThread(ScriptedEngine(seed=3, fault_rates={"garbage": GARBAGE_RATE})) as server:
        run_dir = run(tmp_path, "strict", [llm_entry(server.url), BOTS[0]], 4, ratings=strict)
    out, err = capsys.readouterr()
    assert "Leaderboard (" not in out
    assert "not printing the board (ratings.strict)" in err and "model: answers refused" in err
    assert main(["leaderboard", str(run_dir)]) == 2  # the config's strict, without --strict
    assert "refusing to print the board" in capsys.readouterr().err
