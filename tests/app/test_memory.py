"""`arena memory ...` end to end on a bank grown by reflecting on real match records."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

import pytest

from app.cli import main
from arena import registry
from arena.agents import factory
from arena.results import MatchSpec
from arena.runner import MatchRunner
from arena.sinks import JsonlSink


def record_run(tmp: Path, game: str = "werewolf", seeds: tuple[int, ...] = (3, 4)) -> Path:
    run = tmp / "run"
    for seed in seeds:
        engine = registry.engine_class(game)({}, seed=seed)
        n = engine.n_seats
        spec = MatchSpec(
            match_id=f"m{seed}", run_id="r", game=game, seed=seed, seats=[f"b{i}" for i in range(n)]
        )
        agents = [factory.build(f"b{i}", "random", game) for i in range(n)]
        sink = JsonlSink(run / "matches" / f"m{seed}.jsonl")
        asyncio.run(MatchRunner(spec, agents, [sink], engine=engine).run())
    return run


def out_lines(capsys: pytest.CaptureFixture[str]) -> list[str]:
    return [ln for ln in capsys.readouterr().out.splitlines() if ln.strip()]


def test_reflect_list_show_history_diff_verify(tmp_path: Path, capsys) -> None:
    run = record_run(tmp_path)
    bank = str(tmp_path / "bank.sqlite")
    assert main(["memory", "add", bank, "werewolf/villager", "Vote with the majority."]) == 0
    first = out_lines(capsys)[-1]
    assert main(["memory", "reflect", bank, str(run)]) == 0
    reports = [json.loads(x) for x in out_lines(capsys)]
    assert len(reports) == 16 and {r["match_id"] for r in reports} == {"m3", "m4"}
    assert main(["memory", "list", bank, "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows and all(r["status"] == "active" for r in rows)
    assert any(r["provenance"] and r["provenance"][0]["match_id"] in ("m3", "m4") for r in rows)
    assert main(["memory", "list", bank, "--namespace", "werewolf/villager", "--json"]) == 0
    assert first in {r["id"] for r in json.loads(capsys.readouterr().out)}
    assert main(["memory", "show", bank, first]) == 0
    assert json.loads(capsys.readouterr().out)["text"] == "Vote with the majority."
    assert main(["memory", "history", bank, first]) == 0
    assert json.loads(out_lines(capsys)[0])["op"] == "add"
    assert main(["memory", "diff", bank, "1"]) == 0
    changes = [json.loads(x) for x in out_lines(capsys)]
    assert changes and {c["change"] for c in changes} <= {"added", "changed"}
    assert main(["memory", "list", bank]) == 0  # the table renders
    capsys.readouterr()
    assert main(["memory", "verify", bank]) == 0
    assert out_lines(capsys)[0].startswith("ok:")


def test_verify_exits_1_on_an_edited_row_and_export_import_keeps_the_chain(
    tmp_path: Path, capsys
) -> None:
    bank = tmp_path / "bank.sqlite"
    for text in ("One.", "Two.", "Three."):
        assert main(["memory", "add", str(bank), "toy", text]) == 0
    exported = tmp_path / "bank.jsonl"
    assert main(["memory", "export", str(bank), "--out", str(exported)]) == 0
    copy = tmp_path / "copy.sqlite"
    assert main(["memory", "import", str(copy), str(exported)]) == 0
    capsys.readouterr()
    assert main(["memory", "verify", str(copy)]) == 0
    head = out_lines(capsys)[0].split()[-1]
    assert main(["memory", "verify", str(bank), "--expect", head]) == 0
    conn = sqlite3.connect(bank)
    conn.execute("DROP TRIGGER ops_append_only_update")
    conn.execute("UPDATE ops SET payload = replace(payload, 'Two.', 'Deux.') WHERE version = 2")
    conn.commit()
    conn.close()
    capsys.readouterr()
    assert main(["memory", "verify", str(bank)]) == 1
    assert "BROKEN at version 2" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["memory", "list", str(tmp_path / "missing.sqlite")])


def test_ablate_measures_each_insight_on_the_configs_units_and_retires_the_harmful(
    tmp_path: Path, capsys
) -> None:
    import yaml

    from arena.llm.fakes.directives import DirectiveEngine
    from arena.llm.server import ServerThread
    from arena.memory import Bank
    from tests.arena.memory.directed import HELPS, HURTS, NOTHING

    bank = Bank(tmp_path / "bank.sqlite")
    ids = [bank.add("dealornodeal", t) for t in (HELPS, NOTHING, HURTS)]
    with ServerThread(DirectiveEngine(seed=1)) as server:
        raw = {
            "name": "abl",
            "game": "dealornodeal",
            "agents": [
                {
                    "name": "llm",
                    "kind": "llm",
                    "params": {
                        "backend": {"base_url": server.url, "model": "scripted"},
                        "memory": {"bank": str(bank.path), "select": "all", "k": None},
                    },
                },
                {"name": "bot", "kind": "rule"},
            ],
            "lineups": [{"vs": ["llm", "bot"]}],
            "matches": 60,
            "master_seed": 5,
        }
        cfg = tmp_path / "abl.yaml"
        cfg.write_text(yaml.safe_dump(raw), encoding="utf-8")
        capsys.readouterr()
        argv = ["memory", "ablate", str(bank.path), str(cfg), "--whole", "--retire"]
        assert main([*argv, "--rounds", "2"]) == 0
        rows = [json.loads(x) for x in out_lines(capsys)]
        # --whole-only: two arms, on held-out units of another master seed, nothing written
        # but the whole bank's effect
        held = ["memory", "ablate", str(bank.path), str(cfg), "--whole-only", "--units", "8"]
        assert main([*held, "--master-seed", "99"]) == 0
        (only,) = [json.loads(x) for x in out_lines(capsys)]
        assert only["insight"] == "whole bank" and only["n"] == 8
        assert sorted(only["ids"]) == sorted([ids[0], ids[1]])  # what round 0 left
    by = {tuple(r["ids"]): r for r in rows if "ids" in r and r["round"] == 0}
    # round 1 measures again what round 0 left: the harmful insight is gone from it
    again = {tuple(r["ids"]) for r in rows if "ids" in r and r["round"] == 1}
    assert (ids[0],) in again and (ids[1],) in again and (ids[2],) not in again
    hurts, nothing = by[(ids[2],)], by[(ids[1],)]
    assert hurts["hi"] < 0 and hurts["n"] == 60
    assert nothing["delta"] == 0 and nothing["lo"] <= 0 <= nothing["hi"]
    assert tuple(ids) in by  # the whole bank against no memory
    assert {"round": 0, "retired": ids[2]} in rows
    snap = Bank(bank.path).at()
    assert snap.get(ids[2]).status == "retired" and snap.get(ids[2]).effect.hi < 0
    assert snap.get(ids[1]).effect.delta == 0  # its own effect, not the whole bank's
    with pytest.raises(SystemExit):
        main(["memory", "ablate", str(tmp_path / "none.sqlite"), str(cfg)])


def file_state(path: Path) -> tuple[str, list[str]]:
    """The bank file's bytes (as a hash) and every file beside it (no -wal/-shm/-journal)."""
    import hashlib

    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    return digest, sorted(p.name for p in path.parent.iterdir())


@pytest.mark.parametrize("journal", ["wal", "delete"])
def test_the_inspecting_commands_never_change_the_bank_file(
    tmp_path: Path, capsys, journal: str
) -> None:
    from arena.memory import Bank

    path = tmp_path / "bank.sqlite"
    bank = Bank(path)
    first = bank.add("toy", "One.")
    bank.add("toy", "Two.")
    bank.close()
    conn = sqlite3.connect(path)
    conn.execute("DROP TRIGGER ops_append_only_update")  # the chain is intact; the file altered
    conn.execute(f"PRAGMA journal_mode={journal}")  # e.g. a copy made by another tool
    conn.close()
    before = file_state(path)
    readers = [
        ["list"],
        ["list", "--json"],
        ["show", first],
        ["history", first],
        ["diff", "1"],
        ["verify"],
        ["export"],
        ["export", "--out", str(tmp_path.parent / f"{journal}-out.jsonl")],
    ]
    for argv in readers:
        assert main(["memory", argv[0], str(path), *argv[1:]]) == 0, argv
        assert file_state(path) == before, argv
    assert "ok: 2 operations" in capsys.readouterr().out


def exit_code(argv: list[str]) -> int | str | None:
    try:
        return main(argv)
    except SystemExit as stop:  # the memory commands stop with the exit code
        return stop.code


def tamper(path: Path, version: int, old: str, new: str) -> None:
    """What a tamperer does: drop the append-only trigger, rewrite a row's text in place."""
    conn = sqlite3.connect(path)
    conn.execute("DROP TRIGGER ops_append_only_update")
    conn.execute(
        "UPDATE ops SET payload = replace(payload, ?, ?) WHERE version = ?", (old, new, version)
    )
    conn.commit()
    conn.close()


def test_a_tampered_bank_is_refused_by_run_and_by_every_reader(tmp_path: Path, capsys) -> None:
    import yaml

    from arena.llm.fakes.directives import DirectiveEngine
    from arena.llm.server import ServerThread
    from arena.memory import Bank
    from tests.arena.memory.directed import HELPS, NOTHING

    path = tmp_path / "bank.sqlite"
    bank = Bank(path)
    first = bank.add("dealornodeal", NOTHING)
    bank.add("dealornodeal", HELPS)
    bank.close()
    runs = tmp_path / "runs"
    with ServerThread(DirectiveEngine(seed=1)) as server:
        raw = {
            "name": "mem",
            "game": "dealornodeal",
            "agents": [
                {
                    "name": "llm",
                    "kind": "llm",
                    "params": {
                        "backend": {"base_url": server.url, "model": "scripted"},
                        "memory": {"bank": str(path), "select": "all", "k": None},
                    },
                },
                {"name": "bot", "kind": "rule"},
            ],
            "lineups": [{"vs": ["llm", "bot"]}],
            "matches": 2,
            "master_seed": 5,
            "output_dir": str(runs),
        }
        cfg = tmp_path / "mem.yaml"
        cfg.write_text(yaml.safe_dump(raw), encoding="utf-8")
        argv = ["run", str(cfg), "--no-broker", "--no-metrics", "--quiet"]
        assert main([*argv, "--run-id", "good"]) == 0  # the intact bank is used
        tamper(path, 2, "Avoid walk_away", "Prefer walk_away")
        capsys.readouterr()
        for args in ([*argv, "--run-id", "bad"], [*argv, "--check"]):
            assert main(args) == 2, args
            err = capsys.readouterr().err
            assert str(path) in err.replace("\n", "") and "version 2" in err, err
    assert sorted(p.name for p in runs.iterdir()) == ["good"]  # nothing run, nothing written
    readers = (["list"], ["show", first], ["history", first], ["diff", "1"], ["export"])
    writers = (["add", "dealornodeal", "More."], ["reflect", str(runs / "good")])
    for argv in (*readers, *writers):
        assert exit_code(["memory", argv[0], str(path), *argv[1:]]) == 2, argv
        err = capsys.readouterr().err
        assert "version 2" in err and "arena memory verify" in err, err
    assert main(["memory", "verify", str(path)]) == 1
