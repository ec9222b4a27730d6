"""The end-of-run LLM summary of `arena run`: per-call latency, tokens and tokens/s."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from app.cli import main
from app.llm_summary import summarise, summary_lines
from arena.llm.fakes.scripted import ScriptedEngine
from arena.llm.server import ServerThread


def call(agent: str = "smol", **kw: object) -> dict[str, object]:
    base: dict[str, object] = {"agent": agent, "backend": "local", "model": "SmolLM2",
                               "latency_s": 1.0, "tokens_in": 100, "tokens_out": 20, "ok": True}  # fmt: skip
    base.update(kw)
    return base


def test_figures_split_generated_ranked_failed_and_refused_calls() -> None:
    calls = [
        call(latency_s=2.0, tokens_out=30, tokens_cached=60),
        call(latency_s=1.0, tokens_out=10, refused="not speech"),
        call(latency_s=0.5, tokens_out=3, ranked=True, tokens_cached=90),
        call(latency_s=30.0, ok=False, tokens_in=0, tokens_out=0, model="local"),
        call("gpt", backend="openai", model="m", latency_s=0.2),
    ]
    smol, gpt = summarise(calls)
    assert (smol["agent"], smol["model"], gpt["agent"]) == ("smol", "SmolLM2", "gpt")
    assert (smol["calls"], smol["generated"], smol["ranked"], smol["failed"]) == (4, 2, 1, 1)
    assert smol["refused"] == 1
    assert smol["latency_mean_s"] == pytest.approx((2.0 + 1.0 + 0.5 + 30.0) / 4, abs=1e-3)
    assert (smol["latency_p50_s"], smol["latency_p95_s"]) == (1.0, 30.0)
    assert smol["tokens_in_mean"] == 100.0 and smol["cached_share"] == 0.5
    # generated replies only: 40 tokens in 3 s of their calls
    assert smol["tokens_out_mean"] == 20.0 and smol["tokens_per_s"] == pytest.approx(13.33)
    head, detail = summary_lines([smol])
    assert "4 calls (2 generated, 1 ranked, 1 failed, 1 refused as not speech)" in head
    assert "mean 8.38 s" in detail and "prompt 100 tokens (50% reused from the KV cache)" in detail
    assert "13.3 tokens/s" in detail


@pytest.fixture(scope="module")
def server() -> Iterator[ServerThread]:
    with ServerThread(ScriptedEngine(seed=1)) as srv:
        yield srv


def test_arena_run_prints_the_summary_of_its_llm_calls(
    server: ServerThread, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = {
        "name": "sum", "game": "toy", "rules": {"n_players": 3}, "matches": 2,
        "agents": [{"name": "bot", "kind": "random"},
                   {"name": "talker", "kind": "llm",
                    "params": {"backend": {"base_url": server.url, "model": "scripted"}}}],
        "output_dir": str(tmp_path / "runs"),
    }  # fmt: skip
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    assert main(["run", str(path), "--no-metrics", "--quiet", "--no-broker", "--run-id", "r"]) == 0
    out = capsys.readouterr().out
    recorded = [
        json.loads(line)
        for f in sorted((tmp_path / "runs" / "r" / "matches").glob("*.jsonl"))
        for line in f.read_text(encoding="utf-8").splitlines()
    ]
    n = sum(e["type"] == "llm_call" for e in recorded)
    assert n > 0
    assert f"LLM calls of talker (openai scripted): {n} calls ({n} generated, 0 ranked)" in out
    assert "latency per call mean" in out and "tokens/s" in out


def test_a_run_without_llm_entries_prints_no_llm_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = {"name": "bots", "game": "toy", "rules": {"n_players": 3}, "matches": 2,
           "agents": [{"name": "a", "kind": "random"}, {"name": "b", "kind": "toy.lowest"}],
           "output_dir": str(tmp_path / "runs")}  # fmt: skip
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    assert main(["run", str(path), "--no-metrics", "--quiet", "--no-broker"]) == 0
    assert "LLM calls" not in capsys.readouterr().out
