"""The match runner: determinism, interleaving, and the invalid-action policy."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from arena.agents import RandomAgent
from arena.agents.base import AgentForfeit, HearsMatchEnd
from arena.engine import RulesEngine
from arena.results import InvalidActionPolicy, MatchSpec
from arena.runner import MatchRunner, play_match
from arena.sinks import JsonlSink, MemorySink, read_jsonl
from tests.arena.toygame import CrashingAgent, SlowAgent, StubbornAgent, ToyEngine


def spec(seed: int = 1, match_id: str = "m", n: int = 3) -> MatchSpec:
    return MatchSpec(
        match_id=match_id,
        game="toy",
        rules={"n_players": n},
        seed=seed,
        seats=[f"a{i}" for i in range(n)],
    )


def randoms(n: int = 3) -> list[RandomAgent]:
    return [RandomAgent(f"a{i}", p_speak=0.5) for i in range(n)]


async def run(s: MatchSpec, agents, policy=None):  # type: ignore[no-untyped-def]
    sink = MemorySink()
    result = await MatchRunner(s, agents, [sink], policy).run()
    return result, [e.comparable() for e in sink.events]


async def test_same_seed_and_agents_give_identical_logs() -> None:
    r1, log1 = await run(spec(seed=11), randoms())
    r2, log2 = await run(spec(seed=11), randoms())
    assert log1 == log2 and r1.status == "finished"
    _, log3 = await run(spec(seed=12), randoms())
    assert log3 != log1


async def test_interleaved_matches_match_solo_runs() -> None:
    solo = [await run(spec(seed=s, match_id=f"m{s}"), randoms()) for s in range(6)]
    together = await asyncio.gather(
        *(run(spec(seed=s, match_id=f"m{s}"), randoms()) for s in range(6))
    )
    assert [log for _, log in together] == [log for _, log in solo]


async def test_every_event_is_stamped_in_order_and_ends_with_match_end() -> None:
    result, log = await run(spec(), randoms())
    assert [e["seq"] for e in log] == list(range(len(log)))
    assert log[0]["type"] == "match_start" and log[-1]["type"] == "match_end"
    assert log[-1]["payload"]["status"] == "finished"
    assert result.n_events == len(log)


async def test_garbage_answers_are_reasked_then_fall_back() -> None:
    agents = [StubbornAgent("a0", answer="zzz"), *randoms(3)[1:]]
    result, log = await run(spec(), agents, InvalidActionPolicy(retries=2))
    assert result.status == "finished"
    invalid = [e for e in log if e["type"] == "invalid_action" and e["actor"] == 0]
    fallbacks = [e for e in log if e["type"] == "fallback" and e["actor"] == 0]
    # seat 0 speaks "zzz" legally, but every vote is refused 3 times then replaced
    assert len(fallbacks) == 3 and len(invalid) == 9
    assert all(e["visibility"]["scope"] == "god" for e in invalid + fallbacks)
    assert result.seats[0].fallbacks == 3


async def test_an_agent_that_raises_never_crashes_the_match() -> None:
    agents = [CrashingAgent("a0"), *randoms(3)[1:]]
    result, log = await run(spec(), agents, InvalidActionPolicy(retries=1))
    assert result.status == "finished"
    assert any("agent raised RuntimeError: boom" in e["payload"].get("error", "") for e in log)


async def test_a_hanging_agent_times_out() -> None:
    agents = [SlowAgent("a0", delay=5), *randoms(3)[1:]]
    result, log = await run(spec(), agents, InvalidActionPolicy(retries=0, timeout_s=0.01))
    assert result.status == "finished"
    assert any("no answer within" in e["payload"].get("error", "") for e in log)


async def test_forfeit_policy_ends_the_match_with_a_reason() -> None:
    agents = [StubbornAgent("a0", answer="zzz"), *randoms(3)[1:]]
    result, log = await run(spec(), agents, InvalidActionPolicy(retries=1, fallback="forfeit"))
    assert result.status == "forfeited" and "seat 0" in (result.reason or "")
    # a forfeit is rated (issue 15, item 14): seat results say how, as the leaderboard counts
    assert [s.result for s in result.seats] == ["loss", "win", "win"]
    assert log[-1]["payload"]["status"] == "forfeited"


class BrokenEngine(ToyEngine):
    def _apply(self, seat, action):  # type: ignore[no-untyped-def]
        if self.step_kind == "vote":
            raise ZeroDivisionError("engine bug")
        super()._apply(seat, action)


async def test_an_engine_bug_errors_the_match_with_a_reason() -> None:
    s = spec()
    engine: RulesEngine = BrokenEngine(s.rules, seed=s.seed)
    sink = MemorySink()
    result = await MatchRunner(s, randoms(), [sink], engine=engine).run()
    assert result.status == "errored" and "engine bug" in (result.reason or "")
    assert sink.events[-1].type == "match_end"


async def test_jsonl_record_is_complete_and_readable(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    result = await MatchRunner(spec(), randoms(), [JsonlSink(path)]).run()
    events = list(read_jsonl(path))
    assert len(events) == result.n_events and events[-1].type == "match_end"
    # a truncated last line (crashed writer) is skipped, not an error
    with open(path, "a") as fh:
        fh.write(json.dumps({"type": "x"})[:5])
    assert len(list(read_jsonl(path))) == result.n_events


async def test_seat_agents_only_see_their_own_secret() -> None:
    seen: dict[int, list[str]] = {}

    class Spy(RandomAgent):
        async def act(self, observation, decision):  # type: ignore[no-untyped-def]
            seen.setdefault(observation.seat, []).append(observation.text)
            assert all(e.visibility.visible_to(observation.seat) for e in observation.events)
            return await super().act(observation, decision)

    s = spec(seed=5)
    engine = ToyEngine(s.rules, seed=s.seed)
    await MatchRunner(s, [Spy(f"a{i}") for i in range(3)], engine=engine).run()
    for seat, texts in seen.items():
        for other in range(3):
            if other != seat:
                assert all(f"Your secret is {engine.secrets[other]}" not in t for t in texts)


async def test_by_team_seating_is_not_published_to_players() -> None:
    s = spec().model_copy(update={"by_team": {f"seat{i}": f"a{i}" for i in range(3)}})
    sink = MemorySink()
    await MatchRunner(s, {f"a{i}": RandomAgent(f"a{i}") for i in range(3)}, [sink]).run()
    start = sink.events[0]
    assert start.type == "match_start" and start.payload["seats"] == {}
    assert all(f"a{i}" not in start.text for i in range(3))
    truth = next(e for e in sink.events if e.type == "ground_truth")
    assert truth.visibility.scope == "god" and truth.payload["seats"] == {
        "0": "a0",
        "1": "a1",
        "2": "a2",
    }


def test_play_match_is_the_async_runner_from_synchronous_code() -> None:
    sink = MemorySink()
    result = play_match(spec(seed=11), randoms(), [sink])
    again, log = asyncio.run(run(spec(seed=11), randoms()))
    assert result == again.model_copy(update={"duration_s": result.duration_s})
    assert [e.comparable() for e in sink.events] == log
    assert log[-1]["type"] == "match_end" and log[-1]["payload"]["status"] == "finished"


def test_play_keeps_the_finished_match_and_serves_agents_that_suspend() -> None:
    # SlowAgent really awaits (asyncio.sleep) and then says "pass": legal when it speaks,
    # refused when it votes. Without an event loop the sleep itself would fail.
    agents = [SlowAgent("a0", delay=0.001), *randoms(3)[1:]]
    runner = MatchRunner(spec(), agents)
    result = runner.play()
    assert result.status == "finished"
    errors = [e.payload["error"] for e in runner.recorder.events if e.type == "invalid_action"]
    assert errors and not [e for e in errors if "agent raised" in e or "no answer" in e]
    answered = [e for e in runner.recorder.events if e.type == "decision" and e.actor == 0]
    spoke = [e for e in answered if "fallback" not in e.payload["action"]]
    assert {e.payload["kind"] for e in spoke} == {"speak"}
    assert runner.engine.is_over() and runner.agents[0] is agents[0]
    assert runner.recorder.events[-1].type == "match_end"
    assert len(runner.recorder.events) == result.n_events


def test_observation_events_survive_a_restore_of_the_engine() -> None:
    """Records are matched to engine events by log position, not by object identity: after a
    restore() replaces the log, the shared prefix keeps its records and new events are added."""
    engine = ToyEngine({"n_players": 3}, seed=4)
    runner = MatchRunner(spec(4), randoms(), engine=engine)
    runner._sync_log()
    engine.apply(0, "first words")
    runner._sync_log()
    blob = engine.snapshot()
    before = [e.seq for e in runner.observation(1).events]
    engine.apply(1, "second words")
    runner._sync_log()
    engine.restore(blob)  # back to before seat 1 spoke: a new log object, equal events
    obs = runner.observation(1)
    assert [e.seq for e in obs.events] == before
    engine.apply(1, "other words")
    runner._sync_log()
    obs = runner.observation(2)
    assert [e.text for e in obs.events][-2:] == ["P0: first words", "P1: other words"]
    assert len(obs.events) == len(engine.visible_log(2))


def test_observation_text_is_rendered_only_when_read_and_as_of_the_ask() -> None:
    engine = ToyEngine({"n_players": 3}, seed=2)
    runner = MatchRunner(spec(2), randoms(), engine=engine)
    runner._sync_log()
    rendered = engine.render(0)
    obs = runner.observation(0)
    assert obs._text is None  # nothing rendered yet
    engine.apply(0, "later words")
    runner._sync_log()
    assert obs.text == rendered  # the view as of the ask, not of the read
    assert "later words" not in obs.text


def test_a_replicate_keeps_the_deal_and_reseeds_the_agents() -> None:
    def record(replicate: int) -> tuple[list[str], list[str]]:
        s = spec(seed=5).model_copy(update={"replicate": replicate})
        runner = MatchRunner(s, randoms(), [MemorySink()])
        runner.play()
        events = runner.recorder.events
        first = next(i for i, e in enumerate(events) if e.type == "decision")
        deal = [e.text for e in events[:first] if e.type not in ("match_start",)]
        moves = [json.dumps(e.payload["action"]) for e in events if e.type == "decision"]
        return deal, moves

    plain, again = record(0), record(0)
    assert plain == again
    one, two = record(1), record(2)
    assert one[0] == two[0] == plain[0]  # the same deal: the engine starts from the seed
    assert len({json.dumps(plain[1]), json.dumps(one[1]), json.dumps(two[1])}) == 3


class GivingUp(RandomAgent):
    """Plays two decisions, then gives up its seat."""

    def __init__(self) -> None:
        super().__init__("quitter")
        self.asked = 0

    async def act(self, observation: Any, decision: Any) -> Any:
        self.asked += 1
        if self.asked > 2:
            raise AgentForfeit("my process is gone")
        return await super().act(observation, decision)


def test_an_agent_that_gives_up_forfeits_its_seat_at_once_with_its_reason() -> None:
    sink = MemorySink()
    policy = InvalidActionPolicy(retries=2, fallback="random_legal")  # not a forfeit policy
    result = play_match(spec(), [GivingUp(), *randoms(2)], [sink], policy)
    assert result.status == "forfeited"
    assert result.reason == f"{result.seats[0].name} (seat 0): my process is gone"
    asked = [e for e in sink.events if e.type == "invalid_action"]
    assert len(asked) == 1  # never re-asked: it gave up
    assert [e.payload["policy"] for e in sink.events if e.type == "fallback"] == ["forfeit"]


class Listening(RandomAgent):
    """Keeps what the end of the match told it."""

    told: list[tuple[int, str, dict[str, Any]]] = []

    async def match_over(self, observation: Any, outcome: dict[str, Any]) -> None:
        self.told.append((observation.seat, observation.phase, outcome))


def test_agents_that_hear_the_end_get_the_outcome_and_their_final_view() -> None:
    Listening.told = []
    result = play_match(spec(), [Listening("a"), RandomAgent("b"), Listening("c")])
    assert isinstance(Listening("x"), HearsMatchEnd) and not isinstance(
        RandomAgent(), HearsMatchEnd
    )
    assert [seat for seat, _, _ in Listening.told] == [0, 2]
    for seat, _, outcome in Listening.told:
        assert outcome["status"] == result.status and outcome["label"] == result.outcome
        assert outcome["reward"] == result.seats[seat].reward


def test_the_runner_finds_optional_agent_capabilities_by_protocol_not_by_name() -> None:
    """Call records, timeouts and the end of the match are Protocols the runner checks with
    ``isinstance`` (``arena.agents.base``): a reader jumps from the call to the contract."""
    import ast

    import arena.runner

    tree = ast.parse(Path(arena.runner.__file__).read_text(encoding="utf-8"))
    by_name = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("getattr", "hasattr")
    ]
    assert by_name == []


async def test_an_agent_that_keeps_call_records_gets_one_event_per_call() -> None:
    class Recording(RandomAgent):
        calls = 0

        def pop_call_records(self) -> list[dict[str, Any]]:
            self.calls += 1
            return [{"call": self.calls}]

    agents = [Recording("a0", p_speak=0.5), *randoms()[1:]]
    sink = MemorySink()
    result = await MatchRunner(spec(seed=5), agents, [sink]).run()
    records = [e for e in sink.events if e.type == "llm_call"]
    assert result.status == "finished" and records and all(e.actor == 0 for e in records)
    assert [e.payload["call"] for e in records] == list(range(1, agents[0].calls + 1))
