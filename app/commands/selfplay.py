"""``arena selfplay CONFIG`` / ``--resume DIR`` / ``export DIR``: optimise an LLM agent's
context by self-play (docs/selfplay.md)."""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import sys
from pathlib import Path
from typing import Any


def add_commands(sub: Any) -> None:
    p = sub.add_parser(
        "selfplay",
        help="optimise an LLM agent's prompt and memory bank by self-play, with a held-out gate",
        description="arena selfplay CONFIG.yaml [--out DIR] [--dry-run] | --resume DIR | "
        "export DIR [--repeat R] [--candidate ID] [--name NAME]. Every game is an ordinary "
        "match in an ordinary run directory; a run killed at any point resumes with --resume. "
        "Touch DIR/STOP to stop admitting new games.",
    )
    p.add_argument("target", nargs="?", help="CONFIG.yaml, or 'export'")
    p.add_argument("rest", nargs="*", help="export: the self-play directory")
    p.add_argument("--resume", metavar="DIR", help="continue the self-play run in DIR")
    p.add_argument("--out", help="run directory (default: output_dir/NAME-STAMP)")
    p.add_argument("--dry-run", action="store_true", help="print the budget estimate and stop")
    p.add_argument("--repeat", type=int, default=0, help="export: which repeat's champion")
    p.add_argument("--candidate", help="export: a candidate id instead of the champion")
    p.add_argument("--name", help="export: the agent entry name (default: the candidate id)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=cmd_selfplay)


def _fail(problems: list[str], code: int = 2) -> int:
    from app.startup import report

    return report(problems, code)  # control characters and markup in problems escaped


def cmd_selfplay(args: argparse.Namespace) -> int:
    from arena.errors import ConfigError
    from arena.selfplay import config as spconfig

    if args.target == "export":
        return cmd_export(args)
    try:
        if args.resume:
            root = Path(args.resume)
            if not (root / "config.yaml").exists():
                return _fail([f"{root}: not a self-play directory (no config.yaml)"])
            config = spconfig.load(root / "config.yaml")
        else:
            if not args.target:
                return _fail(["give a CONFIG.yaml (or --resume DIR)"])
            config = spconfig.load(args.target)
            stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%d-%H%M%S")
            root = (
                Path(args.out) if args.out else Path(config.output_dir) / f"{config.name}-{stamp}"
            )
            if (root / "config.yaml").exists():
                return _fail([f"{root} already exists; use --resume {root} to continue it"])
    except ConfigError as err:
        return _fail(err.problems)
    if args.dry_run:
        print(json.dumps(dry_run(config), indent=1))
        return 0
    return asyncio.run(_run(config, root, args))


async def _run(config: Any, root: Path, args: argparse.Namespace) -> int:
    from arena.errors import ConfigError
    from tournaments.executor import RunLocked
    from tournaments.selfplay import SelfPlay

    def progress(summary: dict[str, Any]) -> None:
        inc = summary["incumbent"]
        gate = summary.get("gate") or {}
        gate_text = (
            f"gate {'PROMOTED' if gate.get('promoted') else 'kept'} "
            f"(Δ {gate['mean_delta']:+.3f}, lb {gate['lower']:+.3f})"
            if gate
            else "no gate test"
        )
        spent = summary["budget"]["total"]
        print(
            f"repeat {summary['repeat']} gen {summary['generation']}: "
            f"{len(summary['candidates'])} candidates, incumbent {inc}, {gate_text}; "
            f"{spent['games']} games, {spent['llm_calls']} LLM calls",
            file=sys.stderr,
        )

    try:
        report = await SelfPlay(config, root, on_generation=progress).run()
    except (ConfigError, RunLocked) as err:
        return _fail(getattr(err, "problems", [str(err)]))
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        imp = report["improvement"]
        print(
            f"{root}: {len(report['repeats'])} repeat(s); champions "
            f"{[r['champion'] for r in report['repeats']]}; improvement mean {imp['mean']}, "
            f"95% CI {imp['ci']}, RSE {imp['rse']}"
        )
        if report["budget"]["stopped"]:
            print(f"stopped: {report['budget']['stopped']}")
    return 0


def dry_run(config: Any) -> dict[str, Any]:
    from arena.selfplay.budget import estimate

    steps, share = probe_steps(config)
    n_panel = len(config.panel)
    seats = probe_seats(config) if config.units.seats == "all" else len(config.units.seats)
    mult = n_panel * seats  # units per env seed
    est = estimate(
        config.population,
        config.elites,
        config.generations,
        config.units.train * mult,
        config.units.select * mult,
        config.units.gate * mult,
        config.replay.games,
        steps,
        share,
    )
    est["repeats"] = config.repeats
    est["steps_per_game"] = steps
    est["note"] = "per repeat, at most; steps per game from 3 random-legal probe games"
    return est


def probe_seats(config: Any) -> int:
    from arena import registry

    return int(registry.engine_class(config.game)(config.rules, seed=0).n_seats)


def probe_steps(config: Any) -> tuple[float, float]:
    """Mean decisions per game over 3 random-legal games, and one seat's share of them."""
    from arena.agents import factory
    from arena.results import MatchSpec
    from arena.runner import MatchRunner

    n = probe_seats(config)
    total = 0
    for seed in range(3):
        agents = [factory.build(f"p{i}", "random", config.game) for i in range(n)]
        spec = MatchSpec(
            match_id=f"probe{seed}",
            game=config.game,
            rules=config.rules,
            seed=seed,
            seats=[a.name for a in agents],
        )
        result = asyncio.run(MatchRunner(spec, agents, []).run())
        total += result.n_decisions
    return total / 3, 1.0 / n


def cmd_export(args: argparse.Namespace) -> int:
    import yaml

    from arena.selfplay import config as spconfig
    from arena.selfplay.candidate import Candidate

    if not args.rest:
        return _fail(["export: give the self-play directory"])
    root = Path(args.rest[0])
    try:
        config = spconfig.load(root / "config.yaml")
    except Exception as err:
        return _fail([f"{root}: not a self-play directory ({err})"])
    rdir = root / f"r{args.repeat}"
    found: Candidate | None = None
    if args.candidate:
        for path in sorted(rdir.glob("g*/population.json")):
            for row in json.loads(path.read_text(encoding="utf-8")):
                if row["id"] == args.candidate:
                    found = Candidate.model_validate(row)
    else:
        result = rdir / "result.json"
        if result.exists():
            found = Candidate.model_validate(json.loads(result.read_text())["champion"])
    if found is None:
        return _fail([f"{rdir}: no such candidate (or the repeat has not finished)"])
    entry = found.agent_entry(config.base, args.name)
    print(yaml.safe_dump({"agents": [entry], "lineage": found.lineage()}, sort_keys=False))
    return 0
