"""Textual Pilot tests of the self-play screen: progress, the population leaderboard with
lineage, the champion's context diff (agent-written text escaped), keys; and a live run shown
while it plays."""

from __future__ import annotations

import asyncio
import json
import re
import time
from pathlib import Path

import pytest
from textual.widgets import DataTable, Static

from arena.llm.fakes.context import ContextEngine
from arena.llm.server import ServerThread
from tests.tournaments.selfplay.held_engine import HeldEngine
from tests.tournaments.selfplay.selfplay_setup import seed_bank, small_config
from tournaments.selfplay.config import parse
from tournaments.selfplay.driver import SelfPlay
from tournaments.selfplay.view import context_diff, load
from tui.screens.dashboard import DashboardScreen
from tui.screens.help import HelpScreen
from tui.screens.leaderboard import LeaderboardScreen
from tui.screens.selfplay import SelfPlayApp, SelfPlayScreen

SIZE = (160, 50)


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("sp-tui")
    with ServerThread(ContextEngine(seed=1)) as server:
        raw = small_config(server.url, seed_bank(tmp / "seed.sqlite"))
        asyncio.run(SelfPlay(parse(raw), tmp / "sp").run())
    return tmp / "sp"


async def _until(pilot, predicate, timeout: float = 60.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout} s")
        await pilot.pause(0.05)


def _text(screen, wid: str) -> str:  # type: ignore[no-untyped-def]
    return str(screen.query_one(wid, Static).content)


def _drawn(app: SelfPlayApp) -> bool:
    screen = app.screen
    return (
        isinstance(screen, SelfPlayScreen)
        and getattr(screen, "ready", False)
        and app.selfplay_view.finished
        and screen.query_one("#sp-board", DataTable).row_count > 0
        and "finished" in _text(screen, "#sp-title")
    )


async def test_the_screen_shows_progress_the_population_and_the_champions_diff(
    finished: Path,
) -> None:
    last = json.loads((finished / "r0" / "g001" / "generation.json").read_text())
    app = SelfPlayApp(finished)
    async with app.run_test(size=SIZE) as pilot:
        await _until(pilot, lambda: _drawn(app))
        screen = app.screen
        stats = _text(screen, "#sp-stats")
        assert "generation 2/2 done" in stats and "2/2 in all" in stats
        assert f"{last['budget']['total']['games']} games" in stats
        assert "wall by phase: play" in stats
        assert f"bank v{last['bank']['version']}" in stats
        board = screen.query_one("#sp-board", DataTable)
        assert board.row_count == len(last["candidates"])
        ids = [str(board.get_row_at(i)[1]).removeprefix("★ ") for i in range(board.row_count)]
        assert ids == [c["id"] for c in last["candidates"]]  # ranked by μ − kσ, as reported
        first = last["candidates"][0]
        row = board.get_row_at(0)
        assert str(row[2]) == first["operator"] and str(row[7]) == f"{first['conservative']:.2f}"
        starred = [i for i in range(board.row_count) if str(board.get_row_at(i)[1]).startswith("★")]
        assert [ids[i] for i in starred] == [last["incumbent"]]
        assert "champion vs seed context" in _text(screen, "#sp-diff")
        # keys: help, the dashboard underneath and back, quit
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape", "d")
        assert isinstance(app.screen, DashboardScreen)
        footer = " ".join(
            b.binding.description for b in app.active_bindings.values() if b.binding.show
        )
        assert "back to self-play" in footer  # the way back is in the dashboard's footer
        await pilot.press("s")
        assert isinstance(app.screen, SelfPlayScreen)
        await pilot.press("d", "escape")  # escape goes back too
        assert isinstance(app.screen, SelfPlayScreen)
        # the games' leaderboard rates nothing in self-play: it says where the scores are
        await pilot.press("d", "l")
        assert isinstance(app.screen, LeaderboardScreen)
        assert "on the self-play screen" in _text(app.screen, "#lb-agent")
        await pilot.press("escape", "s")
        assert isinstance(app.screen, SelfPlayScreen)
        await pilot.press("q")
    assert app.return_code == 0


def test_a_champion_with_worked_examples_shows_them_in_the_diff(tmp_path: Path) -> None:
    seed = {"id": "c-seed", "style": None, "insights": []}
    examples = [{"situation": f"Turn {t} of 10\x1b[2J", "answer": '{"choice": "pass"}'}
                for t in range(1, 9)]  # fmt: skip
    champ = {**seed, "id": "c-champ", "examples": examples}
    signs = [(d.sign, d.text) for d in context_diff(seed, champ, tmp_path / "missing.sqlite")]
    assert signs[0] == (" ", "worked examples: 0 → 8")
    plus = [t for sign, t in signs if sign == "+"]
    assert plus[0].startswith("Turn 1 of 10␛[2J → ") and plus[-1] == "… and 2 more"
    assert len(plus) == 7 and not any("\x1b" in t for t in plus)
    assert context_diff(seed, seed, tmp_path / "missing.sqlite")[0].text == (
        "the champion is the seed context"
    )


async def test_agent_written_context_text_is_escaped_in_the_diff(
    finished: Path, tmp_path: Path
) -> None:
    seed = {"id": "c-seed", "style": "[bold red]loud[/] \x1b[2J", "insights": ["x"]}
    champ = {"id": "c-champ", "style": "Be brief.\u2028then", "insights": []}
    lines = context_diff(seed, champ, tmp_path / "missing.sqlite")
    signs = [(d.sign, d.text) for d in lines]
    assert (" ", "style") in signs
    minus = next(t for s, t in signs if s == "-" and "loud" in t)
    assert "\x1b" not in minus and "␛[2J" in minus and "[bold red]" in minus
    plus = next(t for s, t in signs if s == "+" and "brief" in t)
    assert "\u2028" not in plus
    assert ("-", "x") in signs  # an insight the bank cannot name shows its id
    # on screen the markup stays text
    (finished / "r0" / "seed.json").write_text(
        json.dumps(
            {**json.loads((finished / "r0" / "seed.json").read_text()), "style": seed["style"]}
        )
    )
    view = load(finished)
    assert any("␛[2J" in d.text for d in view.diff)
    app = SelfPlayApp(finished)
    async with app.run_test(size=SIZE) as pilot:
        await _until(pilot, lambda: _drawn(app) and "loud" in _text(app.screen, "#sp-diff"))
        diff = _text(app.screen, "#sp-diff")
        assert "[bold red]loud[/]" in diff and "␛[2J" in diff


async def test_a_live_run_is_shown_while_it_plays(tmp_path: Path) -> None:
    from tournaments.selfplay.live import live_match_id

    root = tmp_path / "sp"
    with ServerThread(ContextEngine(seed=1)) as server:
        raw = small_config(server.url, seed_bank(tmp_path / "seed.sqlite"), concurrency=2)
        app: SelfPlayApp | None = None
        seen: set[int] = set()

        def sinks(spec):  # type: ignore[no-untyped-def]
            assert app is not None
            return [app.feed(live_match_id(spec))]

        selfplay = SelfPlay(parse(raw), root, extra_sinks=sinks)

        async def job() -> None:
            await selfplay.run()

        app = SelfPlayApp(root, job=job)
        async with app.run_test(size=SIZE) as pilot:

            def progressed() -> bool:
                seen.add(app.selfplay_view.done_generations)
                return _drawn(app)

            await _until(pilot, progressed, timeout=240)
            assert app.job_done and app.job_error is None
            assert 0 in seen and 2 in seen  # drawn before and after the generations
            games = app.selfplay_view.budget["total"]["games"]
            assert len(app.model.matches) == games  # every game fed the dashboard
            assert all(m.startswith("r0-") for m in app.model.matches)
            # the games dashboard's header says which run, that it finished, and its games
            await _until(pilot, lambda: app.model.status == "finished", timeout=30)
            assert app.model.run_id == app.selfplay_view.name != ""
            assert app.model.done == games and app.model.running == 0 == app.model.failed


_SPENT = re.compile(r"spent: (\d+) games · \d+ steps · (\d+) LLM calls")


async def test_the_screen_counts_games_and_calls_as_they_happen(tmp_path: Path) -> None:
    """The model stops answering inside the first generation: while it is stuck, before any
    generation summary exists, the screen already counts the games played and the calls made
    (it used to read "0 games · 0 LLM calls" until the first generation ended)."""
    root = tmp_path / "sp"
    engine = HeldEngine(seed=1, hold_after=12)
    with ServerThread(engine) as server:
        raw = small_config(server.url, seed_bank(tmp_path / "seed.sqlite"), concurrency=2)
        selfplay = SelfPlay(parse(raw), root)

        async def job() -> None:
            await selfplay.run()

        app = SelfPlayApp(root, job=job, spent=selfplay.ledger.as_dict)
        try:
            async with app.run_test(size=SIZE) as pilot:

                def counted() -> tuple[int, int]:
                    screen = app.screen
                    if not isinstance(screen, SelfPlayScreen) or not getattr(screen, "ready", 0):
                        return (0, 0)
                    found = _SPENT.search(_text(screen, "#sp-stats"))
                    return (int(found[1]), int(found[2])) if found else (0, 0)

                await _until(pilot, lambda: engine.held.is_set() and min(counted()) > 0)
                assert not engine.release.is_set()  # still stuck in generation 0
                assert not list(root.glob("r0/g*/generation.json"))
                games, calls = counted()
                assert 1 <= games < 9 and 1 <= calls <= 12
                # no generation finished yet: it says 0 of them (it said "-")
                assert "generation 0/" in _text(app.screen, "#sp-stats")
                engine.release.set()
                await _until(pilot, lambda: _drawn(app), timeout=240)
                assert app.job_error is None
                final = selfplay.ledger.as_dict()["total"]
                assert counted() == (final["games"], final["llm_calls"])
        finally:
            engine.release.set()
