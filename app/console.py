"""The terminal of the commands: the two consoles, the one error exit and the printers that
more than one command uses (the end-of-run board, the LLM summary, the bank heads).

Everything printed here may echo what an agent or a config wrote, so text goes out with
markup off (or escaped) and control characters shown, never sent to the terminal.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from rich.console import Console

from app.wording import count

#: The width of tables written to a pipe or a file (logs, CI): wide enough that names and
#: intervals are not cut to ``ag…``, as they would be at the 80 columns a terminal-less
#: console assumes. ``COLUMNS`` in the environment still wins.
PIPED_WIDTH = 200


def stdout_console() -> Console:
    """The console of a command's output: the terminal's width on a terminal, else
    :data:`PIPED_WIDTH` columns (or ``COLUMNS``)."""
    found = Console()
    if found.is_terminal or os.environ.get("COLUMNS"):
        return found
    return Console(width=PIPED_WIDTH)


console = stdout_console()
err_console = Console(stderr=True)


def fail(problems: list[str], code: int = 2) -> int:
    """One ``error:`` line per problem on stderr; returns ``code`` (2: bad input)."""
    from app.startup import report

    return report(problems, code)


def print_llm_summary(run_dir: Path, results: list[Any]) -> None:
    """Per-call latency, tokens and tokens/s of each LLM backend the run's matches used."""
    from app.llm_summary import run_summary

    lines = run_summary(Path(run_dir), results)
    if lines:  # the in-process models' start-up, before the clock of any decision
        from arena.llm.local_model import start_up_lines

        lines = start_up_lines() + lines
    for line in lines:
        console.print(line, highlight=False, markup=False)


def print_bank_heads(run_dir: Path) -> None:
    """The head each bank the run grew was left at, and how to check it later."""
    from arena.memory.evidence import head_lines

    for line in head_lines(run_dir):
        console.print(line, highlight=False, markup=False, soft_wrap=True)


def print_leaderboard(
    results: list[Any],
    as_json: bool = False,
    threshold: float | None = None,
    strict: bool = False,
    bootstrap: tuple[int, int] = (0, 2000),
) -> None:
    """The end-of-run board: the batch fit with its intervals, as ``arena leaderboard`` prints
    them (``bootstrap``: the run's seed and resample count), and each entry's harness health
    beside it (shares of refused answers, fallbacks and forfeits). ``strict``
    (``ratings.strict``): a board with a flagged entry is not printed, only why."""
    from app.commands.health_view import end_of_run_table
    from arena.ratings.health import DEFAULT_THRESHOLD, entry_health, strict_problems
    from arena.ratings.leaderboard import KEYS, leaderboard

    seed, resamples = bootstrap
    rows = leaderboard(results, detail=True, seed=seed, bootstrap=resamples)
    threshold = threshold or DEFAULT_THRESHOLD
    health = entry_health(results, KEYS["agent"], threshold)
    problems = strict_problems(health, threshold) if strict else []
    if problems:
        err_console.print(
            "not printing the board (ratings.strict): the harness decided part of it:\n  "
            + "\n  ".join(problems),
            highlight=False,
            markup=False,
        )
        return
    if as_json:
        print(
            json.dumps([{**r.model_dump(), "health": health.get(r.agent)} for r in rows], indent=2)
        )
        return
    console.print(end_of_run_table(rows, health))
    for agent, h in health.items():
        if h.get("flag"):
            console.print(f"  ! {agent}: {h['flag']}", highlight=False, markup=False)
    n = len(results)
    finished = sum(1 for r in results if r.status == "finished")
    console.print(f"{finished}/{count(n, 'match', 'matches')} finished; games count seats played.")
    from arena.ratings.coverage import results_coverage

    for line in coverage_lines(results_coverage(results), cross_table=False):
        console.print(line, highlight=False, markup=False)


def coverage_lines(coverage: dict[str, Any], cross_table: bool) -> list[str]:
    """What the board says about pairs that never met: the cross-table's coverage when one is
    shown, and the pairs that never shared any match when there are some (the board compares
    those only through common opponents)."""
    h2h, tables = coverage["head_to_head"], coverage["tables"]
    lines = [f"cross-table coverage: {h2h['summary']}"] if cross_table else []
    # with no cross-table beside it (the end-of-run board) the match coverage is always said
    if not cross_table or (tables["never"] and tables["never"] != h2h["never"]):
        lines.append(f"match coverage (any match): {tables['summary']}")
    if tables["never"]:
        lines.append("  the board orders entries that never met only through common opponents")
    return lines


def print_stops(run_dir: Path) -> None:
    """Why rating-driven matchmaking stopped planning, per repeat (the last word of each)."""
    from tournaments.matchmaking import STOPS

    path = run_dir / STOPS
    if not path.exists():
        return
    last: dict[int, dict[str, Any]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            doc = json.loads(line)
            if "reason" in doc:  # the planner's round lines are for reading, not printing
                last[int(doc["repeat"])] = doc
    for repeat, doc in sorted(last.items()):
        reason = doc["reason"]
        if reason == "settled":
            why = f"the whole order settled at {doc['confidence']:.0%}"
        elif reason == "sigma":
            why = f"every entry's σ below {doc['sigma_threshold']}"
        else:
            still = doc.get("open") or []
            why = "the budget was spent" + (
                f"; not settled: {', '.join(still)} (arena plan says how many more)"
                if still
                else ""
            )
        console.print(
            f"rating-driven, repeat {repeat}: stopped after {count(doc['matches'], 'match', 'matches')}"
            f" — {why}",
            highlight=False,
            markup=False,
        )
