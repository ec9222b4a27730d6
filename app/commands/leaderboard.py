"""``arena leaderboard RUN_DIR...``: the board of one or more runs (a board per season when
conditions differ), as tables, JSON or CSV.

Loaded by ``app.cli`` (``add_commands``); heavy imports happen inside the command.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from rich.table import Table

from app.commands.health_view import with_ci
from app.commands.runs import _fail, _load, bootstrap_settings
from app.console import coverage_lines, stdout_console
from app.wording import count

console = stdout_console()


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
    p.add_argument("run_dir", nargs="+", help="run directories (pooled by season)")
    p.add_argument(
        "--by",
        choices=["agent", "role", "faction", "game"],
        default="agent",
        help="rate agent entries, entry@role, entry@faction or game/entry (default: agent)",
    )
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
    p.add_argument(
        "--strict",
        action="store_true",
        help="refuse to print a board with an entry whose share of refused answers or of "
        "forfeited matches passes ratings.max_harness_error (default 5%%); also "
        "ratings.strict in the config",
    )
    p.add_argument(
        "--pool",
        choices=["seasons", "strict"],
        default="seasons",
        help="results played under different conditions (rules, prompt templates, models, "
        "policy): a board per season with what differs (default), or refuse (strict)",
    )
    p.set_defaults(func=cmd_leaderboard)


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


# A fixed anchor (ratings.freeze): its μ is set, not estimated, so no rank, interval or σ.
ANCHOR_CELLS = {"rank": "anchor", "mu": "{mu:.2f} fixed", "sigma": "-", "conservative": "-"}


def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    return f"{v:.3f}" if isinstance(v, float) else str(v)


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
            elif r.get("anchor") and k in ANCHOR_CELLS:
                cells.append(ANCHOR_CELLS[k].format(**r))
            elif k == "rank":
                cells.append(with_ci(r.get("rank"), r.get("rank_low"), r.get("rank_high")))
            elif k == "mu":
                cells.append(with_ci(r["mu"], r.get("mu_low"), r.get("mu_high"), 2))
            elif k == "side_balanced_wr":
                cells.append(
                    with_ci(r.get(k), r.get("side_balanced_low"), r.get("side_balanced_high"), 2)
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
            cells.append(with_ci(r.get("roles", {}).get(role), ci[0], ci[1], 2))
        table.add_row(r["agent"], *cells)
    return table


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
    from app.commands.health_view import health_settings, leaderboard_csv
    from arena.ratings.board import PoolRefused, boards

    try:
        results, config = _load(args.run_dir)
    except FileNotFoundError as err:
        return _fail(str(err))
    seed, resamples = bootstrap_settings(config)
    threshold, strict = health_settings(config, args.strict)
    try:
        docs = boards(
            results,
            by=args.by,
            seed=seed,
            bootstrap=resamples,
            freeze=(config.get("ratings") or {}).get("freeze", []),
            threshold=threshold,
            pool=args.pool,
        )
    except PoolRefused as err:
        return _fail(str(err))
    if strict:
        from app.commands.health_view import strict_refusal

        refusal = strict_refusal(docs)
        if refusal is not None:
            return _fail(refusal)
    for doc in docs:
        _add_columns(args, doc)
    if args.json:
        first = {**docs[0], "other_seasons": docs[1:]} if len(docs) > 1 else docs[0]
        print(json.dumps(first, indent=2, sort_keys=True, default=str))
        return 0
    if args.csv:
        sys.stdout.write(leaderboard_csv(docs))
        return 0
    for doc in docs:
        _print_board(doc)
    return 0


def _add_columns(args: argparse.Namespace, doc: dict[str, Any]) -> None:
    """The optional measures and metrics of one season's board."""
    seed, resamples = doc["bootstrap"]["seed"], doc["bootstrap"]["resamples"]
    if getattr(args, "measures", False) and not args.csv:  # the games' own measures per entry
        from arena.ratings.measures import report as measures_report
        from arena.ratings.measures import run_records

        doc["measures"] = measures_report(run_records(args.run_dir), seed, resamples)
    if getattr(args, "metrics", False):  # privacy/persona columns beside the ratings (§C9)
        from arena.metrics.report import leaderboard_metrics

        doc["metric_columns"] = leaderboard_metrics(doc, args.run_dir)


def _print_board(doc: dict[str, Any]) -> None:
    from app.commands.health_view import render_health, render_repeats, season_lines

    for said in season_lines(doc):
        console.print(said, highlight=False, markup=False)
    console.print(render_table(doc))
    for table in render_measures(doc.get("measures")):
        console.print(table)
    console.print(render_health(doc))
    if doc.get("metric_columns"):
        from arena.metrics.report import render_metrics_table

        console.print(render_metrics_table(doc, doc["metric_columns"]))
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
    repeats = render_repeats(doc)
    if repeats is not None:
        console.print(repeats)


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
