"""``arena export RUN_DIR``: trajectories for training, one row per seat decision.

Loaded by ``app.cli`` (``add_commands``); the export module and its dependencies (pyarrow,
``datasets``) are imported when the command runs. Exit 2 for a run directory that cannot be
exported (missing, being run, unfinished without ``--partial``) or an output in the way.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rich.console import Console

from app.wording import count

console = Console(stderr=True)


def add_commands(sub: Any) -> None:
    p = sub.add_parser(
        "export",
        help="export a run's trajectories (one row per seat decision) for training",
        description="One row per applied seat decision of RUN_DIR: the exact egocentric "
        "observation (and LLM prompt) the seat saw, the legal options, its answer and the "
        "applied action, refusals and fallbacks, the LLM call's model, tokens, latency and "
        "cost, its memory insights, the match outcome and the seat's reward. A row holds "
        "only what its seat saw; the god view only with --god-view. Writes OUT/README.md "
        "(a dataset card with the run's config and leaderboard) beside the data "
        "(docs/export.md).",
    )
    p.add_argument("run_dir", help="a finished run directory")
    p.add_argument(
        "--format",
        choices=["jsonl", "parquet", "hf"],
        default="parquet",
        help="jsonl, parquet (default) or hf: a Hugging Face dataset on disk "
        "(datasets.load_from_disk)",
    )
    p.add_argument("--agent", metavar="NAME", help="only the seats of this agent entry")
    p.add_argument("--role", metavar="R", help="only the seats dealt this role")
    p.add_argument(
        "--outcome",
        choices=["win", "loss", "draw", "none"],
        help="only the seats with this result",
    )
    p.add_argument("--seat", type=int, metavar="N", help="only seat N")
    p.add_argument(
        "--god-view",
        action="store_true",
        help="add the spectator's view to every row: match seed, every seat's ground truth, "
        "the full transcript (not for training a player)",
    )
    p.add_argument("--out", metavar="PATH", help="output directory (default: RUN_DIR/export/FMT)")
    p.add_argument(
        "--max-matches", type=int, metavar="N", help="only the first N matches, in plan order"
    )
    p.add_argument("--partial", action="store_true", help="export an unfinished run's results")
    p.add_argument("--force", action="store_true", help="replace an earlier export at --out")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_export)


@contextmanager
def _progress(quiet: bool) -> Iterator[tuple[Callable[[int], None], Callable[[Any, int], None]]]:
    """(on_start, on_match) callbacks: a bar on a terminal, a line per 10% otherwise."""
    if quiet:
        yield (lambda total: None), (lambda result, n: None)
        return
    if not sys.stderr.isatty():
        state = {"total": 0, "done": 0, "rows": 0, "last": -1}

        def begin(total: int) -> None:
            state["total"] = total

        def line(result: Any, n: int) -> None:
            state["done"] += 1
            state["rows"] += n
            tenth = 10 * state["done"] // max(state["total"], 1)
            if tenth != state["last"]:
                state["last"] = tenth
                print(
                    f"export: {state['done']}/{count(state['total'], 'match', 'matches')}, "
                    f"{count(state['rows'], 'row')}",
                    file=sys.stderr,
                    flush=True,
                )

        yield begin, line
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    bar = Progress(
        TextColumn("[bold]export"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("matches · {task.fields[rows]} rows · ETA"),
        TimeRemainingColumn(),
        console=console,
    )
    task = bar.add_task("export", total=None, rows=0)
    rows = [0]

    def start(total: int) -> None:
        bar.update(task, total=total)

    def step(result: Any, n: int) -> None:
        rows[0] += n
        bar.update(task, advance=1, rows=rows[0])

    with bar:
        yield start, step


def cmd_export(args: argparse.Namespace) -> int:
    from app.startup import report

    try:
        from tournaments.export import ExportError, ExportOptions, RowFilter, export_run
    except ImportError as err:
        return report(
            [f"export needs pyarrow and datasets ({err}); pip install 'llm-arena[export]'"], 1
        )

    options = ExportOptions(
        fmt=args.format,
        out=Path(args.out) if args.out else None,
        keep=RowFilter(agent=args.agent, role=args.role, outcome=args.outcome, seat=args.seat),
        god=args.god_view,
        partial=args.partial,
        force=args.force,
        max_matches=args.max_matches,
    )
    if args.max_matches is not None and args.max_matches < 1:
        return report([f"--max-matches: must be at least 1, not {args.max_matches}"], 2)
    try:
        with _progress(args.quiet) as (on_start, on_match):
            summary = export_run(Path(args.run_dir), options, on_start, on_match)
    except ExportError as err:
        return report([str(err)], 2)
    except KeyboardInterrupt:
        console.print("\ninterrupted; the export is incomplete")
        return 130
    unrecorded = f"; {summary.skipped} never started (no record)" if summary.skipped else ""
    print(
        f"exported {count(summary.rows, 'row')} from {count(summary.matches, 'match', 'matches')}"
        f" ({args.format}) "
        f"to {summary.out}{unrecorded}"
    )
    return 0
