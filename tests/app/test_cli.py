"""The `arena` entry point: a closed output pipe ends every command quietly."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli import EXIT_CLOSED_PIPE

ROOT = Path(__file__).resolve().parents[2]


def run_with_closed_stdout(*argv: str) -> tuple[int, str]:
    """Run ``arena ARGV`` with its stdout a pipe nobody reads (closed before it writes)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "app.cli", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        env=env,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone before the first write: every write fails
    err = proc.stderr.read().decode()
    proc.stderr.close()
    return proc.wait(timeout=120), err


@pytest.mark.parametrize("argv", [("envs", "--json"), ("envs",)])
def test_a_closed_pipe_ends_quietly(argv: tuple[str, ...]) -> None:
    """print() and rich consoles alike: no traceback, the shell's code for a closed pipe."""
    code, err = run_with_closed_stdout(*argv)
    assert err == ""
    assert code == EXIT_CLOSED_PIPE


def every_parser() -> list[tuple[str, argparse.ArgumentParser]]:
    from app.cli import build_parser

    found: list[tuple[str, argparse.ArgumentParser]] = []

    def walk(parser: argparse.ArgumentParser, path: str) -> None:
        found.append((path, parser))
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, f"{path} {name}")

    walk(build_parser(), "arena")
    return found


def test_help_text_prints_percent_signs_once_everywhere() -> None:
    """argparse %-formats `help=` but not `description=`: `95%%` must show as `95%`."""
    doubled = [
        (path, line.strip())
        for path, parser in every_parser()
        for line in parser.format_help().splitlines()
        if "%%" in line
    ]
    assert doubled == []
    assert len(every_parser()) > 20  # every command and subcommand was walked


def test_counts_read_right_in_the_singular(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import yaml

    config = tmp_path / "one.yaml"
    doc = {
        "name": "one",
        "game": "toy",
        "rules": {"n_players": 2},
        "agents": [{"name": "a", "kind": "random"}, {"name": "b", "kind": "toy.lowest"}],
        "matches": 1,
        "output_dir": str(tmp_path / "runs"),
    }
    config.write_text(yaml.safe_dump(doc), encoding="utf-8")
    from app.cli import main

    assert main(["run", str(config), "--check"]) == 0
    assert "config ok: 1 match planned" in capsys.readouterr().out
    assert main(["run", str(config), "--quiet", "--no-broker", "--no-metrics"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "(1 match, concurrency" in out and "1/1 match finished" in out
