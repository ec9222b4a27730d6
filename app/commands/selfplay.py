"""``arena selfplay CONFIG`` / ``--resume DIR`` / ``export DIR`` / ``plot DIR``: optimise an LLM
agent's context by self-play (docs/selfplay.md).

Every game goes on the live bus like ``arena run``'s (an embedded broker unless ``--broker`` or
``--no-broker``) and through the streaming metrics; ``--tui`` watches the run in the terminal
(:mod:`tui.screens.selfplay`)."""

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
        description="arena selfplay CONFIG.yaml [--out DIR] [--dry-run] [--tui] | --resume DIR | "
        "export DIR [--repeat R] [--candidate ID] [--name NAME] [--run-config] | plot DIR. "
        "Every game is an ordinary match in an ordinary run directory, published live; a run "
        "killed at any point resumes with --resume. Touch DIR/STOP to stop admitting new games.",
    )
    p.add_argument("target", nargs="?", help="CONFIG.yaml, 'export' or 'plot'")
    p.add_argument("rest", nargs="*", help="export / plot: the self-play directory")
    p.add_argument("--resume", metavar="DIR", help="continue the self-play run in DIR")
    p.add_argument("--out", help="run directory (default: output_dir/NAME-STAMP)")
    p.add_argument("--dry-run", action="store_true", help="print the budget estimate and stop")
    p.add_argument("--repeat", type=int, default=0, help="export: which repeat's champion")
    p.add_argument("--candidate", help="export: a candidate id instead of the champion")
    p.add_argument("--name", help="export: the agent entry name (default: the candidate id)")
    p.add_argument(
        "--run-config",
        action="store_true",
        help="export: a whole `arena run` config (the candidate against the panel), not an entry",
    )
    p.add_argument(
        "--json", action="store_true", help="print the report (or the --dry-run estimate) as JSON"
    )
    p.add_argument(
        "--no-plots", action="store_true", help="do not write DIR/plots/*.png at the end"
    )
    live = p.add_argument_group("live view (as `arena run`)")
    live.add_argument("--tui", action="store_true", help="watch the run in the terminal UI")
    live.add_argument("--broker", metavar="URL", help="publish to an external MQTT broker")
    live.add_argument("--no-broker", action="store_true", help="do not publish games live")
    live.add_argument(
        "--require-broker", action="store_true", help="fail fast when the broker cannot be reached"
    )
    live.add_argument(
        "--no-seat-streams", action="store_true", help="only the spectator stream per game"
    )
    live.add_argument(
        "--no-metrics", action="store_true", help="do not stream per-turn privacy/persona metrics"
    )
    p.set_defaults(func=cmd_selfplay)


def _fail(problems: list[str], code: int = 2) -> int:
    from app.startup import report

    return report(problems, code)  # control characters and markup in problems escaped


def health_lines(report: dict[str, Any]) -> list[str]:
    """The harness health of the self-play report: candidates whose answers the harness
    refused or replaced past the threshold, or that none were (docs/leaderboards.md)."""
    from arena.untrusted import printable

    flagged = []
    for rep in report.get("repeats", []):
        for gen in rep.get("generations", []):
            for c in gen.get("candidates", []):
                flag = (c.get("health") or {}).get("flag")
                if flag:
                    flagged.append(
                        f"  ! repeat {rep['repeat']} generation {gen['generation']} {c['id']}: {flag}"
                    )
    if not flagged:
        return ["harness health: no candidate above 5% refused answers or forfeits"]
    return ["harness health: flagged candidates (the harness played part of their games)",
            *(printable(x) for x in flagged)]  # fmt: skip


def cmd_selfplay(args: argparse.Namespace) -> int:
    from arena.errors import ConfigError
    from tournaments.selfplay import config as spconfig

    if args.target == "export":
        return cmd_export(args)
    if args.target == "plot":
        return cmd_plot(args)
    try:
        if args.resume:
            root = Path(args.resume)
            if not (root / "config.yaml").exists():
                return _fail([f"{root}: not a self-play directory (no config.yaml)"])
            config = spconfig.load(root / "config.yaml")
            from arena.memory.evidence import recorded_head_problems

            # the repeats' banks as their last folds left them
            if problems := recorded_head_problems(root):
                return _fail(problems)
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
        from tournaments.selfplay.dry_run import describe, dry_run

        est = dry_run(config)
        print(json.dumps(est, indent=1) if args.json else "\n".join(describe(est)))
        return 0
    try:
        return asyncio.run(_run(config, root, args))
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM (app.cli): what was played is kept
        print(
            f"\ninterrupted; finished games are saved. Resume with:\n"
            f"  arena selfplay --resume {root}",
            file=sys.stderr,
        )
        return 130


def _progress_line(summary: dict[str, Any]) -> None:
    inc = summary["incumbent"]
    gate = summary.get("gate") or {}
    gate_text = (
        f"gate {'PROMOTED' if gate.get('promoted') else 'kept'} "
        f"(Δ {gate['mean_delta']:+.3f}, lb {gate['lower']:+.3f})"
        if gate
        else "no gate test"
    )
    spent = summary["budget"]["total"]
    n, size = len(summary["candidates"]), summary.get("population", 0)
    short = (
        f" ({size - n} slot(s) unfilled: g{summary['generation']:03d}/proposals.json says why)"
        if n < size
        else ""
    )
    print(
        f"repeat {summary['repeat']} gen {summary['generation']}: "
        f"{n} candidates{short}, incumbent {inc}, {gate_text}; "
        f"run so far: {spent['games']} games, {spent['llm_calls']} LLM calls",
        file=sys.stderr,
    )


async def _run(config: Any, root: Path, args: argparse.Namespace) -> int:
    from arena.errors import ConfigError
    from tournaments.rundir import RunLocked

    tui = bool(getattr(args, "tui", False))
    selfplay, live = make_selfplay(
        config, root, args, on_generation=None if tui else _progress_line
    )
    try:
        if tui:
            report = await _run_in_tui(selfplay, live, root)
            if report is None:
                print(
                    f"interrupted; resume with:\n  arena selfplay --resume {root}", file=sys.stderr
                )
                return 130
        else:
            report = await run_live(selfplay, live)
    except (ConfigError, RunLocked) as err:
        return _fail(getattr(err, "problems", [str(err)]))
    if not getattr(args, "no_plots", False):
        from tournaments.selfplay.plots import plot_selfplay

        plot_selfplay(root)
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
        for line in health_lines(report):
            print(line)
        from arena.memory.evidence import head_lines

        for line in head_lines(root):
            print(line)
    return 0


def make_selfplay(
    config: Any, root: Path, args: argparse.Namespace, on_generation: Any = None
) -> tuple[Any, Any]:
    """The run and its live session (None with ``--no-broker``): every game gets the live
    sinks and the streaming metrics, as in ``arena run``."""
    from tournaments.selfplay.driver import SelfPlay
    from tournaments.selfplay.live import selfplay_sinks

    live = None
    if not getattr(args, "no_broker", False):
        from app.cli import live_options

        live = selfplay_live(root.name, root, live_options(_live_args(args)))
    metrics = not getattr(args, "no_metrics", False)
    selfplay = SelfPlay(
        config, root, extra_sinks=selfplay_sinks(live, root, metrics), on_generation=on_generation
    )
    if live is not None:
        live.selfplay = selfplay
    return selfplay, live


def selfplay_live(run_id: str, root: Path, options: Any = None) -> Any:
    """A live session whose retained status is the self-play run's, not one store's, and whose
    games go on the bus under their live ids (:mod:`tournaments.selfplay.live`). ``app.live``
    loads the MQTT stack, so the class is made when a run starts, not when the CLI parses."""
    from app.live import LiveSession
    from arena.live import topics
    from tournaments.selfplay.live import Retagged, live_match_id, planned_games, status_doc

    class SelfPlayLive(LiveSession):
        def __init__(self) -> None:
            super().__init__(run_id, root, options)
            self.selfplay: Any = None  # the SelfPlay whose config and ledger the status reads
            self.last: Any = None  # the latest game started: where the run is
            self._planned: int | None = None

        def sinks(self, spec: Any) -> list[Any]:
            self.last = spec
            tagged = spec.model_copy(update={"match_id": live_match_id(spec)})
            return [Retagged(s, tagged.match_id) for s in super().sinks(tagged)]

        async def publish_status(self, final: bool = False) -> None:
            if self.publisher is None or self.selfplay is None:
                return
            if self._planned is None:
                self._planned = planned_games(self.selfplay.config)
            running = 0 if final else len(self.active)
            doc = status_doc(self.selfplay, self.last, running, final, self._planned)
            doc["run_id"] = self.run_id
            doc["bus"] = self.publisher.counters()
            if self.url is not None:
                doc["broker"] = self.public_url
            self.publisher.retain(topics.status(self.run_id), doc)

    return SelfPlayLive()


def _live_args(args: argparse.Namespace) -> argparse.Namespace:
    return argparse.Namespace(
        no_broker=False,
        broker=getattr(args, "broker", None),
        require_broker=getattr(args, "require_broker", False),
        no_seat_streams=getattr(args, "no_seat_streams", False),
    )


async def run_live(selfplay: Any, live: Any) -> dict[str, Any]:
    if live is None:
        return await selfplay.run()  # type: ignore[no-any-return]
    async with live:
        return await selfplay.run()  # type: ignore[no-any-return]


async def _run_in_tui(selfplay: Any, live: Any, root: Path) -> dict[str, Any] | None:
    """The run as the TUI's job; headless (the plain progress lines) without a terminal."""
    if not (sys.stdout.isatty() and sys.stdin.isatty()):
        print("no terminal attached: running without the TUI", file=sys.stderr)
        selfplay.on_generation = _progress_line
        return await run_live(selfplay, live)
    from tui.screens.selfplay import SelfPlayApp

    outcome: dict[str, Any] = {}

    async def job() -> None:
        outcome["report"] = await run_live(selfplay, live)

    app = SelfPlayApp(root, job=job, spent=selfplay.ledger.as_dict)
    published = selfplay.extra_sinks

    def sinks(spec: Any) -> list[Any]:  # the dashboard under the self-play screen, in process
        from tournaments.selfplay.live import live_match_id

        return [*(published(spec) if published else []), app.feed(live_match_id(spec))]

    selfplay.extra_sinks = sinks
    await app.run_async()
    return outcome.get("report")


def cmd_plot(args: argparse.Namespace) -> int:
    from tournaments.selfplay.plots import plot_selfplay

    if not args.rest:
        return _fail(["plot: give the self-play directory"])
    root = Path(args.rest[0])
    if not (root / "config.yaml").exists():
        return _fail([f"{root}: not a self-play directory (no config.yaml)"])
    if not any(root.glob("r*/g*/generation.json")):
        return _fail([f"{root}: no finished generation to plot yet"])
    for path in plot_selfplay(root):
        print(path)
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    import yaml

    from tournaments.selfplay import config as spconfig
    from tournaments.selfplay.candidate import Candidate
    from tournaments.selfplay.dry_run import probe_seats

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
    if args.run_config:
        # a config `arena run` takes as it is: the candidate against every panel entry
        panel = [p.model_dump(exclude_none=True) for p in config.panel]
        n = probe_seats(config)
        run = {
            "name": f"{config.name}-{entry['name']}",
            "game": config.game,
            "rules": config.rules,
            "agents": [entry, *panel],
            # the candidate in one seat, the panel entry in the others (as a unit of the run)
            "lineups": [{entry["name"]: 1, p["name"]: n - 1} for p in panel],
            "matches": max(1, config.units.gate),
            "policy": config.policy.model_dump(mode="json"),
        }
        print(yaml.safe_dump(run, sort_keys=False))
        return 0
    print(yaml.safe_dump({"agents": [entry], "lineage": found.lineage()}, sort_keys=False))
    return 0
