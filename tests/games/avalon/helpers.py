"""Scripted drivers for Avalon engine tests."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from arena.types import Decision
from games.avalon.rules import AvalonEngine

Policy = Callable[[AvalonEngine, int, Decision], Any]


def random_policy(rng: random.Random, speak: float = 0.3) -> Policy:
    def pol(eng: AvalonEngine, seat: int, d: Decision) -> Any:
        if d.kind == "belief":
            if rng.random() < 0.2:
                return "skip"
            return {"belief": {str(j): rng.random() for j in range(eng.n_seats) if j != seat}}
        if d.free_text:
            return f"seat {seat} talks" if rng.random() < speak else "pass"
        return ",".join(rng.sample(d.option_ids, d.max_choices))

    return pol


def run(eng: AvalonEngine, policy: Policy, until: Callable[[AvalonEngine], bool] | None = None,
        max_steps: int = 5000) -> list[tuple[int, Any]]:  # fmt: skip
    """Apply ``policy`` until the game ends (or ``until`` holds); returns the applied answers."""
    trace = []
    for _ in range(max_steps):
        if eng.is_over() or (until and until(eng)):
            return trace
        seat = eng.pending()[0]
        ans = policy(eng, seat, eng.decision(seat))
        eng.apply(seat, ans)
        trace.append((seat, ans))
    raise AssertionError("game did not end")


def scripted(
    votes: str = "approve", cards: str = "success", team: Callable[..., list[int]] | None = None,
    target: int | None = None,
) -> Policy:  # fmt: skip
    """Everyone votes ``votes``; evil play ``cards``; leaders pick ``team`` (default lowest seats)."""

    def pol(eng: AvalonEngine, seat: int, d: Decision) -> Any:
        if d.kind == "vote":
            return votes
        if d.kind == "quest":
            return cards if cards in d.option_ids else "success"
        if d.kind == "propose":
            chosen = team(eng) if team else list(range(d.max_choices))
            return ",".join(str(s) for s in chosen)
        if d.kind == "assassinate":
            return str(target) if target is not None else d.option_ids[0]
        if d.kind == "belief":
            return "skip"
        if d.free_text:
            return "pass"
        return d.option_ids[0]

    return pol


def evil_seats(eng: AvalonEngine) -> list[int]:
    return [s for s, side in eng.teams().items() if side == "evil"]


def good_seats(eng: AvalonEngine) -> list[int]:
    return [s for s, side in eng.teams().items() if side == "good"]
