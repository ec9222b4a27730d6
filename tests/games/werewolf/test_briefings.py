"""The engine's briefing (env text view) and the LLM briefing say the same about the role and the
win condition: both come from games.werewolf.texts."""

from __future__ import annotations

from typing import Any

import pytest

from arena.events import Event
from arena.types import Observation
from games.werewolf import prompts
from games.werewolf.rules import WerewolfEngine


def llm_briefing(e: WerewolfEngine, seat: int) -> str:
    events = [Event.stamp(x, run_id="", match_id="m", seq=i) for i, x in enumerate(e.view(seat))]
    obs = Observation(game="werewolf", seat=seat, name=e.names[seat], phase=e.phase, text="",
                      events=events, private=e.known_facts(seat), state=e.state(seat))  # fmt: skip
    return prompts.briefing(obs, rules=e.rules.model_dump(mode="json"), names=e.names)


def line(text: str, start: str) -> str:
    return next(x for x in text.splitlines() if x.startswith(start))


@pytest.mark.parametrize(
    "rules",
    [
        {},
        {"win_condition": "full_elimination"},
        {"win_condition": "side_elimination"},
        {"win_condition": "side_elimination", "side_elimination_scope": "villagers_only"},
        {"preset": "duskmire"},
    ],
)
def test_engine_and_llm_briefings_agree_on_role_and_win(rules: dict[str, Any]) -> None:
    e = WerewolfEngine(rules, seed=4)
    wins = set()
    for seat in range(e.n_seats):
        engine_text, llm_text = e.briefing(seat), llm_briefing(e, seat)
        assert line(engine_text, "Your role:") == line(llm_text, "Your role:")
        win = line(engine_text, "The village wins")
        assert win == line(llm_text, "The village wins")
        wins.add(win)
    assert len(wins) == 1
    if rules.get("side_elimination_scope") == "villagers_only":
        assert "special roles" not in wins.pop()
