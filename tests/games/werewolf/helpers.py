"""Drivers for Werewolf engine tests: scripted or seeded-random answers, no agents needed."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from arena.types import Decision
from games.werewolf.rules import WerewolfEngine

Policy = Callable[[WerewolfEngine, int, Decision], Any]


def random_answer(rng: random.Random, d: Decision, p_speak: float = 0.0) -> Any:
    """A legal answer: speech with probability ``p_speak``, else a uniform legal option."""
    if d.kind == "belief":
        return "pass"
    if d.free_text and rng.random() < p_speak:
        return {"text": "I think we should look closely at everyone."}
    if d.silent_option and d.free_text:
        return d.silent_option
    return rng.choice(d.option_ids)


def play(
    e: WerewolfEngine,
    policy: Policy | None = None,
    *,
    seed: int = 0,
    until: Callable[[WerewolfEngine, int, Decision], bool] | None = None,
    max_steps: int = 20_000,
    p_speak: float = 0.0,
) -> tuple[int, Decision] | None:
    """Drive ``e``; ``policy`` may answer (None = seeded random). Stops at the first decision
    for which ``until`` holds (returned, not applied) or at the end of the game."""
    rng = random.Random(seed)
    for _ in range(max_steps):
        if e.is_over():
            return None
        seat = e.pending()[0]
        d = e.decision(seat)
        if until is not None and until(e, seat, d):
            return seat, d
        answer = policy(e, seat, d) if policy else None
        if answer is None:
            answer = random_answer(rng, d, p_speak)
        e.apply(seat, answer)
    raise AssertionError("game did not end within max_steps")


def first(kind: str) -> Callable[[WerewolfEngine, int, Decision], bool]:
    return lambda e, s, d: d.kind == kind


def seat_of(e: WerewolfEngine, role: str) -> int:
    return e.role.index(role)


def events(e: WerewolfEngine, type_: str) -> list[dict[str, Any]]:
    return [ev.payload for ev in e.log if ev.type == type_]


def by_kind(**answers: Any) -> Policy:
    """A policy answering decision kinds with fixed values or callables (e, seat, d) -> answer.

    A fixed option id that is not legal for this seat right now falls back to random."""

    def policy(e: WerewolfEngine, seat: int, d: Decision) -> Any:
        a = answers.get(d.kind)
        a = a(e, seat, d) if callable(a) else a
        if isinstance(a, str) and not d.free_text and a not in d.option_ids:
            return None
        return a

    return policy


def non_wolf(e: WerewolfEngine, exclude: tuple[int, ...] = ()) -> int:
    return next(s for s in e.alive_seats() if e.role[s] != "werewolf" and s not in exclude)
