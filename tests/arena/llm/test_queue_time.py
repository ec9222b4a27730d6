"""A decision's time limit counts the model's work, not the wait in our own queue; the wait is
recorded; admission control keeps a server's own queue inside the limit.

Real servers on loopback: the scripted engine with latency, and with a capacity of its own."""

from __future__ import annotations

import asyncio

import openai  # noqa: F401  # imported here, not inside the first timed call

from arena.agents.llm_agent import LLMAgent
from arena.llm.backends.openai_backend import OpenAIBackend
from arena.llm.config import BackendConfig
from arena.llm.fakes.scripted import ScriptedEngine, parse_latency
from arena.llm.messages import ChatRequest, LLMError
from arena.llm.server import ServerThread
from arena.results import InvalidActionPolicy, MatchSpec
from arena.runner import MatchRunner
from tests.arena.toygame import ToyEngine


async def test_seats_queued_behind_a_busy_backend_do_not_time_out(scripted):
    """Eight seats vote at once through a backend that serves one call at a time, each in
    0.2 s: the last one waits 1.4 s, past the 1 s limit, which counts only its own call."""
    scripted.engine._latency = parse_latency("const:0.2")
    backend = scripted.config(concurrency=1).model_dump(mode="json")
    engine = ToyEngine({"n_players": 8, "rounds": 1}, seed=5)
    spec = MatchSpec(match_id="queue-5", game="toy", seed=5, seats=["llm"] * 8)
    agents = [LLMAgent(name=f"llm{i}", backend=backend) for i in range(8)]
    policy = InvalidActionPolicy(retries=0, fallback="random_legal", timeout_s=1.0)
    runner = MatchRunner(spec, agents, [], policy, engine=engine)
    result = await runner.run()
    events = runner.recorder.events
    assert result.status == "finished"
    refused = [e for e in events if e.type in ("invalid_action", "fallback")]
    assert refused == []
    calls = [e.payload for e in events if e.type == "llm_call"]
    assert {c["status"] for c in calls} == {"ok"}
    votes = [c for c in calls if c["decision"] == "vote"]
    assert len(votes) == 8
    # the queue is recorded: seven votes waited behind another, together at least 7 x 6 / 2
    # turns of 0.2 s (they leave one at a time)
    waited = sorted(c["queue_s"] for c in votes)
    assert waited[-1] > 1.0 and sum(waited) > 0.2 * 21 * 0.9
    assert all(0 <= c["queue_s"] <= c["latency_s"] for c in calls)


async def test_a_queue_that_never_moves_still_ends_in_a_timeout(scripted):
    """The queue wait has its own bound: a call stuck behind a hung one is cut, and says so."""
    scripted.engine._latency = parse_latency("const:0")
    scripted.faults("hang")
    backend = scripted.config(concurrency=1).model_dump(mode="json")
    engine = ToyEngine({"n_players": 2, "rounds": 1}, seed=2)
    spec = MatchSpec(match_id="stuck-2", game="toy", seed=2, seats=["llm"] * 2)
    agents = [LLMAgent(name=f"llm{i}", backend=backend) for i in range(2)]
    policy = InvalidActionPolicy(
        retries=0, fallback="random_legal", timeout_s=0.5, queue_timeout_s=0.3
    )
    runner = MatchRunner(spec, agents, [], policy, engine=engine)
    result = await runner.run()
    assert result.status == "finished"
    errors = [e.payload["error"] for e in runner.recorder.events if e.type == "invalid_action"]
    assert any(e.startswith("no answer within 0.5s") for e in errors)  # the hung call itself


def _capacity_server(latency: str) -> tuple[ServerThread, ScriptedEngine]:
    engine = ScriptedEngine(seed=3, latency=latency, capacity=1)
    return ServerThread(engine), engine


async def test_admission_keeps_a_slow_servers_queue_inside_the_time_limit():
    """A server that works on one request at a time (0.1 s each) queues the rest itself, where
    our clock cannot see. Forty-eight calls at once: the last ones wait there past the 4 s
    timeout. After that round the backend admits fewer calls at once, and the next round of
    48 all finish (the slowest at about half the timeout: room for a loaded machine)."""
    server, engine = _capacity_server("const:0.1")
    with server:
        config = BackendConfig(
            base_url=server.url, model="scripted", concurrency=48, timeout_s=4.0, max_retries=0
        )
        backend = OpenAIBackend(config)
        request = ChatRequest([{"role": "user", "content": "Legal ids: a | b"}], max_tokens=8)

        async def round_of(n: int) -> list[object]:
            return await asyncio.gather(
                *(backend.complete(request) for _ in range(n)), return_exceptions=True
            )

        try:
            first = await round_of(48)
            assert any(isinstance(r, LLMError) for r in first)  # more than the server serves
            assert backend.admission.limit < 48 and backend.admission.decreases >= 1
            # the server still works through the requests its clients gave up on: let it finish
            for _ in range(600):
                if engine.in_flight == 0:
                    break
                await asyncio.sleep(0.05)
            later = await round_of(48)
            assert [r for r in later if isinstance(r, BaseException)] == []
        finally:
            await backend.close()
