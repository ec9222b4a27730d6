"""``arena export``: the command's flags, messages and exit codes."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from app.cli import main
from tests.builders import werewolf_config
from tournaments.executor import Tournament
from tournaments.rundir import run_lock


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cli-export")
    asyncio.run(Tournament(werewolf_config(root, matches=3), root / "run", "run").run())
    return root / "run"


def test_export_writes_a_seats_dataset_and_reports_progress(
    run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import datasets

    out = tmp_path / "hf"
    code = main(["export", str(run_dir), "--format", "hf", "--seat", "2", "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 0
    dataset = datasets.load_from_disk(str(out))
    assert len(dataset) > 0 and set(dataset["seat"]) == {2}
    assert f"exported {len(dataset)} rows from 3 matches (hf) to {out}" in captured.out
    assert "export: 3/3 matches" in captured.err  # headless progress lines
    assert "- filters: seat=2" in (out / "README.md").read_text(encoding="utf-8")


def test_export_defaults_to_parquet_under_the_run(
    run_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import pyarrow.parquet as pq

    argv = ["export", str(run_dir), "--agent", "rule", "--max-matches", "2", "--quiet"]
    assert main(argv) == 0
    table = pq.read_table(run_dir / "export" / "parquet" / "trajectories.parquet")
    assert set(table.column("agent").to_pylist()) == {"rule"}
    assert len(set(table.column("match_id").to_pylist())) == 2
    assert capsys.readouterr().err == ""
    assert main(["export", str(run_dir), "--max-matches", "0"]) == 2


@pytest.mark.parametrize("case", ["missing", "not a run", "locked", "unfinished"])
def test_a_run_that_cannot_be_exported_exits_2(
    case: str, run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = {"missing": tmp_path / "nope", "not a run": tmp_path}.get(case, run_dir)
    out = ["--out", str(tmp_path / "out")]
    if case == "locked":
        with run_lock(run_dir / "run.lock"):
            assert main(["export", str(run_dir), *out]) == 2
    elif case == "unfinished":
        t = Tournament(werewolf_config(tmp_path, matches=2), tmp_path / "half", "half")
        t.prepare().close()
        assert main(["export", str(tmp_path / "half"), *out]) == 2
    else:
        assert main(["export", str(target), *out]) == 2
    err = " ".join(capsys.readouterr().err.split())
    expected = {
        "missing": "no such directory",
        "not a run": "not a run directory",
        "locked": "is being run by another process",
        "unfinished": "arena run --resume",
    }[case]
    assert err.startswith("error:") and expected in err


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        (["--agent", "nobody"], "agents in this run: rnd, rule"),
        (["--role", "king"], "roles in this run: "),
        (["--seat", "99"], "seats in this run: 0, 1, 2, 3, 4, 5, 6, 7"),
        (["--agent", "rule", "--seat", "99"], "agents in this run: rnd, rule; seats"),
    ],
)
def test_an_export_that_keeps_no_row_is_an_error_and_writes_nothing(
    flags: list[str],
    expected: str,
    run_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "out"
    assert main(["export", str(run_dir), *flags, "--out", str(out), "--quiet"]) == 2
    captured = capsys.readouterr()
    err = " ".join(captured.err.split())
    assert err.startswith("error: no seat matches") and expected in err, err
    assert not out.exists() and captured.out == ""


def test_a_refused_export_leaves_an_earlier_one_in_place(
    run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    argv = ["export", str(run_dir), "--format", "jsonl", "--out", str(out), "--quiet"]
    assert main([*argv, "--seat", "1"]) == 0
    before = sorted(p.name for p in out.iterdir())
    assert main([*argv, "--agent", "nobody", "--force"]) == 2
    assert sorted(p.name for p in out.iterdir()) == before
    capsys.readouterr()
