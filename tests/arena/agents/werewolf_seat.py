"""A Werewolf match (classic8 unless said) with one agent under test among the rule bots."""

from __future__ import annotations

from typing import Any

from arena.agents.base import Agent
from arena.results import InvalidActionPolicy, MatchResult, MatchSpec
from arena.runner import MatchRunner
from games.werewolf.bots import BOTS


def play_one_seat(
    agent: Agent, seat: int, seed: int, **rules: Any
) -> tuple[list[Any], MatchResult]:
    """The finished match's events and result; one re-ask, then a random legal fallback."""
    spec = MatchSpec(match_id=f"one-seat-{seed}", game="werewolf", seed=seed, seats=["rule"] * 8,
                     rules={"preset": "classic8", **rules})  # fmt: skip
    runner = MatchRunner(
        spec,
        lambda entry, s: agent if s == seat else BOTS["rule"](),
        policy=InvalidActionPolicy(retries=1, fallback="random_legal", timeout_s=None),
    )
    result = runner.play()
    assert result.status == "finished"
    return runner.recorder.events, result
