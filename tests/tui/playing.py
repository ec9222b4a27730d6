"""A scripted person at the play UI: key presses only, as a player would type them."""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from textual.widgets import Input, OptionList, RichLog, Static

from app.commands.play import human_timeout, play_job, seat_humans
from arena.agents.human import HumanDesk
from tournaments.config import parse
from tournaments.executor import Tournament
from tui.play import PlayApp
from tui.screens.play import OPTION_KEYS, PassScreen, PlayScreen
from tui.screens.play_end import EndScreen

SIZE = (160, 48)


def tournament(
    tmp: Path,
    raw: dict[str, Any],
    seats: list[int],
    human_s: float | None = None,
    matches: int = 1,
    **policy: Any,
) -> Tournament:
    """A run with ``seats`` played by the entry ``human`` (``human_s``: its own time limit, as
    ``arena play --human-timeout``; ``policy``: the tournament policy, the bots' limits)."""
    config = parse({**raw, "output_dir": str(tmp), **({"policy": policy} if policy else {})})
    config = seat_humans(config, seats, matches, "human")
    if human_s is not None:
        config = human_timeout(config, human_s)
    return Tournament(config, tmp / "play", "play")


def play_app(t: Tournament, outcome: dict[str, Any]) -> PlayApp:
    app = PlayApp(HumanDesk(), humans=frozenset({"human"}))
    app.job = play_job(t, None, app, outcome)
    return app


@contextlib.contextmanager
def loop_clock() -> Iterator[Callable[[float], None]]:
    """Move the running event loop's clock forward (``advance(seconds)``): every time limit
    set before is then past, with no wall-clock wait. Restored afterwards."""
    loop = asyncio.get_running_loop()
    real = loop.time
    offset = [0.0]

    def moved() -> float:
        return real() + offset[0]

    def advance(seconds: float) -> None:
        offset[0] += seconds

    setattr(loop, "time", moved)  # noqa: B010 (an instance attribute over the method)
    try:
        yield advance
    finally:
        delattr(loop, "time")


async def loop_turns(n: int = 20) -> None:
    """Let the event loop run ``n`` turns (due timers fire, cancelled tasks unwind)."""
    for _ in range(n):
        await asyncio.sleep(0)


def screen_text(screen: Any) -> str:
    """Everything the screen's widgets hold (scrolled-out lines too)."""
    parts: list[str] = []
    for widget in screen.query("*"):
        if isinstance(widget, RichLog):
            parts += [line.text for line in widget.lines]
        elif isinstance(widget, OptionList):
            parts += [str(widget.get_option_at_index(i).prompt) for i in range(widget.option_count)]
        elif isinstance(widget, Input):
            parts.append(widget.value)
        elif isinstance(widget, Static):
            parts.append(str(widget.content))
    return "\n".join(parts)


def typed(text: str) -> list[str]:
    return ["space" if c == " " else c for c in text]


def keys_for(screen: PlayScreen, rng: random.Random) -> list[str]:
    """The key presses of one answer to the screen's decision (chosen at random)."""
    d = screen.decision
    speak = d.free_text and not d.belief_only and (not d.options or rng.random() < 0.5)
    message = rng.choice(["i trust nobody", "hello there", "deal"])
    if speak and (not d.options or rng.random() < 0.7):
        return ["ctrl+t", *typed(message), "enter"]
    keys: list[str] = []
    if d.free_text and speak:  # a message that goes with the choice
        keys += ["ctrl+t", *typed(message), "ctrl+o"]
    if d.belief_only:  # a likelihood for the first two players, or the skip option
        if d.silent_option and rng.random() < 0.5:
            return [*keys, OPTION_KEYS[d.option_ids.index(d.silent_option)]]
        # the first player "yes" (5); the second: a first step is "can't tell", then up one
        # level and down again: "can't tell" (0.5)
        return ["home", "5", "down", "right", "right", "left", "ctrl+s"]
    n = len(d.options)
    if d.max_choices > 1:
        k = rng.randint(max(d.min_choices, 1), min(d.max_choices, n))
        return [*keys, *(OPTION_KEYS[i] for i in rng.sample(range(n), k)), "ctrl+s"]
    i = rng.randrange(n)
    if i >= len(OPTION_KEYS) or rng.random() < 0.25:  # by arrows, as without a key
        return [*keys, "ctrl+o", "home", *(["down"] * i), "enter"]
    return [*keys, OPTION_KEYS[i]]


async def until(pilot: Any, predicate: Any, timeout: float = 120.0) -> None:
    """Poll until ``predicate()``; the deadline only matters when it never holds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout} s")
        await pilot.pause(0.01)


def logs_drawn(screen: Any) -> bool:
    """Every transcript log of the screen has drawn what was written to it: a RichLog keeps
    writes back until it knows its size, and a screen read before would hold no transcript (a
    privacy check on it would pass for nothing)."""
    return all(w._size_known and not w._deferred_renders for w in screen.query(RichLog))


def turn_ready(app: PlayApp) -> bool:
    screen = app.screen
    if app.job_done:
        return True
    if isinstance(screen, (PassScreen, EndScreen)):
        return screen.ready
    return (
        isinstance(screen, PlayScreen)
        and screen.ready
        and screen.accepting
        and screen.request.open
        and logs_drawn(screen)
    )


async def play_through(
    pilot: Any, app: PlayApp, rng: random.Random, on_turn: Any = None, answer: bool = True
) -> int:
    """Press keys until the run is over; ``on_turn(screen)`` sees every screen before a key.
    Returns the number of answers typed."""
    answers = 0
    while True:
        await pilot.pause()  # never spin without letting the app run
        await until(pilot, lambda: turn_ready(app))
        if app.job_done:
            return answers
        screen = app.screen
        if on_turn is not None:
            on_turn(screen)
        if isinstance(screen, (PassScreen, EndScreen)):
            await pilot.press("enter")
            await until(pilot, lambda s=screen: app.screen is not s or app.job_done)
            continue
        assert isinstance(screen, PlayScreen)
        request = screen.request
        if not answer:
            await until(pilot, lambda r=request: not r.open)
            continue
        await pilot.press(*keys_for(screen, rng))
        await until(pilot, lambda r=request, s=screen: not r.open or not s.accepting)
        if request.open:  # refused in the UI (e.g. an engine rule): try again
            continue
        answers += 1
