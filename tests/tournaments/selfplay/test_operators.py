"""The reflect operator's wrapper counts what a reflection spends: a scripted rule runs in
process (no LLM call, no token), a model-backed reflector one LLM call per reflected seat."""

from __future__ import annotations

from arena.llm.fakes.scripted import ScriptedEngine
from arena.llm.server import ServerThread
from arena.memory.reflect import LLMReflector, make_reflector
from arena.memory.trajectory import trajectory
from tests.arena.memory.test_reflect import aplay
from tournaments.selfplay.operators import TabuReflector


async def test_a_scripted_reflection_spends_no_llm_call_and_a_model_one_spends_one_per_seat() -> (
    None
):
    events = await aplay("dealornodeal", seed=3, kind="rule")
    trajs = [trajectory(events, seat) for seat in (0, 1)]
    for rule in ("scripted", "scripted:directives", "scripted:blame"):
        scripted = TabuReflector(make_reflector(rule), ["context x was rejected"])
        for traj in trajs:
            await scripted.propose(traj, [], 3, [])
        assert scripted.calls == 2 and scripted.chars_out > 0  # it did reflect
        assert (scripted.llm_calls, scripted.tokens_out) == (0, 0)
    with ServerThread(ScriptedEngine(seed=1)) as server:
        inner = LLMReflector({"base_url": server.url, "model": "scripted", "timeout_s": 30})
        model = TabuReflector(inner, [])
        for traj in trajs:
            await model.propose(traj, [], 3, [])
        await inner.close()
    assert model.llm_calls == model.calls == 2 and model.tokens_out > 0
