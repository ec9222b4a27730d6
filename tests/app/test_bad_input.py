"""Bad input to `arena run`: one clear line per problem, exit 2, nothing written (issue 15)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from app.cli import main
from arena.llm.fakes.scripted import ScriptedEngine
from arena.llm.server import ServerThread


@pytest.fixture(scope="module")
def server() -> Iterator[ServerThread]:
    with ServerThread(ScriptedEngine(seed=1)) as srv:
        yield srv


def closed_port_url() -> str:
    """A loopback URL nothing listens on (the port was just released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def write_config(tmp_path: Path, **fields: Any) -> Path:
    doc: dict[str, Any] = {
        "name": "bad",
        "game": "toy",
        "rules": {"n_players": 3},
        "agents": [{"name": "a", "kind": "random"}, {"name": "b", "kind": "toy.lowest"}],
        "matches": 2,
        "output_dir": str(tmp_path / "runs"),
    }
    doc.update(fields)
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    return path


def errors_of(capsys: pytest.CaptureFixture[str]) -> list[str]:
    captured = capsys.readouterr()
    lines = [line for line in captured.err.splitlines() if line.strip()]
    assert "Traceback" not in captured.err + captured.out
    assert lines and all(line.startswith("error: ") for line in lines), lines
    return lines


def llm_entry(**backend: Any) -> dict[str, Any]:
    return {"name": "l", "kind": "llm", "params": {"backend": backend}}


def run(path: Path, *extra: str) -> int:
    return main(["run", str(path), "--no-metrics", "--quiet", *extra])


@pytest.mark.parametrize(
    ("backend", "needle"),
    [
        ({"connect_timeout_s": 0.5, "max_retries": 0}, "cannot reach the server"),
        ({"model": "no-such-model"}, "model not served here; available: scripted"),
        ({"api_key_env": "ARENA_TEST_UNSET_KEY"}, "ARENA_TEST_UNSET_KEY is not set"),
        ({"base_url": "not a url"}, "is not an http(s) URL"),
        ({"base_url": "ftp://127.0.0.1/v1"}, "is not an http(s) URL"),
        ({"temperature": 9}, "backend.temperature: Input should be less than or equal to 2"),
        ({"tempreature": 0.5}, "backend.tempreature: unknown field"),
    ],
)
@pytest.mark.parametrize("broker", [False, True])
def test_a_failing_llm_backend_is_one_line_exit_2_and_no_run_directory(
    tmp_path: Path,
    server: ServerThread,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    backend: dict[str, Any],
    needle: str,
    broker: bool,
) -> None:
    monkeypatch.delenv("ARENA_TEST_UNSET_KEY", raising=False)
    url = closed_port_url() if "connect_timeout_s" in backend else server.url
    entry = llm_entry(**{"base_url": url, "model": "scripted", **backend})
    path = write_config(tmp_path, agents=[{"name": "a", "kind": "random"}, entry])
    # with the live bus on, a late preflight used to leave broker.json in a run directory
    code = run(path) if broker else run(path, "--no-broker")
    assert code == 2
    lines = errors_of(capsys)
    assert len(lines) == 1 and needle in lines[0], lines
    assert not (tmp_path / "runs").exists()


def test_bad_llm_params_are_reported_with_every_other_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    entry = {"name": "l", "kind": "llm", "params": {"beliefs": "sometimes", "stlye": "x"}}
    path = write_config(tmp_path, agents=[{"name": "a", "kind": "random"}, entry], matches=0)
    assert run(path, "--no-broker") == 2
    text = "\n".join(errors_of(capsys))
    assert "matches: Input should be greater than or equal to 1" in text
    assert "agents.1.params.beliefs: Input should be 'auto', 'always' or 'never'" in text
    assert "agents.1.params.stlye: unknown field" in text
    assert not (tmp_path / "runs").exists()


def test_check_validates_and_preflights_without_writing(
    tmp_path: Path, server: ServerThread, capsys: pytest.CaptureFixture[str]
) -> None:
    entry = llm_entry(base_url=server.url, model="scripted")
    path = write_config(tmp_path, agents=[{"name": "a", "kind": "random"}, entry], repeats=3)
    assert run(path, "--check") == 0
    out = capsys.readouterr().out
    assert "agent l: " in out and ": ok" in out
    assert "config ok: 6 matches planned" in out
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize(
    "name", ["../escape", "a/b", "..", ".hidden", "-rf", "a\\b", "x" * 81, "a b", "a\x1b[2Jb"]
)
def test_an_unsafe_run_name_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    path = write_config(tmp_path, name=name)
    assert run(path, "--no-broker") == 2
    lines = errors_of(capsys)
    assert len(lines) == 1 and "name: " in lines[0] and "cannot name a run directory" in lines[0]
    assert "\x1b" not in lines[0]  # the value is shown escaped, not sent to the terminal
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.yaml"]


@pytest.mark.parametrize("run_id", ["../escape", "a/b", "/abs", "..", ".x", "a\nb"])
def test_an_unsafe_run_id_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], run_id: str
) -> None:
    path = write_config(tmp_path)
    assert run(path, "--no-broker", "--run-id", run_id) == 2
    lines = errors_of(capsys)
    assert len(lines) == 1 and lines[0].startswith("error: --run-id: "), lines
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.yaml"]


def test_safe_names_still_run(tmp_path: Path) -> None:
    path = write_config(tmp_path, name="werewolf-bots_v2.1+x@lab", matches=1)
    assert run(path, "--no-broker", "--run-id", "my.run-1") == 0
    assert (tmp_path / "runs" / "my.run-1" / "arena.sqlite").exists()


def test_a_plan_past_the_limit_is_refused_before_planning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_config(tmp_path, matches=1_000_000, repeats=1000)
    assert run(path, "--no-broker") == 2  # returns at once: nothing is planned in memory
    lines = errors_of(capsys)
    assert len(lines) == 1 and "1,000,000,000 matches" in lines[0] and "100,000" in lines[0]
    path = write_config(tmp_path, matches=30)
    assert run(path, "--no-broker", "--max-planned", "20") == 2
    assert "30 matches" in errors_of(capsys)[0]
    assert run(path, "--check", "--max-planned", "30") == 0
    assert run(path, "--check", "--max-planned", "0") == 2
    assert errors_of(capsys)[-1] == "error: --max-planned: must be at least 1, not 0"
    assert not (tmp_path / "runs").exists()


def test_a_yaml_alias_bomb_is_refused_quickly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    levels = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, 9):  # 9^9 = 387 million strings once expanded
        levels.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
    body = "\n".join(levels)
    path = tmp_path / "bomb.yaml"
    path.write_text(
        f"game: toy\nagents: [{{name: a, kind: random}}]\noutput_dir: {tmp_path / 'runs'}\n"
        f"{body}\nrules: {{n_players: *a8}}\n",
        encoding="utf-8",
    )
    assert run(path, "--no-broker") == 2
    lines = errors_of(capsys)
    assert len(lines) == 1 and "expands to more than 100,000 values" in lines[0]
    assert not (tmp_path / "runs").exists()


def test_a_command_error_prints_user_text_as_text(tmp_path: Path, capsys: Any) -> None:
    """A path or name in an error message reaches the terminal without markup or escapes."""
    hostile = tmp_path / "[bold]x\x1b[2J"
    assert main(["runs", str(hostile)]) == 2
    err = capsys.readouterr().err
    assert "[bold]x" in err and "\x1b" not in err and "no such directory" in err
