"""Run-directory commands: ``arena runs``, ``arena show``, ``arena plot`` (the board is
``app.commands.leaderboard``).


Loaded by ``app.cli`` (``add_commands``); heavy imports happen inside the commands.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import signal
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rich.table import Table

from app.console import stdout_console

console = stdout_console()


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """Within the block SIGTERM stops the process as Ctrl-C does (issue 15, item 10).

    A supervisor, ``kill`` or a CI timeout sends SIGTERM; by default it killed ``arena run``
    at once (exit 143, no message, the run left ``running`` and later shown ``crashed``). Here
    it calls whatever handles SIGINT now: inside ``asyncio.run`` that cancels the main task,
    so the run stops cleanly, is marked ``interrupted`` and says how to resume; elsewhere the
    default handler raises KeyboardInterrupt.

    A process may start with SIGINT ignored: a background job of a shell without job control
    (``arena run big.yaml &`` in a script) or of ``nohup``. ``asyncio.run`` then installs no
    SIGINT handler, and a SIGTERM raised KeyboardInterrupt in whatever code ran, past the
    cancellation that marks the run: the run stayed ``running``. So within the block SIGINT
    has Python's default handler: both signals stop a run cleanly, however it was started."""
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may set handlers (and receives the signals)
        return

    def on_term(signum: int, frame: Any) -> None:
        handler = signal.getsignal(signal.SIGINT)
        if callable(handler):
            handler(signal.SIGINT, frame)
        else:  # SIGINT ignored or default at the C level: stop as Ctrl-C would
            raise KeyboardInterrupt

    was_int = signal.getsignal(signal.SIGINT)
    restore_int = not callable(was_int)  # SIG_IGN, SIG_DFL, or None (set outside Python)
    if restore_int:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
        if restore_int:
            signal.signal(signal.SIGINT, was_int if was_int is not None else signal.SIG_DFL)


def _fail(message: str, code: int = 2) -> int:
    from app.startup import report

    return report([message], code)  # markup and control characters in the message escaped


def _open(run_dir: str | Path) -> Any:
    from arena.store import Store

    db = Path(run_dir) / "arena.sqlite"
    if not db.exists():
        raise FileNotFoundError(f"{run_dir}: no arena.sqlite here (not a run directory)")
    return Store(db)


def _load(run_dirs: list[str]) -> tuple[list[Any], dict[str, Any]]:
    """All results of the run directories and the first run's config."""
    results: list[Any] = []
    config: dict[str, Any] = {}
    for i, d in enumerate(run_dirs):
        store = _open(d)
        try:
            info = store.run_info() or {}
            config = config or info.get("config", {})
            for r in store.results():
                # several runs: keep each run's matches apart in the fold order
                results.append(r.model_copy(update={"index": i * 10**9 + r.index}))
        finally:
            store.close()
    return results, config


def bootstrap_settings(config: dict[str, Any]) -> tuple[int, int]:
    """The seed and resample count of a run's intervals (derived from its master seed)."""
    from arena.seeding import derive_seed

    seed = derive_seed(config.get("master_seed", 0), "bootstrap") % 2**32
    return seed, int((config.get("ratings") or {}).get("bootstrap", 2000))


# -- runs ---------------------------------------------------------------------------------
def run_status(run_dir: Path) -> dict[str, Any] | None:
    from arena.store import DONE, read_run
    from tournaments.rundir import is_locked

    found = read_run(Path(run_dir) / "arena.sqlite")
    if found is None:
        return None
    info, counts = found
    planned = sum(counts.values())
    done = sum(counts.get(s, 0) for s in DONE)
    status = info["status"]
    if is_locked(run_dir / "run.lock"):
        status = "running"
    elif status == "running":
        status = "crashed" if done < planned else "complete"
    return {
        "run_id": info["run_id"],
        "dir": str(run_dir),
        "game": info["game"],
        "format": info["config"].get("format", "round_robin"),
        "created": info["created"],
        "status": status,
        "done": done,
        "planned": planned,
        "failed": done - counts.get("finished", 0),
    }


def cmd_runs(args: argparse.Namespace) -> int:
    root = Path(args.runs_dir)
    if not root.is_dir():
        return _fail(f"{root}: no such directory")
    rows = [s for d in sorted(root.iterdir()) if d.is_dir() and (s := run_status(d))]
    rows.sort(key=lambda r: r["created"])
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    table = Table(title=f"Runs under {root}", title_justify="left")
    for col in ("run", "game", "format", "started", "status", "done", "failed"):
        table.add_column(col, justify="right" if col in ("done", "failed") else "left")
    for r in rows:
        started = dt.datetime.fromtimestamp(r["created"], dt.UTC).strftime("%Y-%m-%d %H:%M")
        table.add_row(
            r["run_id"],
            r["game"],
            r["format"],
            started,
            r["status"],
            f"{r['done']}/{r['planned']}",
            str(r["failed"]),
        )
    console.print(table)
    resumable = [r for r in rows if r["status"] in ("crashed", "interrupted", "incomplete")]
    for r in resumable:
        console.print(f"  resume: arena run --resume {r['dir']}", highlight=False)
    return 0


# -- show ---------------------------------------------------------------------------------
def find_matches(match_id: str, run_dir: str | None, runs_dir: str) -> list[Path]:
    """Every run directory (``run_dir``, else each under ``runs_dir``) that has ``match_id``."""
    candidates = [Path(run_dir)] if run_dir else sorted(Path(runs_dir).glob("*"))
    found = []
    for d in candidates:
        if (d / "arena.sqlite").exists():
            store = _open(d)
            try:
                if store.match_row(match_id) is not None:
                    found.append(d)
            finally:
                store.close()
    return found


def cmd_show(args: argparse.Namespace) -> int:
    from arena.sinks import RecordError
    from arena.untrusted import printable
    from tournaments.report.show import summary

    found = find_matches(args.match_id, args.run, args.runs_dir)
    if not found:
        where = args.run or f"the runs under {args.runs_dir}"
        return _fail(f"no match {args.match_id!r} in {where}")
    if len(found) > 1:  # match ids repeat across runs of one config: never pick one silently
        runs = "".join(f"\n  {d}" for d in found)
        return _fail(
            f"match {args.match_id!r} is in {len(found)} runs; name one with --run RUN_DIR:{runs}"
        )
    run_dir = found[0]
    store = _open(run_dir)
    try:
        row = store.match_row(args.match_id)
        result = next(iter(store.results(ids=[args.match_id])), None)
    finally:
        store.close()
    assert row is not None
    try:
        text = summary(run_dir, row, max_lines=args.lines, result=result)
    except RecordError as err:
        return _fail(str(err), 1)
    # match text (speech, reasons) is untrusted: escapes shown, never acted on
    console.print(printable(text), highlight=False, markup=False)
    return 0


# -- plot ---------------------------------------------------------------------------------
def cmd_plot(args: argparse.Namespace) -> int:
    try:
        from tournaments.report.plots import plot_run
    except ImportError as err:
        return _fail(f"plotting needs matplotlib ({err}); pip install matplotlib", code=1)
    try:
        results, config = _load([args.run_dir])
    except FileNotFoundError as err:
        return _fail(str(err))
    out = Path(args.out or Path(args.run_dir) / "plots")
    paths = plot_run(results, out, by=args.by, config=config)
    for p in paths:
        console.print(f"wrote {p}", highlight=False)
    return 0


def add_commands(sub: Any) -> None:
    p = sub.add_parser("runs", help="list runs with their status")
    p.add_argument("runs_dir", nargs="?", default="runs", help="where runs are (default: runs)")
    p.add_argument("--json", action="store_true", help="as JSON")
    p.set_defaults(func=cmd_runs)

    p = sub.add_parser("show", help="a match's outcome and transcript summary")
    p.add_argument("match_id", help="the match id")
    p.add_argument("--run", metavar="RUN_DIR", help="the run directory (default: search RUNS)")
    p.add_argument("--runs-dir", default="runs", help="where to search (default: runs)")
    p.add_argument("--lines", type=int, default=40, help="public transcript lines to print")
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("plot", help="rating history and win-rate-with-CI charts (PNG)")
    p.add_argument("run_dir", help="the run directory")
    p.add_argument("--out", help="output directory (default: RUN_DIR/plots)")
    p.add_argument("--by", choices=["agent", "role", "faction"], default="agent", help="key")
    p.set_defaults(func=cmd_plot)
