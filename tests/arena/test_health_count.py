"""The runner counts each seat's harness health decision by decision (``SeatResult``)."""

from __future__ import annotations

from arena.agents import RandomAgent
from arena.results import InvalidActionPolicy, MatchSpec
from arena.runner import MatchRunner
from tests.arena.toygame import SlowAgent, StubbornAgent


def spec(n: int = 3) -> MatchSpec:
    return MatchSpec(
        match_id="m", game="toy", rules={"n_players": n}, seed=1, seats=[f"a{i}" for i in range(n)]
    )


def others() -> list[RandomAgent]:
    return [RandomAgent(f"a{i}", p_speak=0.5) for i in (1, 2)]


async def test_refused_reasked_and_fallback_decisions_are_counted_once_each() -> None:
    # seat 0 speaks "zzz" legally, but each of its 3 votes is refused 3 times, then replaced
    runner = MatchRunner(spec(), [StubbornAgent("a0", answer="zzz"), *others()], [],
                         InvalidActionPolicy(retries=2))  # fmt: skip
    result = await runner.run()
    seat = result.seats[0]
    assert seat.invalid == 9 and seat.fallbacks == 3
    assert seat.refused == 3 and seat.reasked == 3 and seat.timeouts == 0
    assert seat.decisions == 6  # three speeches and three votes
    assert seat.forfeited is False
    assert all(s.decisions and s.refused == 0 for s in result.seats[1:])


async def test_timeouts_and_forfeits_are_counted() -> None:
    slow = MatchRunner(spec(), [SlowAgent("a0", delay=5), *others()], [],
                       InvalidActionPolicy(retries=0, timeout_s=0.01))  # fmt: skip
    seat = (await slow.run()).seats[0]
    assert seat.decisions and seat.timeouts == seat.decisions == seat.refused == seat.fallbacks
    assert seat.reasked == 0  # no retries: nothing asked again

    stubborn = MatchRunner(spec(), [StubbornAgent("a0", answer="zzz"), *others()], [],
                           InvalidActionPolicy(retries=1, fallback="forfeit"))  # fmt: skip
    result = await stubborn.run()
    assert result.status == "forfeited"
    assert result.seats[0].forfeited is True and result.seats[0].fallbacks == 1
    assert not any(s.forfeited for s in result.seats[1:])
