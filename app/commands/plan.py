"""``arena plan RUN_DIR``: how sure each adjacent order on the board is, and how many more
matches (and dollars, from the recorded token use) would settle it. Reads only."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from rich.table import Table

from app.console import stdout_console
from app.wording import count

console = stdout_console()


def match_costs(run_dir: Path, results: list[Any]) -> dict[str, tuple[float, float]]:
    """Per agent entry: its mean (USD, tokens) per match it played, from its LLM calls."""
    from app.llm_summary import llm_calls

    played: dict[str, int] = {}
    for r in results:
        for agent in {s.agent for s in r.seats}:
            played[agent] = played.get(agent, 0) + 1
    usd: dict[str, float] = {}
    tokens: dict[str, float] = {}
    for call in llm_calls(run_dir, [r.match_id for r in results]):
        agent = str(call.get("agent", ""))
        usd[agent] = usd.get(agent, 0.0) + float(call.get("cost_usd") or 0.0)
        tokens[agent] = tokens.get(agent, 0.0) + float(
            (call.get("tokens_in") or 0) + (call.get("tokens_out") or 0)
        )
    return {a: (usd.get(a, 0.0) / n, tokens.get(a, 0.0) / n) for a, n in played.items() if n}


def cmd_plan(args: argparse.Namespace) -> int:
    from app.commands.runs import _fail, _load, bootstrap_settings
    from arena.ratings.planner import pair_confidence, pairs, within_budget
    from arena.ratings.seasons import seasons

    if not 0.5 < args.confidence < 1:
        return _fail(f"--confidence must be between 0.5 and 1, got {args.confidence}")
    try:
        results, config = _load([args.run_dir])
    except FileNotFoundError as err:
        return _fail(str(err))
    found = seasons(results)
    if len(found) > 1:
        return _fail(
            f"{args.run_dir}: its matches were played under {len(found)} different conditions; "
            "plan one season at a time (arena leaderboard shows the seasons)"
        )
    seed, _ = bootstrap_settings(config)
    costs = match_costs(Path(args.run_dir), results)
    plan = pairs(
        results,
        by=args.by,
        confidence=args.confidence,
        seed=seed,
        resamples=args.resamples,
        freeze=(config.get("ratings") or {}).get("freeze", []),
        match_cost=costs,
    )
    budget = within_budget(plan, args.budget_usd) if args.budget_usd is not None else None
    if args.json:
        level = pair_confidence(args.confidence, len(plan))
        doc = {"confidence": args.confidence, "pair_confidence": level, "pairs": plan,
               "budget": budget}  # fmt: skip
        print(json.dumps(doc, indent=2, sort_keys=True))
        return 0
    console.print(render(plan, args.confidence, len(results)))
    if budget is not None:
        _print_budget(budget, args.budget_usd, plan)
    return 0


def render(plan: list[dict[str, Any]], confidence: float, n: int) -> Table:
    from arena.ratings.planner import pair_confidence

    level = pair_confidence(confidence, len(plan))
    table = Table(
        title=f"Adjacent pairs of the board ({count(n, 'match', 'matches')}): P(order right) "
        f"from the bootstrap; each pair settled at {level:.2%} so that the whole order holds at "
        f"{confidence:.0%}; minimum detectable μ gap at that confidence and 80% power; further "
        "matches to settle the observed gap, at the recorded cost per match",
        title_justify="left",
    )
    cols = ("above", "below", "μ gap", "P(order right)", "MDD", "played", "more", "tokens", "cost")
    for col in cols:
        table.add_column(col, justify="left" if col in ("above", "below") else "right")
    for p in plan:
        more = "settled" if p["settled"] else ("too close" if p["more"] is None else str(p["more"]))
        spend = not p["settled"]  # a settled pair costs nothing more
        cost = "-" if p.get("cost_usd") is None or not spend else f"${p['cost_usd']:.4f}"
        tokens = "-" if p.get("tokens") is None or not spend else f"{p['tokens']:,}"
        table.add_row(
            p["above"], p["below"], f"{p['gap']:.2f}", f"{p['p_order']:.3f}",
            f"{p['mdd']:.2f}", str(p["played"]), more, tokens, cost,
        )  # fmt: skip
    return table


def _print_budget(budget: list[dict[str, Any]], usd: float, plan: list[dict[str, Any]]) -> None:
    close = [p for p in plan if not p["settled"] and p["more"] is None]
    if not budget:
        why = "every pair settled" if not close else "the open pairs are too close to settle"
        console.print(f"budget ${usd:.2f}: nothing to spend ({why})", highlight=False)
    else:
        console.print(f"budget ${usd:.2f}, least sure pair first:", highlight=False)
    for b in budget:
        console.print(
            f"  {b['above']} vs {b['below']}: {b['matches']} matches (${b['usd']:.4f})",
            highlight=False,
        )
    for p in close:  # said, not silently dropped: no affordable sample shows their order
        console.print(
            f"  {p['above']} vs {p['below']}: left out, too close to settle at any size "
            f"(P {p['p_order']:.3f})",
            highlight=False,
        )
    if budget:
        console.print(
            "  these are matches that involve each pair, not only their head-to-head: "
            "`rating_driven: {by: planner}` spends a budget on the comparisons that tell the "
            "open pairs apart, common opponents included, and a tenth of each round on the "
            "pairs that met least (docs/leaderboards.md)",
            highlight=False,
        )


def add_commands(sub: Any) -> None:
    p = sub.add_parser(
        "plan",
        help="how many more matches would settle the board's order (and their cost)",
        description="For every pair of adjacent entries of RUN_DIR's board: the probability "
        "that their order is right, the minimum detectable difference at the current sample, "
        "and the further matches (with their cost from the recorded token use) needed to "
        "settle it. Reads only.",
    )
    p.add_argument("run_dir", help="the run directory to plan for")
    p.add_argument(
        "--confidence",
        type=float,
        default=0.95,
        help="how sure the whole order must be to count as settled; with m entries each of "
        "the m - 1 adjacent pairs then needs 1 - (1 - c)/(m - 1) (default: %(default)s)",
    )
    p.add_argument(
        "--budget-usd",
        type=float,
        help="propose how to spend this many dollars, least sure pair first (nothing is played)",
    )
    p.add_argument(
        "--by",
        choices=["agent", "role", "faction", "game"],
        default="agent",
        help="the rated keys, as in arena leaderboard (default: agent)",
    )
    p.add_argument(
        "--resamples", type=int, default=500, help="bootstrap resamples (default: %(default)s)"
    )
    p.add_argument("--json", action="store_true", help="the plan as JSON")
    p.set_defaults(func=cmd_plan)
