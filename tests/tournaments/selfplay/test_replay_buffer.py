"""Prioritised replay: the buffer's priority order, and states reached from a record's action
prefix equal to the states the original game was in (and restore continues them exactly)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from arena import registry
from arena.agents import factory
from arena.results import MatchSpec
from arena.runner import MatchRunner
from arena.types import Action
from tournaments.selfplay.replay_buffer import ReplayBuffer, Step, decisions_of, reach, restored
from tournaments.selfplay.units import Unit


def unit(i: int = 0) -> Unit:
    return Unit("g", "p0", "bot", 100 + i, 0, "train", i)


def game(*mine: str) -> list[Step]:
    """Seat 0 plays ``mine`` against seat 1's constant 'mid'."""
    out: list[Step] = []
    for m in mine:
        out += [(0, {"choices": [m]}), (1, {"choices": ["mid"]})]
    return out


def test_rare_prefixes_and_split_outcomes_rank_first() -> None:
    buf = ReplayBuffer(size=100, rare=1.0, split=1.0, alpha=1.0)
    u = unit()
    # common: five games through (low, mid) that all lose -> n=5, p=0
    for _ in range(5):
        buf.add_game(u, game("low", "low"), won=False)
    # split: two games through (high, mid), one won, one lost -> n=2, p=1/2
    buf.add_game(u, game("high", "high"), won=True)
    buf.add_game(u, game("high", "low"), won=False)
    # rare: one game through (mid, mid) -> n=1, p=1
    buf.add_game(u, game("mid", "mid"), won=True)
    by_first = {s.prefix[0][1]["choices"][0]: s for s in buf.ranked()}
    assert len(buf) == 3  # one state per game (before seat 0's second decision)
    assert [s.prefix[0][1]["choices"][0] for s in buf.ranked()] == ["high", "mid", "low"]
    assert buf.priority(by_first["high"]) == pytest.approx(2**-0.5 + 1.0)
    assert buf.priority(by_first["mid"]) == pytest.approx(1.0)
    assert buf.priority(by_first["low"]) == pytest.approx(5**-0.5)
    # the split weight alone ranks only the split state above the others
    only_split = ReplayBuffer(100, rare=0.0, split=1.0)
    only_split.states = buf.states
    assert only_split.ranked()[0] is by_first["high"]
    assert only_split.priority(by_first["mid"]) == only_split.priority(by_first["low"]) == 0.0


def test_sampling_follows_priority_and_the_exponent() -> None:
    buf = ReplayBuffer(size=100, alpha=8.0)
    for i in range(6):  # six units: unit 0's state seen once, the others many times
        for _ in range(1 if i == 0 else 9):
            buf.add_game(unit(i), game("low", "low"), won=False)
    top = buf.ranked()[0]
    assert top.unit.index == 0
    draws = [buf.sample(1, random.Random(s))[0] for s in range(200)]
    assert sum(d is top for d in draws) > 150  # (1 / (1/3))^8: nearly always the rare one
    uniform = ReplayBuffer(size=100, alpha=0.0)
    uniform.states = buf.states
    draws = [uniform.sample(1, random.Random(s))[0] for s in range(600)]
    assert 60 < sum(d is top for d in draws) < 150  # about 1 in 6
    three = buf.sample(3, random.Random(1))
    assert len({s.key for s in three}) == 3  # without replacement
    assert buf.sample(3, random.Random(1)) == three  # seeded


def test_the_buffer_evicts_the_oldest_state_first() -> None:
    buf = ReplayBuffer(size=2)
    buf.add_game(unit(0), game("low", "low"), won=False)
    buf.add_game(unit(1), game("low", "low"), won=False)
    buf.add_game(unit(2), game("low", "low"), won=False)
    assert [s.unit.index for s in buf.states.values()] == [1, 2]
    buf.add_game(unit(1), game("low", "low"), won=True)  # seen again: kept, updated
    assert buf.states[next(iter(buf.states))].seen == 2


def _recording_engine(game_id: str, seed: int) -> tuple[Any, list[bytes]]:
    """An engine of ``game_id`` that keeps its snapshot before every applied action."""
    cls = registry.engine_class(game_id)
    shots: list[bytes] = []

    class Recording(cls):  # type: ignore[misc, valid-type]
        def apply(self, seat: int, raw: Any) -> Any:
            shots.append(self.snapshot())
            return super().apply(seat, raw)

    return Recording({}, seed=seed), shots


@pytest.mark.parametrize(("game_id", "bot"), [("dealornodeal", "rule"), ("werewolf", "rule")])
def test_the_prefix_reaches_the_original_state_and_restore_continues_it(
    game_id: str, bot: str
) -> None:
    engine, shots = _recording_engine(game_id, seed=11)
    n = engine.n_seats
    spec = MatchSpec(match_id="m", game=game_id, seed=11, seats=[bot] * n)
    agents = [factory.build(bot, bot, game_id) for _ in range(n)]
    runner = MatchRunner(spec, agents, engine=engine)
    result = runner.play()
    assert result.status == "finished"
    steps = decisions_of(runner.recorder.events)
    assert len(steps) == len(shots) > 4
    cls = registry.engine_class(game_id)
    for i in sorted({1, len(steps) // 2, len(steps) - 1}):
        state = reach(game_id, {}, 11, steps[:i])
        again = cls({}, seed=0)
        again.restore(shots[i])
        # the same state the game was in before its i-th action: log, phase, RNG draws
        assert state.log == again.log and state.phase == again.phase
        assert state.rng.getstate() == again.rng.getstate()
        assert state.current_pending() == again.current_pending()
        # a replay starts from the restored snapshot; replaying the rest ends the same game
        start = restored(game_id, {}, state.snapshot())
        for seat, summary in steps[i:]:
            start.apply(seat, Action(seat=seat, **summary))
        assert start.is_over() and start.outcome() == engine.outcome()
        assert [e.model_dump() for e in start.log] == [e.model_dump() for e in engine.log]
