"""The ``arena`` command line.

Exit codes: 0 success, 1 runtime failure, 2 bad input (config, arguments), 130 interrupted
(Ctrl-C or SIGTERM: a run stops cleanly, is marked ``interrupted`` and can be resumed), 141
when the reader of the output went away (``arena envs --json | head``; nothing on stderr).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import json
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table

from app.wording import count
from arena.errors import ConfigError
from arena.untrusted import printable

if TYPE_CHECKING:
    from app.live import LiveOptions, LiveSession

# Optional command groups; each module exposes add_commands(subparsers) and imports its heavy
# dependencies lazily, so `arena --help` stays fast and works without the extras installed.
EXTENSIONS = (
    "app.commands.envs",
    "app.commands.runs",
    "app.commands.serve",
    "app.commands.watch",
    "app.commands.score",
    "app.commands.personas",
    "app.commands.memory",
    "app.commands.selfplay",
    "app.commands.export",
    "app.commands.play",
    "app.commands.remote",
)

console = Console()
err_console = Console(stderr=True)


def _fail(problems: list[str], code: int = 2) -> int:
    from app.startup import report

    return report(problems, code)


# -- arena run ----------------------------------------------------------------------------
def cmd_run(args: argparse.Namespace) -> int:
    from app import startup
    from tournaments import config as tconfig
    from tournaments.executor import Tournament, new_run_id
    from tournaments.rundir import RunLocked

    overrides = {
        "matches": args.matches,
        "concurrency": args.concurrency,
        "master_seed": args.seed,
        "output_dir": args.output,
    }
    limit = tconfig.MAX_PLANNED if args.max_planned is None else args.max_planned
    if limit < 1:
        return _fail([f"--max-planned: must be at least 1, not {limit}"])
    try:
        if args.resume:
            from tournaments.resume import adopt, check_resume, stale_plan

            run_dir = Path(args.resume)
            config = tconfig.load(args.config or run_dir / "config.yaml", overrides, limit)
            run_id, diff = check_resume(run_dir, config, force=args.force)
            from arena.memory.evidence import recorded_head_problems

            # a bank it grew, cut back or rewritten since: refused
            if problems := recorded_head_problems(run_dir):
                return _fail(problems)
        else:
            if not args.config:
                return _fail(["give a CONFIG.yaml (or --resume RUN_DIR)"])
            if args.run_id is not None:
                startup.check_run_id(args.run_id)
            config = tconfig.load(args.config, overrides, limit)
            run_id = args.run_id or new_run_id(config)
            run_dir = Path(config.output_dir) / run_id
            if (run_dir / "config.yaml").exists():
                return _fail([f"{run_dir} already exists; use --resume {run_dir} to continue it"])
        if not args.tui:  # a human seat is played from the TUI (docs/human.md)
            from app.commands.play import headless_problems

            if headless_problems(config):
                return _fail(headless_problems(config))
        if args.check:  # validate-only: the plan and the backends, nothing written
            for line in startup.preflight_now(config.agents):
                console.print(line, highlight=False, markup=False)
            from tournaments.schedule import coverage_note, plan

            specs = plan(config)
            n = len(specs) or tconfig.planned_matches(config)  # rating_driven: at most
            console.print(
                f"config ok: {count(n, 'match', 'matches')} planned ({config.format})",
                highlight=False,
            )
            console.print(coverage_note(config, specs), highlight=False, markup=False)
            return 0
        if args.tui:  # the TUI starts its own loop; check the backends first
            startup.preflight_now(config.agents)
    except ConfigError as err:
        return _fail(err.problems)

    existed = run_dir.exists()
    live = _live_session(args, run_id, run_dir)
    tournament = Tournament(
        config,
        run_dir,
        run_id,
        extra_sinks=run_sinks(live, _metrics_sinks(args, run_dir)),
        preflighted=bool(args.tui),  # checked above, before the TUI takes the terminal
    )
    if args.resume and not diff and (stale := stale_plan(run_dir, tournament.specs)):
        if not args.force:
            return _fail(stale)
        diff = stale
    if args.resume and diff:
        dropped = adopt(run_dir, run_id, config, tournament.specs)
        err_console.print(
            f"[yellow]--force:[/] resuming with a changed config; unfinished matches replanned"
            f" ({dropped} dropped)",
            highlight=False,
        )

    def announce() -> None:
        console.print(
            f"run [bold]{run_id}[/] → {run_dir}  ({_planned(config, tournament)}, "
            f"concurrency {config.concurrency})",
            highlight=False,
        )

    from app.progress import progress_display

    try:
        if live is not None and args.tui:
            from app.live import run_with_tui

            announce()
            return run_with_tui(tournament, live, quiet=args.quiet)
        with progress_display(len(tournament.specs), quiet=args.quiet) as progress:
            results = asyncio.run(_run_tournament(tournament, progress, live, announce))
    except ConfigError as err:  # a preflight failure: nothing was run
        startup.remove_if_new(run_dir, existed)
        return _fail(err.problems)
    except RunLocked as err:
        return _fail([str(err)], code=1)
    except KeyboardInterrupt:
        err_console.print(
            f"\ninterrupted; finished matches are saved. Resume with:\n"
            f"  arena run --resume {run_dir}"
        )
        return 130
    print_leaderboard(results)
    print_llm_summary(run_dir, results)
    print_bank_heads(run_dir)
    failed = [r for r in results if r.status != "finished"]
    if failed:
        console.print(f"[yellow]{count(len(failed), 'match', 'matches')} did not finish:[/]")
        for r in failed[:10]:
            # a reason may echo an agent's answer: printed as text, escapes shown
            line = printable(f"  {r.match_id}: {r.status} — {r.reason}", newlines="mark")
            console.print(line, highlight=False, markup=False)
    console.print(f"results: {run_dir / 'arena.sqlite'}   records: {run_dir / 'matches'}")
    return 0


def _planned(config: Any, tournament: Any) -> str:
    """How many matches the run plans (rating-driven runs plan in rounds, up to a budget)."""
    if getattr(config, "format", "") == "rating_driven":
        budget = getattr(getattr(config, "rating_driven", None), "budget", None)
        return f"rating-driven, up to {count(budget or 0, 'match', 'matches')}"
    return count(len(tournament.specs), "match", "matches")


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
                _fail([f"live view unavailable: {err} (pip install 'llm-arena[live]')"])
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


def print_llm_summary(run_dir: Path, results: list[Any]) -> None:
    """Per-call latency, tokens and tokens/s of each LLM backend the run's matches used."""
    from app.llm_summary import run_summary

    for line in run_summary(Path(run_dir), results):
        console.print(line, highlight=False, markup=False)


def print_bank_heads(run_dir: Path) -> None:
    """The head each bank the run grew was left at, and how to check it later."""
    from arena.memory.evidence import head_lines

    for line in head_lines(run_dir):
        console.print(line, highlight=False, markup=False, soft_wrap=True)


def print_leaderboard(results: list[Any], as_json: bool = False) -> None:
    from arena.ratings.leaderboard import leaderboard

    rows = leaderboard(results)
    if as_json:
        print(json.dumps([r.model_dump() for r in rows], indent=2))
        return
    table = Table(
        title="Leaderboard (batch Bradley–Terry fit over all results, factions as teams; "
        "sorted by μ)",
        title_justify="left",
    )
    for col in ("agent", "μ", "σ", "μ−3σ", "games", "wins", "draws", "losses", "win rate"):
        table.add_column(col, justify="left" if col == "agent" else "right")
    for r in rows:
        table.add_row(
            r.agent,
            f"{r.mu:.2f}",
            f"{r.sigma:.2f}",
            f"{r.conservative:.2f}",
            str(r.games),
            str(r.wins),
            str(r.draws),
            str(r.losses),
            f"{r.win_rate:.3f}",
        )
    console.print(table)
    n = len(results)
    finished = sum(1 for r in results if r.status == "finished")
    console.print(f"{finished}/{count(n, 'match', 'matches')} finished; games count seats played.")
    from app.commands.runs import coverage_lines
    from arena.ratings.coverage import results_coverage

    for line in coverage_lines(results_coverage(results), cross_table=False):
        console.print(line, highlight=False, markup=False)


# -- entry point --------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="arena",
        description="A multi-agent simulation arena for LLM games and social dialogue.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

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
    p.add_argument(
        "--no-metrics",
        action="store_true",
        help="do not stream per-turn privacy/persona metrics (RUN_DIR/metrics/)",
    )
    add_executor_flags(p)
    p.set_defaults(func=cmd_run)

    for module in EXTENSIONS:
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError as err:
            if err.name and module.startswith(err.name):
                continue  # that part of the arena is not in this tree
            raise
        mod.add_commands(sub)
    if "selfplay" in sub.choices:  # its games are tournament matches: the same executors
        add_executor_flags(sub.choices["selfplay"])
    return parser


def add_executor_flags(p: argparse.ArgumentParser) -> None:
    group = p.add_argument_group("executor (docs/distributed.md)")
    group.add_argument(
        "--executor",
        choices=("asyncio", "ray"),
        default="asyncio",
        help="where matches play: this process (asyncio, default) or a Ray cluster",
    )
    group.add_argument(
        "--address",
        metavar="auto|HOST:PORT",
        help="with --executor ray: join this running cluster (default: start a local one)",
    )


def executor_problem(args: argparse.Namespace) -> str | None:
    """Why the executor flags cannot work (None when they can)."""
    if getattr(args, "executor", "asyncio") != "ray":
        return "--address needs --executor ray" if getattr(args, "address", None) else None
    try:
        import ray  # noqa: F401
    except ImportError as err:
        return f"--executor ray: {err} (pip install 'llm-arena[ray]')"
    return None


@contextlib.contextmanager
def executor_for(args: argparse.Namespace) -> Iterator[None]:
    """Run the command with the executor its flags name (tournaments built in it use it)."""
    if getattr(args, "executor", "asyncio") != "ray":
        yield
        return
    from tournaments.executor import use_executor
    from tournaments.ray.executor import RayExecutor

    executor = RayExecutor(address=args.address)
    try:
        with use_executor(executor):
            yield
    finally:
        asyncio.run(executor.close())


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    from app.commands.runs import sigterm_as_interrupt

    problem = executor_problem(args)
    if problem is not None:
        return _fail([problem])
    try:
        with sigterm_as_interrupt(), executor_for(args):  # SIGTERM stops as Ctrl-C does
            code = int(args.func(args))
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's exit
    except BrokenPipeError:
        return closed_pipe()
    except SystemExit as stop:  # rich stops a console that met a closed pipe with exit 1
        if isinstance(stop.__context__, BrokenPipeError):
            return closed_pipe()
        raise
    return code


# 128 + SIGPIPE: what a shell reports for a tool stopped by a closed pipe (`arena ... | head`)
EXIT_CLOSED_PIPE = 141


def closed_pipe() -> int:
    """The reader of stdout went away (``| head``): stop quietly, no traceback. Later writes
    (the interpreter flushes stdout at exit) go to /dev/null, so they cannot fail again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return EXIT_CLOSED_PIPE


if __name__ == "__main__":
    sys.exit(main())
