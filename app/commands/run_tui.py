"""``arena run --tui``: the run inside the terminal UI (the play UI when a seat is human), or
headless with a progress bar when no terminal is attached."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.commands.runs import bootstrap_settings
from app.console import print_leaderboard, print_llm_summary

if TYPE_CHECKING:
    from app.live import LiveSession


def run_with_tui(tournament: Any, live: LiveSession, quiet: bool = False) -> int:
    """Run the tournament inside the Textual app; headless fallback without a terminal."""
    from app.commands.play import headless_problems, play_run

    if headless_problems(tournament.config):  # human seats: the play UI, never the god view
        return play_run(tournament, live, quiet)
    if not (sys.stdout.isatty() and sys.stdin.isatty()):
        _say("no terminal attached: running without the TUI")
        return _run_headless(tournament, live, quiet)
    from tournaments.progress import Progress
    from tui.app import ArenaApp
    from tui.sources import RunDirSource

    outcome: dict[str, Any] = {}
    progress = Progress(total=len(tournament.specs))
    live.nodes_of = lambda: dict(progress.nodes)

    async def job() -> None:
        async with live:
            outcome["results"] = await tournament.run(progress)

    source = RunDirSource(Path(tournament.dir.root), extra=lambda: {"nodes": dict(progress.nodes)})
    app = ArenaApp(source=source, job=job)
    app.run()
    if "results" not in outcome:
        _say(
            "interrupted; finished matches are saved. Resume with:\n"
            f"  arena run --resume {tournament.dir.root}"
        )
        return 130
    print_leaderboard(outcome["results"], bootstrap=_bootstrap(tournament))
    print_llm_summary(tournament.dir.root, outcome["results"])
    return 0


def _run_headless(tournament: Any, live: LiveSession, quiet: bool) -> int:
    from app.progress import progress_display, ticking

    with progress_display(len(tournament.specs), quiet=quiet) as prog:

        async def headless() -> Any:
            async with ticking(prog), live:
                return await tournament.run(prog)

        results = asyncio.run(headless())
    print_leaderboard(results, bootstrap=_bootstrap(tournament))
    print_llm_summary(tournament.dir.root, results)
    return 0


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _bootstrap(tournament: Any) -> tuple[int, int]:
    """The seed and resample count of the run's intervals (as ``arena leaderboard`` uses)."""
    return bootstrap_settings(tournament.config.model_dump(mode="json"))
