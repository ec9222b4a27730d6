"""Execution: the priority gate, LLM call counting, progress, the global concurrency limit."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from arena import priority
from arena.agents.base import Agent
from arena.events import GameEvent, Visibility
from arena.types import Action, Decision, Observation
from tests.builders import make_config
from tournaments.executor import Tournament
from tournaments.progress import Progress


async def test_the_gate_admits_the_earliest_started_match_first() -> None:
    gate = priority.PriorityGate(1)
    order: list[int] = []
    await gate.acquire(0)  # the slot is busy

    async def call(p: int) -> None:
        async with gate.slot(p):
            order.append(p)

    tasks = [asyncio.create_task(call(p)) for p in (7, 3, 9, 1)]
    await asyncio.sleep(0)
    assert gate.waiting == 4
    gate.release()
    await asyncio.gather(*tasks)
    assert order == [1, 3, 7, 9]
    assert gate.active == 0


async def test_the_gate_never_exceeds_its_limit_and_survives_cancellation() -> None:
    gate = priority.PriorityGate(2)
    peak = 0

    async def call(p: int) -> None:
        nonlocal peak
        async with gate.slot(p):
            peak = max(peak, gate.active)
            await asyncio.sleep(0.001)

    tasks = [asyncio.create_task(call(p % 5)) for p in range(20)]
    await asyncio.sleep(0)
    tasks[7].cancel()
    tasks[12].cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    assert peak == 2 and gate.active == 0 and gate.waiting == 0


async def test_priority_comes_from_the_match_context_and_untagged_calls_go_last() -> None:
    gate = priority.gate("test-backend", limit=1)
    assert priority.gate("test-backend", limit=1) is gate
    await gate.acquire(0)
    order: list[str] = []

    async def call(tag: int | None, label: str) -> None:
        priority.match_priority.set(tag)
        async with gate.slot():
            order.append(label)

    tasks = [
        asyncio.create_task(call(None, "outside")),
        asyncio.create_task(call(5, "late")),
        asyncio.create_task(call(2, "early")),
    ]
    await asyncio.sleep(0)
    gate.release()
    await asyncio.gather(*tasks)
    assert order == ["early", "late", "outside"]


def test_a_gate_needs_a_positive_limit() -> None:
    with pytest.raises(ValueError):
        priority.PriorityGate(0)


class GatedLlm(Agent):
    """A fake LLM agent: each answer takes a gated 'call' and emits an llm_call event."""

    kind = "gated"
    log: list[tuple[int, int]] = []  # (match priority, call number)

    def __init__(self, name: str | None = None, **params: Any) -> None:
        super().__init__(name, **params)
        self.calls = 0

    async def act(self, observation: Observation, decision: Decision) -> Action | str:
        gate = priority.gate("fake", limit=2)
        async with gate.slot():
            GatedLlm.log.append((priority.match_priority.get() or 0, self.calls))
            await asyncio.sleep(0.002)
        self.calls += 1
        return decision.options[0].id


def test_in_flight_matches_get_their_calls_before_new_matches_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cfg = make_config(tmp_path, matches=8, concurrency=8)
    t = Tournament(cfg, tmp_path / "p", "p")
    monkeypatch.setattr(t, "make_agent", lambda name, seat: GatedLlm(name))
    GatedLlm.log = []
    asyncio.run(t.run())
    log = GatedLlm.log
    lasts = {m: i for i, (m, _) in enumerate(log)}
    # matches finish in start order, and the first ones long before a fair share would
    assert [m for m, _ in sorted(lasts.items(), key=lambda kv: kv[1])] == sorted(lasts)
    # (arrival order would interleave all eight: each would finish in the last ~10%)
    assert lasts[1] < len(log) * 0.5 and lasts[2] < len(log) * 0.6


def test_llm_calls_are_counted_into_the_progress(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.runner import MatchRecorder

    cfg = make_config(tmp_path, matches=3)
    original = MatchRecorder.record

    def record(self: MatchRecorder, draft: GameEvent) -> Any:
        event = original(self, draft)
        if draft.type == "decision":
            original(
                self, GameEvent(type="llm_call", phase=draft.phase, visibility=Visibility.god())
            )
        return event

    monkeypatch.setattr(MatchRecorder, "record", record)
    seen: list[tuple[int, int, int]] = []
    progress = Progress(total=0, on_change=lambda p: seen.append((p.done, p.running, p.llm_calls)))
    results = asyncio.run(Tournament(cfg, tmp_path / "c", "c").run(progress))
    assert progress.llm_calls == sum(r.n_decisions for r in results) > 0
    assert progress.total == 3 and progress.done == 3 and progress.llm_rate() > 0
    assert max(r for _, r, _ in seen) >= 1 and seen[-1][0] == 3
    assert progress.eta_s() == 0


def test_the_global_concurrency_limit_holds(tmp_path: Path) -> None:
    cfg = make_config(tmp_path, matches=10, concurrency=3)
    peak = 0

    def watch(p: Progress) -> None:
        nonlocal peak
        peak = max(peak, p.running)

    asyncio.run(Tournament(cfg, tmp_path / "l", "l").run(Progress(total=0, on_change=watch)))
    assert peak == 3
