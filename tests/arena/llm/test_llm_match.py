"""Full matches with LLM agents against the scripted server, through MatchRunner."""

from __future__ import annotations

from typing import Any

import pytest

from arena.agents.llm_agent import LLMAgent
from arena.results import InvalidActionPolicy, MatchSpec
from arena.runner import MatchRunner
from tests.arena.toygame import ToyEngine


def agents(backend: dict[str, Any], n: int, **params: Any) -> list[LLMAgent]:
    return [LLMAgent(name=f"llm{i}", backend=backend, **params) for i in range(n)]


def backend_cfg(scripted, **kw: Any) -> dict[str, Any]:
    return scripted.config(**kw).model_dump(mode="json")


async def run_toy(scripted, seed: int = 3, policy=None, **kw: Any):
    engine = ToyEngine({"n_players": 3}, seed=seed)
    spec = MatchSpec(match_id=f"toy-{seed}", game="toy", seed=seed, seats=["a", "b", "c"])
    runner = MatchRunner(spec, agents(backend_cfg(scripted, **kw), 3), [], policy, engine=engine)
    result = await runner.run()
    return result, runner.recorder.events


def llm_calls(events):
    return [e for e in events if e.type == "llm_call"]


async def test_toy_match_finishes_with_one_accounted_call_per_decision(scripted):
    result, events = await run_toy(scripted)
    assert result.status == "finished"
    calls = llm_calls(events)
    decisions = [e for e in events if e.type == "decision"]
    assert len(calls) == len(decisions) == result.n_decisions
    assert all(e.visibility.scope == "god" for e in calls)
    assert all(c.payload["tokens_in"] > 0 and c.payload["ok"] for c in calls)
    assert not [e for e in events if e.type in ("invalid_action", "fallback")]
    speech = [e for e in events if e.type == "message"]
    assert speech, "the scripted server speaks on speech decisions"


async def test_mid_match_faults_are_retried_and_recorded(scripted):
    scripted.engine.fault_rates = {"500": 0.2, "429": 0.1, "malformed": 0.1}
    scripted.engine.retry_after_s = 0.01
    result, events = await run_toy(scripted, seed=4, max_retries=8)
    assert result.status == "finished"
    retried = [c for c in llm_calls(events) if c.payload["retries"] > 0]
    assert retried and all(c.payload["transport_errors"] for c in retried)


async def test_a_dead_backend_falls_back_per_policy_and_the_match_still_finishes(scripted):
    scripted.engine.fault_rates = {"500": 1.0}
    policy = InvalidActionPolicy(retries=1, fallback="random_legal")
    result, events = await run_toy(scripted, seed=5, policy=policy, max_retries=0)
    assert result.status == "finished"
    fallbacks = [e for e in events if e.type == "fallback"]
    assert len(fallbacks) == result.n_decisions
    failed = [c for c in llm_calls(events) if not c.payload["ok"]]
    assert len(failed) == 2 * result.n_decisions  # first ask + one re-ask, each recorded


async def test_forfeit_policy_ends_the_match_with_a_reason(scripted):
    scripted.engine.fault_rates = {"500": 1.0}
    policy = InvalidActionPolicy(retries=0, fallback="forfeit")
    result, _ = await run_toy(scripted, seed=6, policy=policy, max_retries=0)
    assert result.status == "forfeited" and "HTTP 500" in (result.reason or "")


def _strip(event) -> dict[str, Any]:
    data = event.comparable()
    for key in ("cache", "retries", "transport_errors"):
        data["payload"].pop(key, None)
    return data


async def test_replay_only_cache_reproduces_the_match_event_for_event(scripted, tmp_path):
    path = str(tmp_path / "replay.sqlite")
    scripted.engine.fault_rates = {"500": 0.2}
    first, events1 = await run_toy(
        scripted, seed=8, max_retries=8, cache={"mode": "read_write", "path": path}
    )
    scripted.engine.fault_rates = {"500": 1.0}  # the server is now useless: only the cache answers
    second, events2 = await run_toy(
        scripted, seed=8, max_retries=0, cache={"mode": "replay_only", "path": path}
    )
    assert first.status == second.status == "finished"
    assert [_strip(e) for e in events1] == [_strip(e) for e in events2]
    assert all(c.payload["cache"] == "hit" for c in llm_calls(events2))


async def test_werewolf_match_with_llm_agents_against_the_scripted_server(scripted):
    pytest.importorskip("games.werewolf.rules")
    from games.werewolf.rules import WerewolfEngine

    engine = WerewolfEngine({"max_days": 3}, seed=11)
    spec = MatchSpec(match_id="ww-11", game="werewolf", seed=11, seats=["llm"] * engine.n_seats)
    cfg = backend_cfg(scripted)
    runner = MatchRunner(spec, agents(cfg, engine.n_seats), [], engine=engine)
    result = await runner.run()
    events = runner.recorder.events
    assert result.status == "finished"
    assert result.outcome in ("village_win", "wolves_win", "draw_cap", "draw")
    assert not [e for e in events if e.type in ("invalid_action", "fallback")]
    kinds = {e.payload["decision"] for e in llm_calls(events)}
    assert {"vote", "speak"} <= kinds
    assert any(e.type == "belief_report" for e in events)
    # the wolves' briefing names the partner; a villager's never names a wolf
    wolf = next(s for s, r in engine.roles().items() if r == "werewolf")
    villager = next(s for s, r in engine.roles().items() if r == "villager")
    prompts = {}
    for seat in (wolf, villager):
        obs = runner.observation(seat)
        agent = runner.agents[seat]
        prompts[seat] = agent._system(obs)
    assert "fellow wolves" in prompts[wolf] and "fellow wolves" not in prompts[villager]


async def test_preflight_of_config_entries_rejects_a_wrong_model(scripted):
    from arena.errors import ConfigError
    from arena.llm.preflight import preflight_entries
    from tournaments.config import AgentEntry

    good = AgentEntry(name="ok", kind="llm", params={"backend": backend_cfg(scripted)})
    bad = AgentEntry(
        name="bad", kind="llm", params={"backend": backend_cfg(scripted, model="missing-model")}
    )
    rnd = AgentEntry(name="rnd", kind="random")
    assert len(await preflight_entries([good, rnd])) == 1
    with pytest.raises(ConfigError, match=r"agent bad: .*missing-model"):
        await preflight_entries([good, bad, rnd])


async def test_calls_cut_by_the_runner_timeout_are_recorded_with_a_status(scripted):
    """Issue 15, item 11: a call the runner's timeout cancels used to leave no llm_call."""
    from arena.llm.fakes.scripted import parse_latency

    # every reply takes 1 s; the runner waits 0.4 s per ask, then falls back (room enough, on
    # a loaded machine, for each request to leave before it is cut: the record says "sent")
    scripted.engine._latency = parse_latency("const:1.0")
    policy = InvalidActionPolicy(retries=1, fallback="random_legal", timeout_s=0.4)
    result, events = await run_toy(scripted, seed=6, policy=policy)
    assert result.status == "finished"
    calls = llm_calls(events)
    timeouts = [
        e for e in events if e.type == "invalid_action" and "no answer" in e.payload["error"]
    ]
    assert timeouts and len(calls) == len(timeouts)  # every request has its record
    assert {c.payload["status"] for c in calls} == {"timeout"}
    for c in calls:
        assert not c.payload["ok"] and c.payload["sent"] and c.payload["tokens_in"] == 0
        assert c.payload["latency_s"] >= 0.39 and "timeout" in c.payload["error"]
    assert len([e for e in events if e.type == "fallback"]) == result.n_decisions


async def test_each_call_status_of_a_faulty_match_is_ok_error_or_timeout(scripted):
    """Mixed: instant replies (ok), HTTP 500 with no retries left (error), hangs (timeout)."""
    scripted.engine.fault_rates = {"500": 0.25, "hang": 0.2}
    policy = InvalidActionPolicy(retries=2, fallback="random_legal", timeout_s=0.5)
    result, events = await run_toy(scripted, seed=7, policy=policy, max_retries=0)
    assert result.status == "finished"
    calls = llm_calls(events)
    statuses = [c.payload["status"] for c in calls]
    assert set(statuses) == {"ok", "error", "timeout"}, statuses
    n = {t: len([e for e in events if e.type == t]) for t in ("decision", "fallback")}
    refused = [e for e in events if e.type == "invalid_action"]
    # one record per ask: every refused ask, and every decision but the fallbacks (no call)
    assert len(calls) == n["decision"] - n["fallback"] + len(refused)
    assert statuses.count("timeout") == sum("no answer" in e.payload["error"] for e in refused)
    for c in calls:
        p = c.payload
        assert p["ok"] == (p["status"] == "ok")
        assert (p["tokens_in"] > 0) == (p["status"] == "ok")
        if p["status"] == "error":
            assert "HTTP 500" in p["error"]


async def test_preflight_skips_a_replay_only_backend_with_the_server_down() -> None:
    from arena.errors import ConfigError
    from arena.llm.preflight import preflight_entries
    from arena.llm.server import free_port
    from tournaments.config import AgentEntry

    down = {"base_url": f"http://127.0.0.1:{free_port()}/v1", "max_retries": 0,
            "connect_timeout_s": 1}  # fmt: skip
    replay = AgentEntry(name="replay", kind="llm", params={
        "backend": {**down, "cache": {"mode": "replay_only", "path": "/tmp/none.sqlite"}}})  # fmt: skip
    live = AgentEntry(name="live", kind="llm", params={"backend": down})
    report = await preflight_entries([replay])
    assert len(report) == 1 and "server not contacted" in report[0]
    with pytest.raises(ConfigError, match="agent live"):
        await preflight_entries([replay, live])
