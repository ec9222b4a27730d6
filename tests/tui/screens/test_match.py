"""The match and replay screens tell a person what happened: which agent sits where (only where
the viewer may know it), readable lines instead of payload JSON, a replay that opens on its
first event with one seat table header."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

from textual.widgets import DataTable, RichLog

from arena.live import topics
from arena.sinks import read_jsonl
from tui.app import ArenaApp
from tui.model import RunModel
from tui.screens.match import MatchScreen, ReplayScreen
from tui.sources import MqttSource, RunDirSource, replay_events

SIZE = (160, 45)
AGENT = 2  # the seat table's agent column
LONG_FLOAT = re.compile(r"\d\.\d{3,}")


def transcript(screen: Any) -> str:
    """The transcript's text, wrapped lines joined back (the panel wraps long lines)."""
    lines = screen.query_one("#transcript", RichLog).lines
    return "\n".join(line.text for line in lines).replace(" \n", " ")


def agent_cells(screen: Any) -> list[str]:
    table = screen.query_one("#seats", DataTable)
    return [str(table.get_row_at(r)[AGENT]) for r in range(table.row_count)]


async def _until(pilot: Any, predicate: Any, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout} s")
        await pilot.pause(0.05)


def _record(run: Path) -> Path:
    return sorted((run / "matches").glob("*.jsonl"))[0]


def _seating(run: Path) -> dict[str, str]:
    truth = next(e for e in read_jsonl(_record(run)) if e.type == "ground_truth")
    return {
        s: f"{entry} ({truth.payload['kinds'][s]})" for s, entry in truth.payload["seats"].items()
    }


async def _open_live(pilot: Any, app: ArenaApp) -> MatchScreen:
    await _until(pilot, lambda: len(app.model.matches) == 1 and app.model.done == 1)
    app.open_match(next(iter(app.model.matches)))
    await _until(
        pilot, lambda: isinstance(app.screen, MatchScreen) and getattr(app.screen, "ready", False)
    )
    screen = app.screen
    assert isinstance(screen, MatchScreen)
    await _until(pilot, lambda: screen.query_one("#seats", DataTable).row_count == 8)
    return screen


async def test_god_view_names_every_seats_agent_and_kind_even_when_the_seating_is_secret(
    secret_seating_run: Path,
) -> None:
    record = _record(secret_seating_run)
    start = next(e for e in read_jsonl(record) if e.type == "match_start")
    assert start.payload["seats"] == {}  # the seating is secret: not in the public record
    seating = _seating(secret_seating_run)
    app = ArenaApp(source=RunDirSource(secret_seating_run))
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_live(pilot, app)
        await _until(pilot, lambda: all(agent_cells(screen)))
        assert agent_cells(screen) == [seating[str(s)] for s in range(8)]
        assert {c.split(" ")[1] for c in agent_cells(screen)} == {
            "(werewolf.rule)",
            "(werewolf.random)",
        }
        # a player's view: its own agent, never another seat's (it would hint at the roles)
        await pilot.press("v")
        assert screen.view == 0
        assert agent_cells(screen) == [seating["0"], *[""] * 7]
        await pilot.press("shift+v")
        assert agent_cells(screen) == [seating[str(s)] for s in range(8)]


def _seat_stream_model(run: Path, seat: int) -> RunModel:
    """What a watcher holding only ``seat``'s credential folds: the seat topic's batches."""
    model = RunModel()
    events = list(read_jsonl(_record(run)))
    mine = [e.model_dump(mode="json") for e in events if e.delivered_to(seat)]
    topic = topics.seat("run", events[0].match_id, seat)
    MqttSource.handle(model, topic, json.dumps({"v": 1, "events": mine}).encode())
    assert model.malformed == 0 and model.events_seen == len(mine)
    return model


async def _seat_stream_agents(run: Path) -> list[str]:
    model = _seat_stream_model(run, 3)
    app = ArenaApp(model=model)
    async with app.run_test(size=SIZE) as pilot:
        app.open_match(next(iter(model.matches)))
        await _until(pilot, lambda: getattr(app.screen, "ready", False))
        return agent_cells(app.screen)


async def test_a_seat_streams_spectator_view_shows_agents_only_of_a_public_seating(
    secret_seating_run: Path, public_seating_run: Path
) -> None:
    assert await _seat_stream_agents(secret_seating_run) == [""] * 8
    public = _seating(public_seating_run)
    assert await _seat_stream_agents(public_seating_run) == [public[str(s)] for s in range(8)]


async def test_decisions_votes_and_beliefs_read_as_words_not_json(
    secret_seating_run: Path,
) -> None:
    events, truncated = replay_events(_record(secret_seating_run))
    kinds = {e.type for e in events}
    assert {"decision", "belief_report", "belief", "vote_result", "ground_truth"} <= kinds
    app = ArenaApp(replay=events, truncated=truncated)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("G")
        screen = app.screen
        assert isinstance(screen, ReplayScreen) and screen.cursor == len(events)
        for view in ("spectator", "seat 0"):
            shown = transcript(screen).replace("\n", "")
            assert '{"' not in shown and not LONG_FLOAT.search(shown), view
            await pilot.press("v")
        await pilot.press("shift+v")
        shown = transcript(screen).replace("\n", "")
        assert "P(wolves): " in shown and " chose " in shown
        table = screen.query_one("#seats", DataTable)
        cells = [str(c) for r in range(table.row_count) for c in table.get_row_at(r)]
        assert not any('{"' in c or LONG_FLOAT.search(c) for c in cells)
        await pilot.press("escape")


async def test_replay_opens_on_the_first_event_with_one_seat_table_header(
    secret_seating_run: Path,
) -> None:
    events, truncated = replay_events(_record(secret_seating_run))
    app = ArenaApp(replay=events, truncated=truncated)
    async with app.run_test(size=SIZE) as pilot:
        await _until(pilot, lambda: getattr(app.screen, "ready", False))
        screen = app.screen
        assert isinstance(screen, ReplayScreen) and screen.cursor == 1  # no key pressed
        assert events[0].text and events[0].text in transcript(screen)
        table = screen.query_one("#seats", DataTable)
        labels = [str(c.label) for c in table.columns.values()]
        assert labels == ["seat", "name", "agent", "role", "alive", "vote", "belief"]
        await pilot.press("g")  # the start is the first event too, not an empty screen
        assert screen.cursor == 1 and events[0].text in transcript(screen)
        await pilot.press("escape")


async def test_uppercase_V_as_a_terminal_sends_it_returns_to_the_spectator_view(
    secret_seating_run: Path,
) -> None:
    # a terminal (tmux included) delivers shift+v as the key "V", not "shift+v"
    events, truncated = replay_events(_record(secret_seating_run))
    app = ArenaApp(replay=events, truncated=truncated)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        await pilot.press("v", "v")
        assert screen.view == 1
        await pilot.press("V")
        assert screen.view is None
