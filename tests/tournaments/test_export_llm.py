"""Rows of LLM seats: the exact prompt sent, the reply, the call's accounting, the insights.

Played against the scripted ``arena serve`` on loopback (the fixtures of the LLM tests).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from arena.agents.llm_agent import LLMAgent
from arena.memory import Bank
from arena.results import MatchSpec
from arena.runner import MatchRunner
from arena.sinks import MemorySink
from tests.arena.toygame import ToyEngine
from tournaments.export import match_rows


async def test_llm_rows_hold_the_prompt_sent_the_reply_and_the_accounting(
    scripted: Any, tmp_path: Path
) -> None:
    bank = Bank(tmp_path / "bank.sqlite")
    ids = [bank.add("toy", t) for t in ("Vote for the quietest player.", "Say little.")]
    memory = {"bank": str(bank.path), "k": 2, "select": "all"}
    backend = scripted.config().model_dump(mode="json")
    agents = [LLMAgent(name=f"llm{i}", backend=backend, memory=memory) for i in range(3)]
    spec = MatchSpec(match_id="toy-llm", game="toy", seed=4, seats=["a", "b", "c"])
    sink = MemorySink()
    scripted.engine.keep_requests = True
    scripted.engine.requests.clear()
    try:
        runner = MatchRunner(spec, agents, [sink], None, engine=ToyEngine({"n_players": 3}, seed=4))
        result = await runner.run()
        sent = [json.dumps(r["messages"], sort_keys=True) for r in scripted.engine.requests]
    finally:
        scripted.engine.keep_requests = False
    rows = list(match_rows(sink.events, result))
    assert len(rows) == result.n_decisions > 0
    calls = [e.payload for e in sink.events if e.type == "llm_call"]
    assert sum(r["llm_calls"] for r in rows) == len(calls) == len(sent)
    # every row's prompt is one the server received (order-free: votes are concurrent)
    assert sorted(json.dumps(r["prompt"], sort_keys=True) for r in rows) == sorted(sent)
    version = bank.head()[0]
    for row in rows:
        assert row["model"] == "scripted" and row["llm_status"] == "ok"
        assert row["tokens_in"] > 0 and row["tokens_out"] > 0 and row["latency_s"] >= 0
        assert row["answer"] and row["prompt"][0]["role"] == "system"
        assert row["memory_version"] == version and row["memory_insights"] == ids
        name = result.seats[row["seat"]].name
        assert name in row["prompt"][0]["content"]  # its own briefing, nobody else's
    replies = {c["reply"] for c in calls}
    assert {r["answer"] for r in rows} <= replies
