"""A local model's decisions are charged its own time, not the wall time other programs'
load stretches it to; a model that never answers is still stopped.

The model is scripted: a batch function that moves a fake wall clock and a fake CPU clock (the
clocks :class:`arena.llm.batcher.ComputeMeter` reads) as a contended machine would, behind the
real batcher, inside real matches (the toy game, the real runner and LLM agent).
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

from arena import deadline
from arena.agents.llm_agent import LLMAgent
from arena.llm.backends.base import Backend
from arena.llm.batcher import Batcher, ComputeMeter
from arena.llm.config import BackendConfig
from arena.llm.messages import ChatRequest, ChatResult
from arena.results import InvalidActionPolicy, MatchSpec
from arena.runner import MatchRunner
from tests.arena.toygame import ToyEngine

THREADS = 2


class FakeClocks:
    def __init__(self) -> None:
        self.wall = 0.0
        self.cpu = 0.0


class ScriptedLocal(Backend):
    """A local backend's shape: calls go through a batcher whose meter reads fake clocks. Each
    batch takes ``wall_s`` of (fake) wall time, of which the model had ``share`` of its CPUs."""

    kind = "scripted-local"

    def __init__(self, wall_s: float, share: float, hang: threading.Event | None = None) -> None:
        super().__init__(BackendConfig(model="scripted"))
        self.clocks = FakeClocks()
        self.wall_s, self.share, self.hang = wall_s, share, hang
        meter = ComputeMeter(THREADS, wall=lambda: self.clocks.wall, cpu=lambda: self.clocks.cpu)
        self.batcher = Batcher(self._run, window_s=0.0, max_batch=8, meter=meter)

    def _run(self, batch: list[ChatRequest]) -> list[ChatResult]:
        if self.hang is not None:
            self.hang.wait(30)  # bounded: the test sets it once the match is over
        self.clocks.wall += self.wall_s
        self.clocks.cpu += self.wall_s * self.share * THREADS
        return [ChatResult(text=(r.choices or ["I trust nobody."])[0]) for r in batch]

    async def _attempt(self, request: ChatRequest) -> ChatResult:
        return await self.batcher.submit(request)

    async def preflight(self) -> str:
        return "scripted"


async def play(
    backend: ScriptedLocal, timeout_s: float, queue_timeout_s: float | None = None
) -> tuple[Any, list[Any]]:
    engine = ToyEngine({"n_players": 2, "rounds": 1}, seed=3)
    spec = MatchSpec(match_id="busy-3", game="toy", seed=3, seats=["llm"] * 2)
    agents = [LLMAgent(name=f"llm{i}", decide="rank") for i in range(2)]
    for agent in agents:
        agent.backend = backend
    policy = InvalidActionPolicy(
        retries=0, fallback="random_legal", timeout_s=timeout_s, queue_timeout_s=queue_timeout_s
    )
    runner = MatchRunner(spec, agents, [], policy, engine=engine)
    result = await runner.run()
    backend.batcher.close()
    return result, runner.recorder.events


def calls(events: list[Any]) -> list[dict[str, Any]]:
    return [e.payload for e in events if e.type == "llm_call"]


def test_the_meter_charges_cpu_time_over_threads_never_more_than_wall_time() -> None:
    clocks = FakeClocks()

    def batch(wall: float, cpu: float):  # type: ignore[no-untyped-def]
        def run(requests: list[ChatRequest]) -> list[ChatResult]:
            clocks.wall += wall
            clocks.cpu += cpu
            return [ChatResult(text="x") for _ in requests]

        return run

    meter = ComputeMeter(THREADS, wall=lambda: clocks.wall, cpu=lambda: clocks.cpu)
    one = [ChatRequest(messages=[])]
    assert meter.run(batch(3.0, 6.0), one)[0].model_s == 3.0  # idle: all threads busy
    assert meter.run(batch(30.0, 6.0), one)[0].model_s == 3.0  # a tenth of the CPUs
    assert meter.run(batch(3.0, 9.0), one)[0].model_s == 3.0  # other threads: at most wall
    gpu = ComputeMeter(None, wall=lambda: clocks.wall, cpu=lambda: clocks.cpu)
    assert gpu.run(batch(4.0, 0.5), one)[0].model_s == 4.0


async def test_a_model_slowed_by_others_load_is_charged_its_own_time() -> None:
    """Each call takes 40 s of wall time at a tenth of the CPUs: 4 s of model time, inside
    the 5 s limit. Counting wall time, every call would have timed out."""
    result, events = await play(ScriptedLocal(wall_s=40.0, share=0.1), timeout_s=5.0)
    assert result.status == "finished"
    assert [e for e in events if e.type in ("invalid_action", "fallback")] == []
    done = calls(events)
    assert done and {c["status"] for c in done} == {"ok"}
    assert {c["model_s"] for c in done} == {4.0}


async def test_a_model_whose_own_time_passes_the_limit_times_out_and_says_so() -> None:
    result, events = await play(ScriptedLocal(wall_s=6.0, share=1.0), timeout_s=5.0)
    assert result.status == "finished"
    refused = [e.payload for e in events if e.type == "invalid_action"]
    assert refused and all("model's own time, 6.0s" in r["error"] for r in refused)
    assert {c["status"] for c in calls(events)} == {"timeout"}
    assert len([e for e in events if e.type == "fallback"]) == len(refused)


async def test_a_model_that_never_returns_is_stopped_by_the_wall_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(deadline, "MIN_CPU_SHARE", 0.5)  # a short wall bound: a short test
    hang = threading.Event()
    limit = 0.3  # the wall bound is limit / MIN_CPU_SHARE
    try:
        backend = ScriptedLocal(wall_s=0.0, share=1.0, hang=hang)
        result, events = await play(backend, limit, queue_timeout_s=0.3)
    finally:
        hang.set()
    assert result.status == "finished"
    refused = [e.payload for e in events if e.type == "invalid_action"]
    wall = f"{limit / deadline.MIN_CPU_SHARE:g}s"
    # the first call is cut by the wall bound; a call queued behind it by the queue's bound
    assert any(f"computed for more than {wall}" in r["error"] for r in refused)
    assert {c["status"] for c in calls(events)} == {"timeout"}
