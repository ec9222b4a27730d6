"""The human seat's agent side: requests on a desk, answered by a UI, withdrawn on timeout."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from arena.agents import factory
from arena.agents.human import NO_DESK, HumanAgent, HumanDesk, HumanRequest, using_desk
from arena.agents.random_agent import RandomAgent
from arena.results import InvalidActionPolicy, MatchResult, MatchSpec
from arena.runner import MatchRunner
from arena.types import Action


def _spec(game: str, n: int, seed: int = 3, humans: tuple[int, ...] = (0,)) -> MatchSpec:
    seats = ["human" if s in humans else "bot" for s in range(n)]
    return MatchSpec(match_id=f"{game}-m{seed}", game=game, seed=seed, seats=seats)


def _agents(n: int, humans: tuple[int, ...], timeout_s: float | None = None) -> list[Any]:
    return [
        HumanAgent("human", timeout_s=timeout_s) if s in humans else RandomAgent(f"bot{s}")
        for s in range(n)
    ]


async def _serve(desk: HumanDesk, seen: list[HumanRequest], stop: asyncio.Event) -> None:
    """A scripted person at the UI: answers each request with a random legal action."""
    picker = RandomAgent("person")
    while not stop.is_set():
        request = await desk.next_request()
        seen.append(request)
        picker.rng.seed(len(seen))
        request.give(picker.choose(request.decision))


async def _play(runner: MatchRunner, desk: HumanDesk, seen: list[HumanRequest]) -> MatchResult:
    stop = asyncio.Event()
    with using_desk(desk):
        server = asyncio.ensure_future(_serve(desk, seen, stop))
        try:
            return await runner.run()
        finally:
            stop.set()
            server.cancel()


def test_the_factory_builds_a_human_seat_with_no_params() -> None:
    agent = factory.build("me", "human", "werewolf", {})
    assert isinstance(agent, HumanAgent) and agent.name == "me"
    assert factory.param_problems("human", "werewolf", {"model": "x"})  # no model to choose
    timed = factory.build("me", "human", "werewolf", {"timeout_s": 90})
    assert isinstance(timed, HumanAgent) and timed.timeout_s == 90.0
    assert factory.param_problems("human", "werewolf", {"timeout_s": 0})
    assert factory.param_problems("human", "werewolf", {"timeout_s": "soon"})


def test_a_human_seat_plays_a_whole_match_through_the_desk() -> None:
    spec = _spec("werewolf", 8, humans=(2,))
    runner = MatchRunner(spec, _agents(8, (2,)))
    desk = HumanDesk()
    seen: list[HumanRequest] = []
    result = asyncio.run(_play(runner, desk, seen))
    assert result.status == "finished"
    assert seen and all(r.seat == 2 and r.key == (spec.match_id, 2) for r in seen)
    # each request carries the seat's own observation: only events delivered to it
    for r in seen:
        assert r.observation.seat == 2
        assert all(e.delivered_to(2) for e in r.observation.events)
        assert all(f.known_by(2) for f in r.observation.private)
    decided = [e for e in runner.recorder.events if e.type == "decision" and e.actor == 2]
    assert len(decided) == len(seen)
    assert result.seats[2].fallbacks == 0 and result.seats[2].invalid == 0
    assert desk.joined == {}  # the seat left the desk when the match closed


def test_two_human_seats_share_one_desk_as_hot_seat() -> None:
    spec = _spec("dealornodeal", 2, humans=(0, 1))
    runner = MatchRunner(spec, _agents(2, (0, 1)))
    desk = HumanDesk()
    hot: list[bool] = []
    desk.subscribe(lambda change, req: hot.append(desk.hot_seat) if change == "asked" else None)
    seen: list[HumanRequest] = []
    result = asyncio.run(_play(runner, desk, seen))
    assert result.status == "finished"
    assert {r.seat for r in seen} == {0, 1}
    assert hot and all(hot)


def test_a_human_who_walks_away_gets_the_policy_fallback_recorded() -> None:
    spec = _spec("dealornodeal", 2, humans=(1,))
    # the seat's own limit cuts it (the policy's, sized for bots, is far longer)
    policy = InvalidActionPolicy(retries=1, fallback="random_legal", timeout_s=600)
    runner = MatchRunner(spec, _agents(2, (1,), timeout_s=0.05), policy=policy)
    desk = HumanDesk()
    changes: list[str] = []
    desk.subscribe(lambda change, req: changes.append(change))

    async def nobody_answers() -> MatchResult:
        with using_desk(desk):
            return await runner.run()

    result = asyncio.run(nobody_answers())
    assert result.status == "finished"
    events = runner.recorder.events
    timeouts = [e for e in events if e.type == "invalid_action" and e.actor == 1]
    fallbacks = [e for e in events if e.type == "fallback" and e.actor == 1]
    assert timeouts and all("no answer within 0.05s" in e.payload["error"] for e in timeouts)
    # Deal or No Deal's random_legal fallback is a recorded no-op turn
    assert fallbacks and all(e.payload["policy"] == "fallback_pass" for e in fallbacks)
    assert len(timeouts) == 2 * len(fallbacks)  # asked, re-asked once, then the fallback
    assert result.seats[1].fallbacks == len(fallbacks)
    assert changes.count("withdrawn") == len(timeouts)
    assert "answered" not in changes


def test_a_withdrawn_request_is_skipped_by_the_ui() -> None:
    async def scenario() -> tuple[HumanRequest, HumanRequest]:
        desk = HumanDesk()
        loop = asyncio.get_running_loop()
        first = HumanRequest("m", 0, "A", _obs(), _decision(), loop.create_future())
        second = HumanRequest("m", 1, "B", _obs(), _decision(), loop.create_future())
        desk._queue.put_nowait(first)
        desk._queue.put_nowait(second)
        first.answer.cancel()
        got = await desk.next_request()
        assert got.give(Action(choices=("x",))) and not got.give(Action(choices=("x",)))
        return first, got

    first, got = asyncio.run(scenario())
    assert first.withdrawn and got.seat == 1


def test_a_human_seat_without_a_ui_errors_the_match_with_a_clear_reason() -> None:
    spec = _spec("dealornodeal", 2, humans=(0,))
    result = MatchRunner(spec, _agents(2, (0,))).play()
    assert result.status == "errored"
    assert result.reason is not None and NO_DESK in result.reason


def _obs() -> Any:
    from arena.types import Observation

    return Observation(game="toy", seat=0, name="A", phase="p")


def _decision() -> Any:
    from arena.types import Decision, Option

    return Decision(kind="k", options=[Option(id="x")])


@pytest.mark.parametrize("game,n", [("werewolf", 8), ("dealornodeal", 2)])
def test_the_desk_context_reaches_agents_built_inside_it(game: str, n: int) -> None:
    desk = HumanDesk()
    agent = HumanAgent("h")
    from arena.agents.base import MatchContext

    ctx = MatchContext(
        game=game, match_id="m", seat=0, name="A", names=["A"] * n, seed=1, team_seed=2
    )
    with pytest.raises(RuntimeError, match="terminal UI"):
        agent.reset(ctx)
    with using_desk(desk):
        agent.reset(ctx)
    assert agent.desk is desk and desk.joined == {("m", 0): "A"}


class ClockLoop(asyncio.SelectorEventLoop):
    """An event loop whose clock a test moves forward: the runner's time limits read it."""

    def __init__(self) -> None:
        super().__init__()
        self.offset = 0.0

    def time(self) -> float:
        return super().time() + self.offset


def _answer_after_an_hour(human_timeout: float | None) -> tuple[bool, MatchResult, Any]:
    """Seat 0 (a person) is asked, an hour passes on the loop's clock, then it walks away."""
    spec = _spec("dealornodeal", 2, humans=(0,))
    policy = InvalidActionPolicy(retries=0, fallback="random_legal", timeout_s=1.0)
    runner = MatchRunner(spec, _agents(2, (0,), timeout_s=human_timeout), policy=policy)
    desk = HumanDesk()
    loop = ClockLoop()

    async def scenario() -> tuple[bool, MatchResult]:
        with using_desk(desk):
            match = asyncio.ensure_future(runner.run())
            request = await desk.next_request()
            loop.offset += 3600.0  # every limit set before now is long past
            for _ in range(20):  # loop turns enough for a due timer to cancel the ask
                await asyncio.sleep(0)
            still_open = request.open
            while not request.give(Action(choices=("walk_away",))):
                # withdrawn: the person walks away at the next ask (the match ends there)
                request = await desk.next_request()
            return still_open, await match

    try:
        still_open, result = loop.run_until_complete(scenario())
    finally:
        loop.close()
    return still_open, result, runner


def test_the_bots_policy_timeout_never_cuts_a_human_seat() -> None:
    still_open, result, runner = _answer_after_an_hour(None)
    assert still_open
    assert result.status == "finished" and result.outcome == "walk_away"
    assert result.seats[0].invalid == 0 and result.seats[0].fallbacks == 0


def test_a_human_seat_with_its_own_limit_is_cut_by_that_limit() -> None:
    still_open, result, runner = _answer_after_an_hour(30.0)
    assert not still_open  # the same hour, the person's own 30 s limit: withdrawn
    refusals = [e for e in runner.recorder.events if e.type == "invalid_action"]
    assert refusals and refusals[0].actor == 0
    assert "no answer within 30.0s" in refusals[0].payload["error"]
