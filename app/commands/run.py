"""``arena run``: load a tournament config (or resume a run), check it, run it with its live
session and streaming metrics around it, and print the board.

Exit codes are the CLI's (``app.cli``): 2 bad input with nothing written, 1 a run already
running in that directory, 130 interrupted (resumable with ``--resume``).
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.commands.runs import bootstrap_settings
from app.console import (
    console,
    err_console,
    fail,
    print_bank_heads,
    print_leaderboard,
    print_llm_summary,
    print_stops,
)
from app.executors import add_executor_flags
from app.wording import count
from arena.errors import ConfigError
from arena.untrusted import printable

if TYPE_CHECKING:
    from app.live import LiveOptions, LiveSession


@dataclass
class _Opened:
    """A run about to start: its config, id and directory, and (resuming) the config diff."""

    config: Any
    run_id: str
    run_dir: Path
    diff: list[str] | None = None  # None: a new run


def add_commands(sub: Any) -> None:
    p = sub.add_parser(
        "run",
        help="run a tournament from a YAML config",
        description="Run every match of CONFIG concurrently, write runs/<run_id>/ "
        "(config.yaml, arena.sqlite, matches/*.jsonl) and print the leaderboard.",
    )
    p.add_argument("config", nargs="?", help="tournament config (YAML)")
    p.add_argument("--resume", metavar="RUN_DIR", help="finish the missing matches of a run")
    p.add_argument("--matches", type=int, help="override the number of matches")
    p.add_argument("--concurrency", type=int, help="override the number of concurrent matches")
    p.add_argument("--seed", type=int, help="override the master seed")
    p.add_argument("--output", help="parent directory of run directories (default: runs)")
    p.add_argument("--run-id", help="name the run directory (default: <name>-<time>-<hex>)")
    p.add_argument(
        "--check",
        action="store_true",
        help="validate the config, count the plan and preflight the LLM backends; "
        "run nothing and write nothing",
    )
    p.add_argument(
        "--max-planned",
        type=int,
        metavar="N",
        help="the most matches a run may plan (default: 100000; repeats included)",
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="with --resume: accept a changed config (unfinished matches are replanned)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    _add_live_flags(p)
    p.add_argument(
        "--no-metrics",
        action="store_true",
        help="do not stream per-turn privacy/persona metrics (RUN_DIR/metrics/)",
    )
    add_executor_flags(p)
    p.set_defaults(func=cmd_run)


def _add_live_flags(p: argparse.ArgumentParser) -> None:
    live = p.add_argument_group("live view (MQTT event bus and terminal UI)")
    live.add_argument(
        "--broker",
        metavar="URL",
        help="publish to an external MQTT broker, mqtt://[user:pass@]host:port "
        "(default: an embedded broker on 127.0.0.1)",
    )
    live.add_argument("--no-broker", action="store_true", help="do not publish events live")
    live.add_argument(
        "--require-broker", action="store_true", help="fail fast when the broker cannot be reached"
    )
    live.add_argument("--tui", action="store_true", help="watch the run live in the terminal UI")
    live.add_argument(
        "--no-seat-streams",
        action="store_true",
        help="publish only the spectator stream per match, not one stream per seat (cheaper)",
    )


# -- arena run ----------------------------------------------------------------------------
def cmd_run(args: argparse.Namespace) -> int:
    from tournaments import config as tconfig

    limit = tconfig.MAX_PLANNED if args.max_planned is None else args.max_planned
    if limit < 1:
        return fail([f"--max-planned: must be at least 1, not {limit}"])
    try:
        opened = _open(args, limit)
        if isinstance(opened, int):
            return opened
        code = _check(args, opened.config)
        if code is not None:
            return code
    except ConfigError as err:
        return fail(err.problems)
    return _play(args, opened)


def _open(args: argparse.Namespace, limit: int) -> _Opened | int:
    """The run to start: a resumed one (its directory, the config diff) or a new one; an exit
    code when it cannot start. Raises ConfigError on a bad config."""
    from app import startup
    from tournaments import config as tconfig
    from tournaments.executor import new_run_id

    overrides = {
        "matches": args.matches,
        "concurrency": args.concurrency,
        "master_seed": args.seed,
        "output_dir": args.output,
    }
    if args.resume:
        from arena.memory.evidence import recorded_head_problems
        from tournaments.resume import check_resume

        run_dir = Path(args.resume)
        config = tconfig.load(args.config or run_dir / "config.yaml", overrides, limit)
        run_id, diff = check_resume(run_dir, config, force=args.force)
        # a bank it grew, cut back or rewritten since: refused
        if problems := recorded_head_problems(run_dir):
            return fail(problems)
        return _Opened(config, run_id, run_dir, diff)
    if not args.config:
        return fail(["give a CONFIG.yaml (or --resume RUN_DIR)"])
    if args.run_id is not None:
        startup.check_run_id(args.run_id)
    config = tconfig.load(args.config, overrides, limit)
    run_id = args.run_id or new_run_id(config)
    run_dir = Path(config.output_dir) / run_id
    if (run_dir / "config.yaml").exists():
        return fail([f"{run_dir} already exists; use --resume {run_dir} to continue it"])
    return _Opened(config, run_id, run_dir)


def _check(args: argparse.Namespace, config: Any) -> int | None:
    """The checks before anything is written: human seats need the TUI, ``--check`` stops
    after the plan and the preflight (exit 0), ``--tui`` preflights before its own loop."""
    from app import startup
    from tournaments import config as tconfig

    if not args.tui:  # a human seat is played from the TUI (docs/human.md)
        from app.commands.play import headless_problems

        if headless_problems(config):
            return fail(headless_problems(config))
    if args.check:  # validate-only: the plan and the backends, nothing written
        for line in startup.preflight_now(config.agents):
            console.print(line, highlight=False, markup=False)
        from tournaments.schedule import coverage_note, plan

        specs = plan(config)
        n = len(specs) or tconfig.planned_matches(config)  # rating_driven: at most
        planned = f"up to {count(n, 'match', 'matches')}, planned in rounds" if not specs else (
            f"{count(n, 'match', 'matches')} planned"
        )  # fmt: skip
        console.print(f"config ok: {planned} ({config.format})", highlight=False)
        console.print(coverage_note(config, specs), highlight=False, markup=False)
        return 0
    if args.tui:  # the TUI starts its own loop; check the backends first
        startup.preflight_now(config.agents)
    return None


def _play(args: argparse.Namespace, opened: _Opened) -> int:
    """Build the tournament (adopting a changed plan on ``--resume --force``), run it, print."""
    from app import startup
    from app.progress import progress_display
    from tournaments.executor import Tournament
    from tournaments.rundir import RunLocked

    config, run_id, run_dir = opened.config, opened.run_id, opened.run_dir
    existed = run_dir.exists()
    live = _live_session(args, run_id, run_dir)
    sinks = run_sinks(live, _metrics_sinks(args, run_dir))
    # --tui checked the backends above, before the TUI takes the terminal
    tournament = Tournament(config, run_dir, run_id, extra_sinks=sinks, preflighted=bool(args.tui))
    if opened.diff is not None:
        code = _adopt_changes(args, opened, tournament)
        if code is not None:
            return code

    def announce() -> None:
        console.print(
            f"run [bold]{run_id}[/] → {run_dir}  ({_planned(config, tournament)}, "
            f"concurrency {config.concurrency})",
            highlight=False,
        )

    try:
        if live is not None and args.tui:
            announce()
            from app.commands.run_tui import run_with_tui

            return run_with_tui(tournament, live, quiet=args.quiet)
        with progress_display(len(tournament.specs), quiet=args.quiet) as progress:
            results = asyncio.run(_run_tournament(tournament, progress, live, announce))
    except ConfigError as err:  # a preflight failure: nothing was run
        startup.remove_if_new(run_dir, existed)
        return fail(err.problems)
    except RunLocked as err:
        return fail([str(err)], code=1)
    except KeyboardInterrupt:
        err_console.print(
            f"\ninterrupted; finished matches are saved. Resume with:\n"
            f"  arena run --resume {run_dir}"
        )
        return 130
    _print_outcome(run_dir, results, config)
    return 0


def _adopt_changes(args: argparse.Namespace, opened: _Opened, tournament: Any) -> int | None:
    """Resuming: a plan gone stale (or a changed config) is refused without ``--force``, and
    with it the unfinished matches are replanned."""
    from tournaments.resume import adopt, stale_plan

    diff = opened.diff
    if not diff and (stale := stale_plan(opened.run_dir, tournament.specs)):
        if not args.force:
            return fail(stale)
        diff = stale
    if diff:
        dropped = adopt(opened.run_dir, opened.run_id, opened.config, tournament.specs)
        err_console.print(
            f"[yellow]--force:[/] resuming with a changed config; unfinished matches replanned"
            f" ({dropped} dropped)",
            highlight=False,
        )
    return None


def _print_outcome(run_dir: Path, results: list[Any], config: Any) -> None:
    options = config.ratings
    print_leaderboard(
        results,
        threshold=options.max_harness_error,
        strict=options.strict,
        bootstrap=bootstrap_settings(config.model_dump(mode="json")),
    )
    print_llm_summary(run_dir, results)
    print_stops(run_dir)
    print_bank_heads(run_dir)
    failed = [r for r in results if r.status != "finished"]
    if failed:
        console.print(f"[yellow]{count(len(failed), 'match', 'matches')} did not finish:[/]")
        for r in failed[:10]:
            # a reason may echo an agent's answer: printed as text, escapes shown
            line = printable(f"  {r.match_id}: {r.status} — {r.reason}", newlines="mark")
            console.print(line, highlight=False, markup=False)
    console.print(f"results: {run_dir / 'arena.sqlite'}   records: {run_dir / 'matches'}")


def _planned(config: Any, tournament: Any) -> str:
    """How many matches the run plans (rating-driven runs plan in rounds, up to a budget)."""
    if getattr(config, "format", "") == "rating_driven":
        budget = getattr(getattr(config, "rating_driven", None), "budget", None)
        return f"rating-driven, up to {count(budget or 0, 'match', 'matches')}"
    return count(len(tournament.specs), "match", "matches")


# -- what a run is wired to -----------------------------------------------------------------
def live_options(args: argparse.Namespace) -> LiveOptions:
    """``arena run``'s live-view flags as typed options."""
    from app.live import LiveOptions

    return LiveOptions(
        publish=not args.no_broker,
        broker=args.broker,
        require=args.require_broker,
        seat_streams=not args.no_seat_streams,
    )


def _live_session(args: argparse.Namespace, run_id: str, run_dir: Path) -> LiveSession | None:
    """The run's live session when available; None when publishing is off or not installed.

    ``--tui --no-broker`` still gets one (it publishes nothing): the TUI runs the session.
    """
    if args.no_broker and not args.tui:
        return None
    try:
        from app.live import LiveSession
    except ImportError as err:
        if args.broker or args.require_broker or args.tui:
            raise SystemExit(
                fail([f"live view unavailable: {err} (pip install 'llm-arena[live]')"])
            ) from None
        return None
    return LiveSession(run_id, run_dir, live_options(args))


def _metrics_sinks(args: argparse.Namespace, run_dir: Path) -> Callable[[Any], list[Any]] | None:
    """Stream the cheap privacy/persona tiers per turn (RUN_DIR/metrics/*.live.jsonl).

    Off with --no-metrics, or when the metrics extra is not installed.
    """
    if args.no_metrics:
        return None
    try:
        from arena.metrics.stream import metrics_sink_factory
    except ImportError:
        return None
    return metrics_sink_factory(run_dir)


def run_sinks(
    live: LiveSession | None, metrics: Callable[[Any], list[Any]] | None
) -> Callable[[Any], list[Any]] | None:
    """Each match's optional sinks: the live ones, then the streaming metrics.

    Metric events also go to the live sinks of the same match, so a live viewer shows them
    as badges.
    """
    if live is None and metrics is None:
        return None

    def make(spec: Any) -> list[Any]:
        published = live.sinks(spec) if live is not None else []
        streams = metrics(spec) if metrics is not None else []
        for stream in streams:
            stream.forward.extend(published)
        return [*published, *streams]

    return make


async def _run_tournament(
    tournament: Any,
    progress: Any,
    live: LiveSession | None,
    announce: Callable[[], None] | None = None,
) -> Any:
    # before the live session opens (it writes broker.json) and before the run directory
    # exists: a failing backend is a ConfigError with nothing written; in this loop, so the
    # run reuses the backends it checked (and does not check them again)
    await tournament.ready()
    if announce is not None:
        announce()
    from app.progress import ticking

    async with ticking(progress):  # the display moves between match ends
        if live is None:
            return await tournament.run(progress)
        live.nodes_of = lambda: dict(getattr(progress, "nodes", {}))
        async with live:
            return await tournament.run(progress)
