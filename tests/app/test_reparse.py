"""``arena reparse``: a run recorded with a deliberately weaker parser, replayed with today's.

The run is a real Werewolf tournament: an LLM entry talks to a scripted server on 127.0.0.1
that wraps 30% of its (legal) answers in prose and a code fence. The entry parses strictly
(``json.loads`` of the whole reply), so a fenced reply was refused where only an option is an
answer (votes, night actions) and taken whole as speech where words are an answer; every plain
reply was accepted as meant. Today's parser reads the fenced answer inside. So the re-parse must
account for every fenced reply (recovered, or read as another move), recover the fallbacks that
only fenced replies caused, and refuse nothing that was accepted.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.cli import main
from arena.agents.base import Agent
from arena.agents.llm_agent import LLMAgent
from arena.llm.fakes.scripted import ScriptedEngine
from arena.llm.messages import ChatResult
from arena.llm.server import ServerThread
from arena.sinks import read_jsonl
from arena.types import Decision
from tournaments import config as tconfig
from tournaments.executor import Tournament


class StrictParsing(LLMAgent):
    """An LLM agent with a weaker parser: the whole reply must be one JSON object."""

    def answer_from(self, result: ChatResult, decision: Decision) -> dict[str, Any] | str:
        try:
            data = json.loads(result.text)
        except json.JSONDecodeError:
            return result.text.strip()
        return data if isinstance(data, dict) else result.text.strip()


class WeakTournament(Tournament):
    def make_agent(self, entry_name: str, seat: int) -> Agent:
        agent = super().make_agent(entry_name, seat)
        if isinstance(agent, LLMAgent):
            entry = self.config.entry(entry_name)
            return StrictParsing.from_params(entry_name, entry.params)
        return agent


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("reparse")
    engine = ScriptedEngine(seed=4, fault_rates={"fenced": 0.3})
    with ServerThread(engine) as server:
        backend = {"base_url": server.url, "model": "scripted", "max_retries": 0}
        cfg = tconfig.parse(
            {
                "name": "weak",
                "game": "werewolf",
                "rules": {"preset": "classic8"},
                "agents": [
                    {"name": "model", "kind": "llm", "params": {"backend": backend}},
                    {"name": "rule", "kind": "werewolf.rule"},
                ],
                "matches": 2,
                "master_seed": 9,
                "concurrency": 1,
                "output_dir": str(root),
            }
        )
        asyncio.run(WeakTournament(cfg, root / "weak", "weak").run())
    yield root / "weak"


def replies(run_dir: Path) -> list[dict[str, Any]]:
    return [
        e.payload
        for path in sorted((run_dir / "matches").glob("*.jsonl"))
        for e in read_jsonl(path)
        if e.type == "llm_call" and e.payload.get("status") == "ok"
    ]


def results(run_dir: Path) -> list[Any]:
    from arena.store import Store

    store = Store(run_dir / "arena.sqlite")
    try:
        return store.results()
    finally:
        store.close()


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_reparse_recovers_the_replies_a_weaker_parser_refused(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    calls = replies(recorded)
    fenced = sum(1 for c in calls if c["reply"].startswith("Sure! Here is my answer"))
    assert 5 <= fenced < len(calls)  # the run has both kinds of reply
    before = digest(recorded / "arena.sqlite")

    capsys.readouterr()
    assert main(["reparse", str(recorded), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    model = doc["entries"]["model"]
    assert model["calls"] == len(calls)
    assert model["refused_now_parse"] >= 1
    assert model["refused_now_parse"] + model["read_differently"] == fenced
    assert model["accepted_now_refused"] == 0
    fallbacks = sum(s.fallbacks for r in results(recorded) for s in r.seats)
    assert model["fallbacks_recovered"] == fallbacks  # only three fenced replies in a row fall back
    assert "rule" not in doc["entries"]  # a bot sends no replies
    assert digest(recorded / "arena.sqlite") == before
    assert not (recorded / "reparse").exists()  # reads only without --write


def test_reparse_write_stores_a_separate_result_set(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = digest(recorded / "arena.sqlite")
    assert main(["reparse", str(recorded), "--write"]) == 0
    sets = list((recorded / "reparse").iterdir())
    assert len(sets) == 1
    summary = json.loads((sets[0] / "summary.json").read_text())
    assert summary["parser"] == sets[0].name
    lines = (sets[0] / "verdicts.jsonl").read_text().splitlines()
    assert len(lines) == summary["entries"]["model"]["calls"]
    assert digest(recorded / "arena.sqlite") == before
    capsys.readouterr()
    assert main(["reparse", str(recorded), "--write"]) == 0  # the same parser: kept, not redone
    assert "already stored" in capsys.readouterr().out
