"""``arena selfplay``: bad input is one message per problem, exit 2 and nothing written; the
dry run prints an estimate and writes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from app.cli import main


def test_bad_config_exits_2_with_each_problem_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    cfg = tmp_path / "bad.yaml"
    cfg.write_text(
        yaml.safe_dump(
            {
                "game": "dealornodeal",
                "base": {"kind": "rule"},
                "panel": [{"name": "bot", "kind": "nosuch"}],
                "operators": {"mutate": 1},
            }
        )
    )
    assert main(["selfplay", str(cfg), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 3 and all(line.startswith("error: ") for line in err)
    assert "base.kind" in err[0] and "panel.0.kind" in err[1] and "operators.mutate" in err[2]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.yaml"]
    assert main(["selfplay", "--resume", str(tmp_path / "nothing")]) == 2


def test_dry_run_prints_the_estimate_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = tmp_path / "ok.yaml"
    cfg.write_text(
        yaml.safe_dump(
            {
                "game": "dealornodeal",
                "base": {"kind": "llm", "params": {}},
                "styles": ["Be brief."],
                "panel": [{"name": "bot", "kind": "rule"}],
                "population": 4,
                "elites": 1,
                "generations": 3,
                "units": {"train": 2, "select": 4, "gate": 10},
            }
        )
    )
    assert main(["selfplay", str(cfg), "--dry-run", "--json", "--out", str(tmp_path / "out")]) == 0
    est = json.loads(capsys.readouterr().out)
    # 3 generations x 4 candidates x (2 + 4 seeds) x 2 seats; gate: 10 seeds x 2 seats x 4
    assert est["games"]["play"] == 3 * 4 * 6 * 2
    assert est["games"]["gate"] == 10 * 2 * 4
    assert est["steps_per_game"] > 0 and est["total_llm_calls"] > 0
    # without --json: the same figures in words
    assert main(["selfplay", str(cfg), "--dry-run", "--out", str(tmp_path / "out")]) == 0
    text = capsys.readouterr().out
    assert text.startswith("dry run, nothing written")
    assert f"games:      {est['total_games']:,} (play {est['games']['play']:,} · gate" in text
    assert not (tmp_path / "out").exists()


def test_a_cli_run_plots_and_its_champion_exports_to_a_config_arena_run_plays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.llm.fakes.context import ContextEngine
    from arena.llm.server import ServerThread
    from arena.store import Store
    from tests.tournaments.selfplay.selfplay_setup import seed_bank, small_config, write_config

    monkeypatch.chdir(tmp_path)
    root = tmp_path / "sp"
    with ServerThread(ContextEngine(seed=1)) as server:
        raw = small_config(server.url, seed_bank(tmp_path / "seed.sqlite"))
        cfg = write_config(tmp_path / "sp.yaml", raw)
        assert main(["selfplay", "plot", str(tmp_path)]) == 2  # not a self-play directory
        # --tui without a terminal (as under pytest) runs headless with the progress lines
        assert main(["selfplay", str(cfg), "--out", str(root), "--no-broker", "--tui"]) == 0
        err = capsys.readouterr().err
        assert "no terminal attached: running without the TUI" in err
        assert "repeat 0 gen 1:" in err
        for name in ("selfplay_population.png", "selfplay_champion.png", "selfplay_budget.png"):
            assert (root / "plots" / name).read_bytes()[:4] == b"\x89PNG"
        capsys.readouterr()
        assert main(["selfplay", "plot", str(root)]) == 0
        assert capsys.readouterr().out.split() == [
            str(root / "plots" / n)
            for n in ("selfplay_population.png", "selfplay_champion.png", "selfplay_budget.png")
        ]
        champion = json.loads((root / "r0" / "result.json").read_text())["champion"]["id"]
        assert main(["selfplay", "export", str(root), "--run-config"]) == 0
        run = yaml.safe_load(capsys.readouterr().out)
        run["output_dir"] = str(tmp_path / "runs")
        run_cfg = tmp_path / "champion.yaml"
        run_cfg.write_text(yaml.safe_dump(run))
        assert main(["run", str(run_cfg), "--no-broker", "--quiet", "--run-id", "champ"]) == 0
    store = Store(tmp_path / "runs" / "champ" / "arena.sqlite")
    results = store.results()
    store.close()
    assert len(results) == 4 and all(r.status == "finished" for r in results)  # gate: 4 seeds
    assert all(champion in [s.agent for s in r.seats] for r in results)
    assert {r.seats[0].agent for r in results} == {champion, "bot"}  # both seats played


def test_selfplay_records_its_bank_heads_and_refuses_a_cut_back_or_tampered_bank(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import sqlite3

    from arena.llm.fakes.context import ContextEngine
    from arena.llm.server import ServerThread
    from arena.memory.bank import open_reader
    from tests.tournaments.selfplay.selfplay_setup import seed_bank, small_config, write_config

    root = tmp_path / "sp"
    seed = seed_bank(tmp_path / "seed.sqlite")
    with ServerThread(ContextEngine(seed=1)) as server:
        cfg = write_config(tmp_path / "sp.yaml", small_config(server.url, seed))
        argv = ["selfplay", str(cfg), "--no-broker", "--no-plots", "--no-metrics"]
        assert main([*argv, "--out", str(root)]) == 0
    out = capsys.readouterr().out
    bank = root / "r0" / "bank.sqlite"
    reader = open_reader(bank)
    version, head = reader.head()
    reader.close()
    record = json.loads((root / "banks" / "r0.head.json").read_text(encoding="utf-8"))
    assert (record["bank"], record["version"], record["head_hash"]) == (
        str(bank.resolve()),
        version,
        head,
    )
    assert head in out.replace("\n", "")
    conn = sqlite3.connect(bank)  # the newest row cut off
    conn.execute("DROP TRIGGER ops_append_only_delete")
    conn.execute("DELETE FROM ops WHERE version = ?", (version,))
    conn.commit()
    conn.close()
    assert main(["selfplay", "--resume", str(root), "--no-broker"]) == 2
    assert "truncated" in capsys.readouterr().err
    conn = sqlite3.connect(seed)  # the seed bank's second insight rewritten in place
    conn.execute("DROP TRIGGER ops_append_only_update")
    conn.execute("UPDATE ops SET payload = replace(payload, 'courteous', 'rude') WHERE version = 2")
    conn.commit()
    conn.close()
    assert main([*argv, "--out", str(tmp_path / "other")]) == 2
    err = capsys.readouterr().err
    assert "seed_context.bank" in err and "version 2" in err
    assert not (tmp_path / "other").exists()


def test_the_generation_line_says_its_totals_are_the_run_so_far(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from app.commands.selfplay import _progress_line

    summary = {"repeat": 0, "generation": 1, "incumbent": "c-1", "candidates": [{}, {}],
               "gate": None, "budget": {"total": {"games": 8, "llm_calls": 14}}}  # fmt: skip
    _progress_line(summary)
    line = capsys.readouterr().err
    assert "repeat 0 gen 1: 2 candidates, incumbent c-1, no gate test;" in line
    assert line.strip().endswith("run so far: 8 games, 14 LLM calls")
    # fewer candidates than the population: the line says so and where the reasons are
    _progress_line({**summary, "population": 3})
    line = capsys.readouterr().err
    assert "2 candidates (1 slot(s) unfilled: g001/proposals.json says why)," in line
