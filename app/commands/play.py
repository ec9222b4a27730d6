"""``arena play CONFIG --seat N``: play seats of a match yourself, from the terminal UI.

The config's own agents fill the other seats (as its plan seats them); ``--seat`` may be given
more than once (hot-seat: people take turns at one keyboard). A config that already names a
``kind: human`` entry plays as written. The run is an ordinary run directory (``arena export``,
``arena replay`` and ``arena score`` read it); ``arena run --tui`` with a human entry in a
lineup comes here too (:func:`play_run`). A human seat needs a terminal: without one the
command stops with exit 2 before anything is written, and a headless ``arena run`` refuses a
config with a human entry (:func:`headless_problems`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from arena.agents.human import HUMAN_KIND, human_entry_names
from arena.errors import ConfigError

DEFAULT_NAME = "human"
NO_TERMINAL = (
    "a human seat is played from the terminal UI, and no terminal is attached "
    "(stdin and stdout must be a TTY); nothing was run"
)


def add_commands(sub: Any) -> None:
    p = sub.add_parser(
        "play",
        help="play seats of a match yourself in the terminal UI (kind: human)",
        description="Play seat N of CONFIG's game against its agents, in the terminal UI: you "
        "see only what your seat may see. Several --seat flags: hot-seat play at one "
        "keyboard. Writes an ordinary run directory.",
    )
    p.add_argument("config", help="tournament config (YAML); its agents fill the other seats")
    p.add_argument(
        "--seat",
        type=int,
        action="append",
        metavar="N",
        help="a seat you play (repeat for hot-seat); default: the config's human entries",
    )
    p.add_argument("--matches", type=int, default=1, help="matches to play (default: 1)")
    p.add_argument("--seed", type=int, help="override the master seed")
    p.add_argument(
        "--timeout",
        type=float,
        metavar="S",
        help="seconds per decision of the other seats (the policy's timeout_s; never yours)",
    )
    p.add_argument(
        "--human-timeout",
        type=float,
        metavar="S",
        help="your seconds per decision (default: no limit); past it the policy's fallback plays",
    )
    p.add_argument("--name", default=DEFAULT_NAME, help="your agent entry's name (leaderboard)")
    p.add_argument("--output", help="parent directory of run directories (default: runs)")
    p.add_argument("--run-id", help="name the run directory")
    p.set_defaults(func=cmd_play)


def has_terminal() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()


def headless_problems(config: Any) -> list[str]:
    """Why ``config`` cannot run without the terminal UI (its human entries), one line each."""
    names = human_entry_names(config.agents)
    if not names:
        return []
    return [
        f"agents: {', '.join(names)} {'is' if len(names) == 1 else 'are'} played by a person "
        f"(kind: {HUMAN_KIND}) and a headless run has nobody to play "
        f"{'it' if len(names) == 1 else 'them'}: run with --tui in a terminal, or arena play"
    ]


def seat_humans(config: Any, seats: list[int], matches: int, name: str) -> Any:
    """``config`` with ``seats`` played by the human entry ``name`` in each of ``matches``
    matches; the other seats as the config's own plan seats its first matches."""
    from tournaments import config as tconfig
    from tournaments import schedule

    n = schedule.n_seats(config)
    problems = [f"--seat {s}: the game has seats 0-{n - 1}" for s in seats if not 0 <= s < n]
    if len(set(seats)) != len(seats):
        problems.append("--seat: each seat once")
    if matches < 1:
        problems.append(f"--matches: at least 1, not {matches}")
    clash = [a for a in config.agents if a.name == name and a.kind != HUMAN_KIND]
    if clash:
        problems.append(f"--name {name}: an agent entry of kind {clash[0].kind} has that name")
    if problems:
        raise ConfigError(problems)
    first = config.model_copy(update={"matches": min(config.matches, matches), "repeats": 1})
    planned = schedule.plan(first)
    if any(spec.by_team is not None for spec in planned) or config.seating == "by_team":
        raise ConfigError(
            "--seat: this config seats its agents by team (the deal decides who sits where); "
            f"name a kind: {HUMAN_KIND} entry for a team in the config instead and run "
            "`arena play CONFIG` without --seat"
        )
    names = [a.name for a in config.agents]
    base = [spec.seats for spec in planned] or [[names[s % len(names)] for s in range(n)]]
    lineups = []
    for k in range(matches):
        row = list(base[k % len(base)])
        for s in seats:
            row[s] = name
        lineups.append(row)
    raw = config.model_dump(mode="json")
    agents = raw["agents"]
    if not any(a["name"] == name for a in agents):
        agents.append({"name": name, "kind": HUMAN_KIND, "params": {}})
    raw.update(
        format="round_robin",
        lineups=lineups,
        matches=1,
        repeats=1,
        seating="rotate",  # a seat list as written: the human keeps the seat it asked for
        teams=None,
        gauntlet=None,
        rating_driven=None,
        concurrency=1,
    )
    return tconfig.parse(raw, source="arena play")


def human_timeout(config: Any, seconds: float) -> Any:
    """``config`` with every human entry's own time per decision set to ``seconds``."""
    if seconds <= 0:
        raise ConfigError(f"--human-timeout: seconds > 0, not {seconds}")
    from tournaments import config as tconfig

    raw = config.model_dump(mode="json")
    for a in raw["agents"]:
        if a["kind"] == HUMAN_KIND:
            a["params"] = {**a["params"], "timeout_s": seconds}
    return tconfig.parse(raw, source="--human-timeout")


def cmd_play(args: argparse.Namespace) -> int:
    from app import startup
    from tournaments import config as tconfig
    from tournaments.executor import Tournament, new_run_id

    overrides = {"master_seed": args.seed, "output_dir": args.output}
    try:
        config = tconfig.load(args.config, overrides)
        if args.seat:
            config = seat_humans(config, args.seat, args.matches, args.name)
        elif not human_entry_names(config.agents):
            raise ConfigError(
                f"no seat to play: give --seat N, or a kind: {HUMAN_KIND} entry in the config"
            )
        else:
            config.matches = args.matches
        if args.timeout is not None:
            if args.timeout <= 0:
                raise ConfigError(f"--timeout: seconds > 0, not {args.timeout}")
            config.policy = config.policy.model_copy(update={"timeout_s": args.timeout})
        if args.human_timeout is not None:
            config = human_timeout(config, args.human_timeout)
        if not has_terminal():
            return startup.report([NO_TERMINAL])
        if args.run_id is not None:
            startup.check_run_id(args.run_id)
        startup.preflight_now(config.agents)
    except ConfigError as err:
        return startup.report(err.problems)
    run_id = args.run_id or new_run_id(config)
    run_dir = Path(config.output_dir) / run_id
    if (run_dir / "config.yaml").exists():
        return startup.report([f"{run_dir} already exists; choose another --run-id"])
    return play_run(Tournament(config, run_dir, run_id, preflighted=True), None)


def play_run(tournament: Any, live: Any, quiet: bool = False) -> int:
    """Run ``tournament`` with its human seats served by the play UI (``live``: the run's
    live session, or None). Exit 2 without a terminal, 130 when interrupted."""
    from app import startup
    from app.console import print_leaderboard
    from arena.agents.human import HumanDesk
    from tui.play import PlayApp

    if not has_terminal():
        return startup.report([NO_TERMINAL])
    config = tournament.config
    desk = HumanDesk()
    app = PlayApp(desk, humans=frozenset(human_entry_names(config.agents)))
    outcome: dict[str, Any] = {}
    app.job = play_job(tournament, live, app, outcome)
    app.run()
    if "results" not in outcome:
        print(
            f"interrupted; finished matches are saved in {tournament.dir.root}",
            file=sys.stderr,
        )
        return 130
    print_leaderboard(outcome["results"])
    print(f"results: {tournament.dir.root / 'arena.sqlite'}")
    return 0


def match_events(path: Path) -> list[Any]:
    """The events of a finished match's record (none when it cannot be read: the end screen
    then falls back to the result's own words)."""
    from arena.events import Event

    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    events = []
    for line in lines:
        try:
            events.append(Event.model_validate_json(line))
        except ValueError:
            continue  # a torn or foreign line: not the game's closing words
    return events


def play_job(tournament: Any, live: Any, app: Any, outcome: dict[str, Any]) -> Any:
    """The coroutine function the play app runs: the tournament, each result shown as it ends."""
    from tournaments.progress import Progress

    async def job() -> None:
        seen = 0

        def changed(progress: Progress) -> None:
            nonlocal seen
            fresh = progress.done - seen
            if fresh > 0:
                for result in list(progress.results)[-fresh:]:
                    app.note_result(result, match_events(tournament.dir.jsonl(result.match_id)))
                seen = progress.done

        progress = Progress(total=len(tournament.specs), on_change=changed)
        if live is None:
            outcome["results"] = await tournament.run(progress)
            return
        async with live:
            outcome["results"] = await tournament.run(progress)

    return job
