"""The remote agent commands and a third-party agent, end to end over loopback.

``tests/data/remote_agent_minimal.py`` was written from docs/remote.md alone, with the Python
standard library only; it runs as a subprocess in isolated mode (no PYTHONPATH, no script
directory on the path). It plays rated Werewolf and Deal or No Deal tournaments and is rated by
``arena gauntlet``. ``arena serve-agent`` runs as a subprocess too."""

from __future__ import annotations

import ast
import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.cli import main
from arena.ratings.leaderboard import report
from arena.remote.server import free_port
from tournaments import config as tconfig
from tournaments.executor import Tournament

ROOT = Path(__file__).resolve().parents[2]
MINIMAL = ROOT / "tests" / "data" / "remote_agent_minimal.py"


def started(proc: subprocess.Popen[str]) -> str:
    """The URL a server subprocess printed on its first line (it listens from then on)."""
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line:
        proc.kill()
        raise RuntimeError(f"server did not start: {proc.stderr.read() if proc.stderr else ''}")
    return line


@pytest.fixture(scope="module")
def minimal(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    proc = subprocess.Popen(
        [sys.executable, "-I", str(MINIMAL), "--port", "0", "--token", "t0k"],
        cwd=tmp_path_factory.mktemp("third-party"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        port = started(proc).split()[1]
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.kill()
        proc.wait(10)


def test_the_minimal_agent_uses_only_the_standard_library() -> None:
    tree = ast.parse(MINIMAL.read_text(encoding="utf-8"))
    modules = {
        name.split(".")[0]
        for node in ast.walk(tree)
        for name in (
            [a.name for a in node.names]
            if isinstance(node, ast.Import)
            else [node.module or ""]
            if isinstance(node, ast.ImportFrom)
            else []
        )
    }
    assert modules and modules <= set(sys.stdlib_module_names), modules


def tournament(game: str, rules: dict[str, Any], opponent: str, url: str, out: Path) -> list[Any]:
    raw = {
        "name": f"third-party-{game}",
        "game": game,
        "rules": rules,
        "agents": [
            {
                "name": "minimal",
                "kind": "remote",
                "params": {"url": url, "token_env": "MINIMAL_TOKEN"},
            },
            {"name": "rule", "kind": opponent},
        ],
        "lineups": [{"vs": ["minimal", "rule"]}],
        "matches": 4,
        "master_seed": 3,
        "concurrency": 4,
        "output_dir": str(out),
    }
    config = tconfig.parse(raw)
    return asyncio.run(Tournament(config, out / game, game).run())


@pytest.mark.parametrize(
    ("game", "rules", "opponent"),
    [
        ("werewolf", {"preset": "classic8"}, "werewolf.rule"),
        ("dealornodeal", {}, "dealornodeal.rule"),
    ],
)
def test_a_third_party_agent_plays_a_rated_tournament(
    minimal: str, game: str, rules: dict[str, Any], opponent: str, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.setenv("MINIMAL_TOKEN", "t0k")
    results = tournament(game, rules, opponent, minimal, tmp_path)
    assert results and all(r.status == "finished" for r in results)
    seats = [s for r in results for s in r.seats if s.agent == "minimal"]
    assert seats and all(s.invalid == 0 and s.fallbacks == 0 for s in seats)
    board = {row["agent"]: row for row in report(results, seed=1, bootstrap=200)["rows"]}
    row = board["minimal"]
    assert row["games"] >= len(results)
    assert row["mu_low"] <= row["mu"] <= row["mu_high"]  # rated, with an interval


def test_the_gauntlet_rates_a_third_party_agent(
    minimal: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.setenv("MINIMAL_TOKEN", "t0k")
    code = main([
        "gauntlet", "--agent", minimal, "--game", "dealornodeal", "--matches", "2",
        "--token-env", "MINIMAL_TOKEN", "--name", "minimal", "--output", str(tmp_path),
        "--run-id", "g", "--json", "--quiet",
    ])  # fmt: skip
    assert code == 0
    doc = json.loads(capsys.readouterr().out)
    rows = {row["agent"] for row in doc["board"]["rows"]}
    assert rows == {"minimal", "ref1-rule-slip0", "ref1-rule-slip50", "ref1-random"}
    assert doc["health"]["minimal"] == {
        "seats": 6, "invalid": 0, "fallbacks": 0, "timeouts": 0, "forfeits": 0,
    }  # fmt: skip
    assert doc["board"]["matches"] == {"finished": 6}
    assert (tmp_path / "g" / "config.yaml").exists()  # an ordinary run directory


def test_the_gauntlet_stops_before_playing_when_the_agent_is_unreachable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    code = main(["gauntlet", "--agent", url, "--game", "werewolf", "--output", str(tmp_path),
                 "--run-id", "g", "--quiet"])  # fmt: skip
    assert code == 2
    assert f"agent agent: {url}/info: cannot connect" in capsys.readouterr().err
    assert not (tmp_path / "g").exists()  # nothing written


@pytest.mark.parametrize(
    ("argv", "problem"),
    [
        (["gauntlet", "--agent", "http://127.0.0.1:1", "--game", "chess"], "no reference pool"),
        (["gauntlet", "--game", "werewolf"], "give --agent URL and --game GAME"),
        (["serve-agent", "nosuch"], "unknown agent kind 'nosuch'"),
        (["serve-agent", "rule", "--host", "0.0.0.0"], "needs --token-env"),
        (["serve-agent", "rule", "--params", "[1]"], "must be a JSON object"),
        (["serve-agent", "--config", "cfg.yaml"], "--config and --entry go together"),
        (["serve-agent", "rule", "--params", '{"slip": 7}'], "slip must be a probability"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    argv: list[str], problem: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    assert problem in capsys.readouterr().err


def test_gauntlet_lists_its_versioned_pools(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gauntlet", "--list-pools"]) == 0
    out = capsys.readouterr().out
    assert "werewolf: werewolf-ref@1" in out and "dealornodeal: dealornodeal-ref@1" in out


def test_serve_agent_serves_a_built_in_kind_with_a_token(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "AGENT_TOKEN": "k3y"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "serve-agent", "rule", "--port", str(port),
         "--token-env", "AGENT_TOKEN", "--max-seconds", "300"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert "rule on http://127.0.0.1" in started(proc)  # printed once it listens
        url = f"http://127.0.0.1:{port}"
        reply = httpx.get(f"{url}/info", headers={"authorization": "Bearer k3y"})
        assert reply.json() == {"protocol": 1, "name": "rule"}
        assert httpx.get(f"{url}/info").status_code == 401
        monkeypatch.setenv("MINIMAL_TOKEN", "k3y")
        results = tournament("dealornodeal", {}, "dealornodeal.random", url, tmp_path)
    finally:
        proc.terminate()
        proc.wait(10)
    assert len(results) == 4 and all(r.status == "finished" for r in results)
    assert all(s.invalid == 0 for r in results for s in r.seats)
