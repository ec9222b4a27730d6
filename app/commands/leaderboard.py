"""``arena leaderboard RUN_DIR...``: the board of one or more runs, as a table, JSON or CSV.

Loaded by ``app.cli`` (``add_commands``); heavy imports happen inside the command.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from typing import Any

from rich.console import Console
from rich.table import Table

from app.commands.runs import load_runs
from app.console import coverage_lines
from app.wording import count

console = Console()


def _fail(message: str, code: int = 2) -> int:
    from app.startup import report

    return report([message], code)  # markup and control characters in the message escaped


def add_commands(sub: Any) -> None:
    p = sub.add_parser(
        "leaderboard",
        help="print the leaderboard of one or more run directories",
        description="A batch Bradley–Terry fit over all results (μ, σ, sorted by μ; the order "
        "results were folded in does not matter), with 95% bootstrap CIs of μ and of each "
        "entry's rank; win rates and the side-balanced win rate with 95% CIs, per-role "
        "ratings with CIs, cross-table with population return / exploitability / aggregate "
        "score, and RSE across repeats (docs/ratings.md).",
    )
    p.add_argument("run_dir", nargs="+")
    p.add_argument("--by", choices=["agent", "role", "faction", "game"], default="agent")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="the full report as JSON")
    fmt.add_argument("--csv", action="store_true", help="the rows as CSV")
    p.add_argument(
        "--metrics",
        action="store_true",
        help="add privacy and persona columns (scores RUN_DIR/metrics first if missing)",
    )
    p.add_argument(
        "--measures",
        action="store_true",
        help="add each game's own measures per agent entry with 95%% CIs (vote accuracy, "
        "deduction, deception, Pareto, Nash welfare, ...), read from the match records; "
        "a table per game, `measures` in --json (not in --csv)",
    )
    p.set_defaults(func=cmd_leaderboard)


# -- leaderboard --------------------------------------------------------------------------
COLUMNS = [
    ("rank [95% CI]", "rank"),
    ("agent", "agent"),
    ("μ [95% CI]", "mu"),
    ("σ", "sigma"),
    ("μ−3σ", "conservative"),
    ("games", "games"),
    ("W-D-L", None),
    ("win rate [95% CI]", None),
    ("side-bal WR [95% CI]", "side_balanced_wr"),
    ("RSE %", "rse"),
]


def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    return f"{v:.3f}" if isinstance(v, float) else str(v)


def _with_ci(value: Any, low: Any, high: Any, digits: int = 3) -> str:
    if value is None:
        return "-"
    text = f"{value:.{digits}f}" if isinstance(value, float) else str(value)
    if low is None or high is None:
        return text
    if isinstance(low, int) and isinstance(high, int):
        return f"{text} [{low}, {high}]"
    return f"{text} [{low:.{digits}f}, {high:.{digits}f}]"


def render_table(doc: dict[str, Any]) -> Table:
    rows = doc["rows"]
    base = ("agent", "mu", "sigma", "conservative", "games", None)
    cols = [(h, k) for h, k in COLUMNS if k in base or any(r.get(k) is not None for r in rows)]
    title = (
        f"Leaderboard by {doc['by']} (batch Bradley–Terry fit over all results, factions as "
        "teams; sorted by μ, whatever order the results came in; rank and μ with 95% "
        "bootstrap CIs over matches)"
    )
    table = Table(title=title, title_justify="left")
    for h, _ in cols:
        table.add_column(h, justify="left" if h == "agent" else "right")
    for r in rows:
        cells = []
        for h, k in cols:
            if h == "W-D-L":
                cells.append(f"{r['wins']}-{r['draws']}-{r['losses']}")
            elif h.startswith("win rate"):
                ci = (
                    f" [{r['wr_low']:.2f}, {r['wr_high']:.2f}]"
                    if r.get("wr_low") is not None
                    else ""
                )
                cells.append(f"{r['win_rate']:.3f}{ci}")
            elif k == "rank":
                cells.append(_with_ci(r.get("rank"), r.get("rank_low"), r.get("rank_high")))
            elif k == "mu":
                cells.append(_with_ci(r["mu"], r.get("mu_low"), r.get("mu_high"), 2))
            elif k == "side_balanced_wr":
                cells.append(
                    _with_ci(r.get(k), r.get("side_balanced_low"), r.get("side_balanced_high"), 2)
                )
            else:
                cells.append(_fmt(r.get(k)) if k != "agent" else r["agent"])
        table.add_row(*cells)
    return table


def render_roles(doc: dict[str, Any]) -> Table | None:
    rows = doc["rows"]
    roles = sorted({role for r in rows for role in r.get("roles", {})})
    if not roles:
        return None
    table = Table(title="Per-role μ [95% CI] (batch fit keyed entry@role)", title_justify="left")
    table.add_column("agent")
    for role in roles:
        table.add_column(role, justify="right")
    for r in rows:
        cells = []
        for role in roles:
            ci = r.get("roles_ci", {}).get(role) or [None, None]
            cells.append(_with_ci(r.get("roles", {}).get(role), ci[0], ci[1], 2))
        table.add_row(r["agent"], *cells)
    return table


def bootstrap_settings(config: dict[str, Any]) -> tuple[int, int]:
    """The seed and resample count of a run's intervals (derived from its master seed)."""
    from arena.seeding import derive_seed

    seed = derive_seed(config.get("master_seed", 0), "bootstrap") % 2**32
    return seed, int((config.get("ratings") or {}).get("bootstrap", 2000))


def _estimate(e: dict[str, Any] | None) -> str:
    if e is None or e["value"] is None:
        return "-"
    ci = f" [{e['low']:.3f}, {e['high']:.3f}]" if e["low"] is not None else ""
    return f"{e['value']:.3f}{ci} n={e['n']}"


def render_measures(doc: dict[str, Any] | None) -> list[Table]:
    """One table per game of ``arena.ratings.measures.report``: a row per measure, a column per entry."""
    if not doc:
        return []
    tables = []
    for game, g in doc["games"].items():
        agents = sorted(g["agents"])
        names = sorted({name for a in agents for name in g["agents"][a]})
        title = (
            f"{game} measures per agent entry: value [95% CI] n=matches "
            f"({count(g['matches'], 'match', 'matches')}"
            + (f", {g['skipped']} without measures" if g["skipped"] else "")
            + f"; Wilson for one yes/no outcome per match, else a bootstrap of matches,"
            f" {doc['resamples']} resamples, seed {doc['seed']})"
        )
        info = g.get("definitions", {})
        table = Table(title=title, title_justify="left")
        table.add_column("measure", no_wrap=True)
        table.add_column("unit", style="dim")
        for a in agents:
            table.add_column(a, justify="right")
        for name in names:
            unit = info.get(name, {}).get("unit", "-")
            table.add_row(name, unit, *(_estimate(g["agents"][a].get(name)) for a in agents))
        tables.append(table)
        legend = Table(title=f"{game} measures: what each one is", title_justify="left")
        legend.add_column("measure", no_wrap=True)
        legend.add_column("definition")
        for name in names:
            legend.add_row(name, info.get(name, {}).get("definition", "-"))
        tables.append(legend)
    return tables


def cmd_leaderboard(args: argparse.Namespace) -> int:
    from arena.ratings.leaderboard import report

    try:
        results, config = load_runs(args.run_dir)
    except FileNotFoundError as err:
        return _fail(str(err))
    seed, resamples = bootstrap_settings(config)
    doc = report(
        results,
        by=args.by,
        seed=seed,
        bootstrap=resamples,
        freeze=(config.get("ratings") or {}).get("freeze", []),
    )
    if getattr(args, "measures", False) and not args.csv:  # the games' own measures per entry
        from arena.ratings.measures import report as measures_report
        from arena.ratings.measures import run_records

        doc["measures"] = measures_report(run_records(args.run_dir), seed, resamples)
    metric_cols: list[str] = []
    if getattr(args, "metrics", False):  # privacy/persona columns beside the ratings (§C9)
        from arena.metrics.report import leaderboard_metrics

        metric_cols = leaderboard_metrics(doc, args.run_dir)
    if args.json:
        print(json.dumps(doc, indent=2, sort_keys=True, default=str))
    elif args.csv:
        sys.stdout.write(csv_rows(doc))
    else:
        _print_board(doc, metric_cols)
    return 0


def csv_rows(doc: dict[str, Any]) -> str:
    """The board's rows as CSV; the per-role ratings and their CIs packed into one cell each."""
    out = io.StringIO()
    nested = ("roles", "roles_ci")
    fields = [k for k in doc["rows"][0] if k not in nested] if doc["rows"] else ["agent"]
    writer = csv.DictWriter(out, fieldnames=[*fields, *nested], lineterminator="\n")
    writer.writeheader()
    for row in doc["rows"]:
        roles = ";".join(f"{k}={v}" for k, v in sorted(row.get("roles", {}).items()))
        cis = ";".join(f"{k}={lo}..{hi}" for k, (lo, hi) in sorted(row.get("roles_ci", {}).items()))
        writer.writerow({**{k: row[k] for k in fields}, "roles": roles, "roles_ci": cis})
    return out.getvalue()


def _print_board(doc: dict[str, Any], metric_cols: list[str]) -> None:
    console.print(render_table(doc))
    for table in render_measures(doc.get("measures")):
        console.print(table)
    if metric_cols:
        from arena.metrics.report import render_metrics_table

        console.print(render_metrics_table(doc, metric_cols))
    roles_table = render_roles(doc)
    if roles_table is not None:
        console.print(roles_table)
    pop = doc["population"]
    if pop.get("table"):
        _print_population(pop)
    for note in coverage_lines(doc["coverage"], cross_table=bool(pop.get("table"))):
        console.print(note, highlight=False, markup=False)
    m = doc["matches"]
    extra = ""
    if doc["ranking_stability_tau"] is not None:
        tau = doc["ranking_stability_tau"]
        extra = f"; ranking stability over {doc['repeats']} repeats: mean Kendall τ {tau:.3f}"
    console.print(
        f"matches: {', '.join(f'{k} {v}' for k, v in m.items()) or 'none'} (errored are not rated)"
        f"; bootstrap {doc['bootstrap']['resamples']} resamples, seed {doc['bootstrap']['seed']}"
        + extra,
        highlight=False,
    )


def _print_population(pop: dict[str, Any]) -> None:
    """The cross-table of mean returns, then each entry's population scores."""
    cross = Table(title="Cross-table: mean return of row vs column [95% CI]", title_justify="left")
    cross.add_column("")
    for e in pop["entries"]:
        cross.add_column(e, justify="right")
    for x in pop["entries"]:
        line = []
        for y in pop["entries"]:
            c = pop["table"].get(x, {}).get(y)
            line.append(
                f"{c['mean']:+.2f} [{c['low']:+.2f},{c['high']:+.2f}] n={c['games']}" if c else "-"
            )
        cross.add_row(x, *line)
    console.print(cross)
    for e, sc in pop["scores"].items():
        console.print(
            f"  {e}: PR {sc['pr']:+.3f} {sc['pr_ci']}  WPE {sc['wpe']:+.3f} {sc['wpe_ci']}"
            f" (by {sc['exploiter']})  aggregate {sc['aggregate']:+.3f} {sc['aggregate_ci']}",
            highlight=False,
        )
