"""The play screen is for a person: own time, options and beliefs in words, an end screen."""

from __future__ import annotations

import asyncio
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from arena import registry
from arena.agents.human import HumanAgent, HumanDesk, HumanRequest, using_desk
from arena.agents.random_agent import RandomAgent
from arena.results import InvalidActionPolicy, MatchSpec
from arena.runner import MatchRunner
from tests.builders import DOND, WEREWOLF
from tests.tui.playing import (
    SIZE,
    loop_clock,
    loop_turns,
    play_app,
    play_through,
    screen_text,
    tournament,
    until,
)
from tui.play import PlayApp
from tui.play_text import option_text, people_prompt, seat_view
from tui.screens.play import OPTION_KEYS, PlayScreen
from tui.screens.play_end import EndScreen


def _record(t: Any) -> list[dict[str, Any]]:
    path = next((t.dir.root / "matches").glob("*.jsonl"))
    return [json.loads(line) for line in path.read_text().splitlines()]


def _asked(app: PlayApp) -> bool:
    screen = app.screen
    return isinstance(screen, PlayScreen) and screen.accepting and screen.request.open


async def test_the_bots_timeout_does_not_cut_a_human_decision(tmp_path: Path) -> None:
    # the bots have 1 s a decision; the person has no limit (the default)
    t = tournament(tmp_path, DOND, [0], retries=0, fallback="random_legal", timeout_s=1.0)
    outcome: dict[str, Any] = {}
    app = play_app(t, outcome)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: _asked(app))
        screen = app.screen
        assert isinstance(screen, PlayScreen)
        request = screen.request
        assert "answer within" not in screen_text(screen)
        with loop_clock() as advance:
            advance(3600.0)  # an hour of thinking, on the clock the runner's limits read
            await loop_turns()
            assert request.open and screen.accepting
        walk = OPTION_KEYS[screen.decision.option_ids.index("walk_away")]
        await pilot.press(walk)  # walk away: the answer given after the hour counts
        await until(pilot, lambda: app.job_done)
    (result,) = outcome["results"]
    assert result.outcome == "walk_away" and result.seats[0].fallbacks == 0
    assert not [e for e in _record(t) if e["type"] == "invalid_action" and e["actor"] == 0]


async def test_a_human_timeout_set_for_the_person_cuts_at_that_limit(tmp_path: Path) -> None:
    t = tournament(tmp_path, DOND, [0], human_s=30.0, retries=0, timeout_s=1.0)
    outcome: dict[str, Any] = {}
    app = play_app(t, outcome)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: _asked(app))
        screen = app.screen
        assert isinstance(screen, PlayScreen)
        request = screen.request
        assert "answer within 30 s" in screen_text(screen)
        with loop_clock() as advance:
            advance(3600.0)
            await until(pilot, lambda: not request.open)
        app.exit()
    refusals = [e for e in _record(t) if e["type"] == "invalid_action" and e["actor"] == 0]
    assert refusals and "no answer within 30.0s" in refusals[0]["payload"]["error"]


async def test_deal_or_no_deal_options_read_as_splits_not_ids(tmp_path: Path) -> None:
    t = tournament(tmp_path, DOND, [0])
    app = play_app(t, {})
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: _asked(app))
        text = screen_text(app.screen)
        app.exit()
    assert "Walk away" in text and "Propose: you keep " in text and "; the other gets " in text
    # no raw id, no answer format, no list of legal ids, anywhere on the screen
    for program_text in ("propose:", "walk_away", '{"', "Answer {", "Choose one of"):
        assert program_text not in text, program_text


def test_answer_formats_are_taken_out_of_prompts_in_words_kept() -> None:
    dond = (
        "Turn 1 of 10 (9 left after this one). propose:a-b-c means you keep a/b/c of "
        'book/hat/ball and the other player gets the rest. Answer {"choice": <id>, "text": '
        "<optional message>}; plain text alone is a message."
    )
    assert people_prompt(dond) == "Turn 1 of 10 (9 left after this one)."
    wolf = (
        "Private report (nobody else sees it): for every other player, your probability that "
        'they are a werewolf, as {"belief": {"<seat>": p, ...}}. Seats: 0=Uma. Or pass.'
    )
    assert people_prompt(wolf) == (
        "Private report (nobody else sees it): for every other player, your probability that "
        "they are a werewolf. Seats: 0=Uma. Or pass."
    )
    avalon = (
        'Report P(good) for every other player: {"belief": {"<seat>": p, ...}} ; evil may add '
        '"merlin:<seat>": P(Merlin) (or "skip").'
    )
    assert people_prompt(avalon) == "Report P(good) for every other player."
    select = (
        "Submit privately what you keep (keep:a-b-c in item order book/hat/ball), or "
        "no_agreement. A deal needs both selections to add up to the pool."
    )
    assert "keep:a-b-c" not in people_prompt(select)
    assert people_prompt("Day 2: it is your turn to speak to everyone (or pass).") == (
        "Day 2: it is your turn to speak to everyone (or pass)."
    )


async def test_a_werewolf_belief_is_given_by_levels_per_player_not_typed(
    tmp_path: Path,
) -> None:
    t = tournament(tmp_path, WEREWOLF, [3])
    outcome: dict[str, Any] = {}
    app = play_app(t, outcome)
    beliefs_seen: list[str] = []

    def look(screen: Any) -> None:
        if isinstance(screen, PlayScreen) and screen.decision.belief_only:
            text = screen_text(screen)
            beliefs_seen.append(text)
            assert '{"' not in text and "belief" not in text.lower().split("report")[0]

    rng = random.Random(7)
    async with app.run_test(size=SIZE) as pilot:
        await play_through(pilot, app, _only_levels(rng), on_turn=look)
    assert beliefs_seen, "the match asked for no belief report"
    assert "(seat 0): — (not reported)" in beliefs_seen[0]
    reports = [e for e in _record(t) if e["type"] == "belief" and e["actor"] == 3]
    # the keys of playing.keys_for: the first other player "yes", the second "can't tell"
    assert reports and reports[0]["payload"]["beliefs"] == {"0": 1.0, "1": 0.5}


def _only_levels(rng: random.Random) -> random.Random:
    """A random source under which the scripted person never skips a belief report."""

    class Levels(random.Random):
        def random(self) -> float:
            return max(rng.random(), 0.5)

    return Levels(rng.random())


async def test_the_end_screen_shows_the_winner_the_reason_and_every_role(tmp_path: Path) -> None:
    t = tournament(tmp_path, WEREWOLF, [3])
    outcome: dict[str, Any] = {}
    app = play_app(t, outcome)
    async with app.run_test(size=SIZE) as pilot:
        await play_through(pilot, app, random.Random(3))
        await until(pilot, lambda: isinstance(app.screen, EndScreen) and app.screen.ready)
        text = screen_text(app.screen)
        await pilot.press("enter")
        await until(pilot, lambda: app.screen is app.wait)
    (result,) = outcome["results"]
    assert f"Match over: {result.match_id}" in text
    (team,) = result.winners
    members = ", ".join(s.name for s in result.seats if s.team == team)
    assert f"Winner: {team} ({members}) — " in text
    assert "Game over:" in text  # the game's own words: who won and why
    for seat in result.seats:  # every seat with its role, the person's marked
        row = next(line for line in text.splitlines() if line.startswith(f"{seat.seat} "))
        assert seat.name in row and seat.role in row and seat.team in row
    assert "human (a person)" in text and "rule" in text


async def test_each_match_ends_on_its_end_screen_before_the_next_begins(tmp_path: Path) -> None:
    t = tournament(tmp_path, DOND, [0], matches=2)
    outcome: dict[str, Any] = {}
    app = play_app(t, outcome)
    ends: list[str] = []

    def look(screen: Any) -> None:
        if isinstance(screen, EndScreen):
            ends.append(screen.result.match_id)
            assert not any(isinstance(s, PlayScreen) for s in app.screen_stack)

    async with app.run_test(size=SIZE) as pilot:
        await play_through(pilot, app, random.Random(5), on_turn=look)
        await until(pilot, lambda: isinstance(app.screen, EndScreen))
        last = app.screen
        assert isinstance(last, EndScreen)
        text = screen_text(last)
        await pilot.press("q")  # the run is over: q leaves from the end screen
    first, second = outcome["results"]
    assert ends == [first.match_id]  # read before the second match's first decision
    assert last.result.match_id == second.match_id
    assert "Winner: " in text or "No winner: " in text


@pytest.mark.parametrize("game", sorted(registry.games()))
def test_every_game_asks_a_person_in_words(game: str) -> None:
    """Whatever the game: options never read as agent codes, prompts carry no JSON format,
    the view carries no list of legal ids."""
    n = registry.engine_class(game)(registry.rules_class(game)(), seed=5).n_seats
    spec = MatchSpec(match_id=f"{game}-w", game=game, seed=5, seats=["human"] + ["bot"] * (n - 1))
    agents: list[Any] = [HumanAgent("human")] + [RandomAgent(f"bot{s}") for s in range(1, n)]
    runner = MatchRunner(spec, agents, policy=InvalidActionPolicy(retries=0))
    desk = HumanDesk()
    seen: list[HumanRequest] = []

    async def play() -> None:
        picker = RandomAgent("person")

        async def serve() -> None:
            while True:
                request = await desk.next_request()
                seen.append(request)
                picker.rng.seed(len(seen))
                request.give(picker.choose(request.decision))

        with using_desk(desk):
            server = asyncio.ensure_future(serve())
            try:
                await runner.run()
            finally:
                server.cancel()

    asyncio.run(play())
    assert seen
    for request in seen:
        obs, decision = request.observation, request.decision
        prompt = people_prompt(decision.prompt)
        assert '{"' not in prompt and not _CODE.search(prompt), prompt
        for option in decision.options:
            text = option_text(option, obs)
            assert text and not _CODE.search(text), (option.id, text)
        view = seat_view(obs)
        assert "Your decision:" not in view and "Choose one of" not in view


_CODE = re.compile(r"\b[a-z_]+:[0-9a-z<]")  # "propose:0-0-2", "keep:a-b-c", "merlin:<seat>"
