"""Property tests over random rule sets and seeds: termination, bookkeeping, composition."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from games.werewolf.rules import WerewolfEngine
from tests.games.werewolf.fuzz import random_rules
from tests.games.werewolf.helpers import random_answer


def run(rules_seed: int, seed: int, p_speak: float) -> WerewolfEngine:
    rng = random.Random(rules_seed)
    e = WerewolfEngine(random_rules(rng), seed=seed)
    dealt = Counter(e.role)
    assert dealt == Counter(e.rules.roles)
    assert next(ev for ev in e.log if ev.type == "setup").payload["composition"] == dict(
        e.rules.composition()
    )
    steps = 0
    while not e.is_over():
        seat = rng.choice(e.pending())
        e.apply(seat, random_answer(rng, e.decision(seat), p_speak))
        steps += 1
        assert steps < 5000
        deaths = [ev.payload["seat"] for ev in e.log if ev.type == "death"]
        assert len(deaths) == len(set(deaths))
        assert sorted(deaths) == sorted(s for s in range(e.n_seats) if not e.alive[s])
        assert len(e.alive_seats()) + len(deaths) == e.n_seats
        assert e.day <= e.rules.max_days
    assert Counter(e.role) == dealt
    return e


@settings(max_examples=60, deadline=None)
@given(
    rules_seed=st.integers(0, 10**6),
    seed=st.integers(0, 2**31),
    p_speak=st.floats(0.0, 1.0),
)
def test_every_game_ends_within_the_day_cap_with_consistent_deaths(
    rules_seed: int, seed: int, p_speak: float
) -> None:
    e = run(rules_seed, seed, p_speak)
    out = e.outcome()
    assert out is not None and out.label in ("village_win", "wolves_win", "draw_cap")
    assert e.day <= e.rules.max_days
    assert set(out.rewards) == set(range(e.n_seats))
    over = [ev for ev in e.log if ev.type == "game_over"]
    assert len(over) == 1 and over[0] is e.log[-1]
    wolves_alive = any(e.role[s] == "werewolf" for s in e.alive_seats())
    if out.label == "village_win" and out.reason == "no wolf is alive":
        assert not wolves_alive
    if out.label == "wolves_win" and "cap" not in (out.reason or ""):
        assert wolves_alive
    for s in range(e.n_seats):
        team = e.teams()[s]
        if out.winners:
            assert (out.rewards[s] > 0) is (team in out.winners)
