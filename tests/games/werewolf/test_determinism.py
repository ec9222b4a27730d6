"""Determinism: same rules, seed and decisions give the same events; snapshots are exact."""

from __future__ import annotations

import random

import pytest

from games.werewolf.rules import WerewolfEngine
from tests.games.werewolf.fuzz import VARIANTS
from tests.games.werewolf.helpers import random_answer


def record(rules: dict, seed: int) -> tuple[list[dict], list[tuple[int, object]]]:  # type: ignore[type-arg]
    e = WerewolfEngine(rules, seed=seed)
    rng = random.Random(seed + 7)
    decisions = []
    while not e.is_over():
        seat = rng.choice(e.pending())
        answer = random_answer(rng, e.decision(seat), p_speak=0.4)
        decisions.append((seat, answer))
        e.apply(seat, answer)
    return [ev.model_dump() for ev in e.log], decisions


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_replaying_decisions_reproduces_every_event(name: str) -> None:
    for seed in (3, 11):
        log, decisions = record(VARIANTS[name], seed)
        e = WerewolfEngine(VARIANTS[name], seed=seed)
        for seat, answer in decisions:
            e.apply(seat, answer)
        assert [ev.model_dump() for ev in e.log] == log
        assert record(VARIANTS[name], seed)[0] == log


def test_different_seeds_deal_differently() -> None:
    deals = {tuple(WerewolfEngine({}, seed=s).role) for s in range(10)}
    assert len(deals) > 1


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_snapshot_then_restore_replays_identically(name: str) -> None:
    rules = VARIANTS[name]
    e = WerewolfEngine(rules, seed=5)
    rng = random.Random(1)
    for _ in range(25):
        if e.is_over():
            break
        seat = rng.choice(e.pending())
        e.apply(seat, random_answer(rng, e.decision(seat), 0.4))
    blob = e.snapshot()
    views = {s: [ev.model_dump() for ev in e.visible_log(s)] for s in range(e.n_seats)}
    states = {s: e.state(s) for s in range(e.n_seats)}

    def finish(engine: WerewolfEngine, seed: int) -> list[dict]:  # type: ignore[type-arg]
        r = random.Random(seed)
        while not engine.is_over():
            seat = r.choice(engine.pending())
            engine.apply(seat, random_answer(r, engine.decision(seat), 0.4))
        return [ev.model_dump() for ev in engine.log]

    first = finish(e, 99)
    e.restore(blob)
    assert {s: [ev.model_dump() for ev in e.visible_log(s)] for s in range(e.n_seats)} == views
    assert {s: e.state(s) for s in range(e.n_seats)} == states
    assert finish(e, 99) == first
    other = WerewolfEngine(rules, seed=0)
    other.restore(blob)
    assert finish(other, 99) == first


def test_fallback_is_legal_and_does_not_touch_the_engine_rng() -> None:
    e = WerewolfEngine({}, seed=2)
    twin = WerewolfEngine({}, seed=2)
    rng = random.Random(0)
    while not e.is_over():
        seat = e.pending()[0]
        fb = e.fallback(seat)
        assert fb.choices[0] in e.decision(seat).option_ids
        e.apply(seat, fb)
        twin.apply(seat, fb.model_copy(update={"fallback": None}))
        rng.random()
    assert [ev.model_dump() for ev in e.log] == [ev.model_dump() for ev in twin.log]
