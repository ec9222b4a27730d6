"""Playing a seat from the terminal UI: whole matches by key presses, hot-seat, timeouts."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

from arena.agents.human import HumanDesk
from arena.types import Decision, Observation, Option
from tests.builders import DOND, WEREWOLF
from tests.tui.playing import (
    SIZE,
    logs_drawn,
    play_app,
    play_through,
    screen_text,
    tournament,
    until,
)
from tui.play import PlayApp
from tui.play_text import fact_line
from tui.screens.play import PassScreen, PlayScreen


def _record(t: Any) -> list[dict[str, Any]]:
    path = next((t.dir.root / "matches").glob("*.jsonl"))
    return [json.loads(line) for line in path.read_text().splitlines()]


async def test_a_scripted_human_plays_a_whole_werewolf_match_by_keys(tmp_path: Path) -> None:
    t = tournament(tmp_path, WEREWOLF, [3])
    outcome: dict[str, Any] = {}
    app = play_app(t, outcome)
    async with app.run_test(size=SIZE) as pilot:
        answers = await play_through(pilot, app, random.Random(1))
        assert app.job_error is None
    (result,) = outcome["results"]
    assert result.status == "finished"
    human = result.seats[3]
    assert human.agent == "human" and human.invalid == 0 and human.fallbacks == 0
    events = _record(t)
    decided = [e for e in events if e["type"] == "decision" and e["actor"] == 3]
    assert answers == app.served == len(decided) > 0
    spoken = [e for e in events if e["actor"] == 3 and e.get("speech")]
    actions = [d["payload"]["action"] for d in decided]
    typed = [a["text"] for a in actions if "text" in a and "choices" not in a]
    assert typed  # the seat spoke
    assert [s["speech"]["body"] for s in spoken] == typed  # what was typed is what it said


async def test_a_scripted_human_plays_a_whole_deal_or_no_deal_match_by_keys(
    tmp_path: Path,
) -> None:
    t = tournament(tmp_path, DOND, [0])
    outcome: dict[str, Any] = {}
    app = play_app(t, outcome)
    async with app.run_test(size=SIZE) as pilot:
        answers = await play_through(pilot, app, random.Random(4))
    (result,) = outcome["results"]
    assert result.status == "finished" and result.seats[0].fallbacks == 0
    decided = [e for e in _record(t) if e["type"] == "decision" and e["actor"] == 0]
    assert answers == len(decided) > 0
    # the result line on the wait screen names the human's own result
    assert f"{result.match_id}: {result.outcome}" in "\n".join(app.wait.lines)


async def test_hot_seat_hides_the_previous_seat_before_the_next_one_sees(
    tmp_path: Path,
) -> None:
    t = tournament(tmp_path, DOND, [0, 1])
    outcome: dict[str, Any] = {}
    app = play_app(t, outcome)
    last_seat: list[int] = []
    handovers = 0

    def check(screen: Any) -> None:
        nonlocal handovers
        if isinstance(screen, PassScreen):
            handovers += 1
            # the hand-over shows no seat's view, and no play screen is left underneath
            assert not any(isinstance(s, PlayScreen) for s in app.screen_stack)
            text = screen_text(screen)
            assert "value per item" not in text and "what only you know" not in text
            return
        request = screen.request
        obs = request.observation
        text = screen_text(screen)
        other = 1 - request.seat
        # the other seat's valuation line (as its own screen shows it) is not here
        for fact in _facts_of(t, other):
            assert fact_line(fact, other, obs.names) not in text
        assert f"You are {obs.names[request.seat]} (seat {request.seat})" in text
        last_seat.append(request.seat)

    async with app.run_test(size=SIZE) as pilot:
        await play_through(pilot, app, random.Random(2), on_turn=check)
    assert outcome["results"][0].status == "finished"
    assert set(last_seat) == {0, 1}
    assert handovers == len(last_seat)  # every turn starts at the hand-over screen


def _facts_of(t: Any, seat: int) -> list[Any]:
    from arena import registry
    from arena.types import PrivateFact

    spec = t.specs[0]
    engine = registry.engine_class(spec.game)(spec.rules, seed=spec.seed)
    return [PrivateFact.model_validate(f.model_dump()) for f in engine.known_facts(seat)]


async def test_a_human_who_does_not_answer_gets_the_fallback_recorded(tmp_path: Path) -> None:
    # the person's own limit (arena play --human-timeout 0.2); the bots' is far longer
    t = tournament(
        tmp_path, DOND, [1], human_s=0.2, retries=0, fallback="random_legal", timeout_s=600
    )
    outcome: dict[str, Any] = {}
    app = play_app(t, outcome)
    withdrawn: list[int] = []

    def note(change: str, request: Any) -> None:
        if change == "withdrawn":
            withdrawn.append(request.seat)

    app.desk.subscribe(note)
    async with app.run_test(size=SIZE) as pilot:
        await play_through(pilot, app, random.Random(0), answer=False)
    (result,) = outcome["results"]
    assert result.status == "finished"
    events = _record(t)
    fallbacks = [e for e in events if e["type"] == "fallback" and e["actor"] == 1]
    refusals = [e for e in events if e["type"] == "invalid_action" and e["actor"] == 1]
    assert fallbacks and len(fallbacks) == len(refusals) == len(withdrawn) == app.served
    assert all("no answer within 0.2s" in e["payload"]["error"] for e in refusals)
    assert result.seats[1].fallbacks == len(fallbacks)


def _request_app(decision: Decision, text: str) -> tuple[PlayApp, Any]:
    desk = HumanDesk()
    app = PlayApp(desk)
    obs = Observation(
        text=text,
        game="toy",
        match_id="m",
        seat=0,
        name="Ann",
        phase="p",
        names=["Ann", "Bob", "Cy"],
    )

    async def ask() -> Any:
        return await desk.ask("m", 0, "Ann", obs, decision)

    return app, ask


async def test_multi_select_takes_k_choices_by_keys_and_refuses_too_few() -> None:
    decision = Decision(
        kind="team",
        prompt="Choose a team of two.",
        options=[Option(id=str(i), label=n) for i, n in enumerate(["Ann", "Bob", "Cy"])],
        min_choices=2,
        max_choices=2,
    )
    app, ask = _request_app(decision, "You are Ann.")
    async with app.run_test(size=SIZE) as pilot:
        answer = asyncio.ensure_future(ask())
        await until(pilot, lambda: isinstance(app.screen, PlayScreen) and app.screen.accepting)
        await pilot.press("a", "ctrl+s")  # one is too few: refused on screen, not sent
        assert not answer.done()
        assert "not accepted" in screen_text(app.screen)
        await pilot.press("c", "ctrl+s")
        await until(pilot, answer.done)
    assert answer.result().choices == ("0", "2")


async def test_agent_written_text_reaches_the_screen_escaped() -> None:
    decision = Decision(kind="speak", options=[Option(id="pass")], free_text=True)
    hostile = "Bob: \x1b[2J[bold red]boom[/] \u202eevil\n"
    app, ask = _request_app(decision, f"You are Ann.\n{hostile}")
    async with app.run_test(size=SIZE) as pilot:
        answer = asyncio.ensure_future(ask())
        await until(
            pilot,
            lambda: (
                isinstance(app.screen, PlayScreen)
                and app.screen.accepting
                and logs_drawn(app.screen)
            ),
        )
        text = screen_text(app.screen)
        assert "\x1b" not in text and "\u202e" not in text
        assert "␛[2J[bold red]boom[/] ⟨U+202E⟩evil" in text  # shown as written, not obeyed
        await pilot.press("ctrl+t", "p", "a", "s", "s", "enter")
        await until(pilot, answer.done)
    # typed "pass" is a message, not the pass option
    assert answer.result().text == "pass" and not answer.result().choices
