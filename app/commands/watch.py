"""``arena watch``, ``arena replay`` and ``arena broker`` (loaded by app/cli.py)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
import time
from pathlib import Path
from typing import Any


def _err(message: str, code: int = 2) -> int:
    print(f"error: {message}", file=sys.stderr)
    return code


def _say(line: str) -> None:
    """Print one line of match text: escapes and line breaks shown, never acted on."""
    from arena.untrusted import printable

    print(printable(line, newlines="mark"))


def _tty() -> bool:
    return sys.stdout.isatty() and sys.stdin.isatty()


def add_commands(sub: Any) -> None:
    p = sub.add_parser(
        "watch",
        help="watch a run live in the terminal UI (from its run directory or an MQTT broker)",
        description="Dashboard of a run: progress, running matches, leaderboard; enter opens "
        "a match. Reads RUN_DIR's files, or subscribes to --broker.",
    )
    p.add_argument("run_dir", nargs="?", help="run directory (runs/<run_id>)")
    p.add_argument(
        "--broker",
        metavar="URL",
        help="mqtt://[user@]host:port of the run's broker (password: ARENA_MQTT_PASSWORD, or "
        "the run's own credentials when RUN_DIR is given too)",
    )
    p.add_argument(
        "--live",
        action="store_true",
        help="with RUN_DIR: subscribe to the run's broker (RUN_DIR/broker.json) with the run's "
        "credentials instead of reading its files",
    )
    p.add_argument("--run", dest="run_id", help="run id on the broker (default: the newest)")
    p.add_argument("--match", help="open this match directly")
    p.add_argument(
        "--seat",
        type=int,
        metavar="N",
        help="with --match and --live: only seat N's stream, read with that seat's own "
        "credential (the broker lets it read nothing else)",
    )
    p.add_argument(
        "--once",
        action="store_true",
        help="print a plain-text snapshot and exit (no TUI); exit 3 when the broker refuses "
        "the credentials, 4 when it cannot be reached",
    )
    p.set_defaults(func=cmd_watch)

    p = sub.add_parser(
        "replay",
        help="replay a recorded match (play/pause/step/seek)",
        description="Open a match record in the match screen: space plays, arrows step, "
        "[ ] seek, v views as a seat.",
    )
    p.add_argument("match", help="MATCH.jsonl, or a match id with --run RUN_DIR")
    p.add_argument("--run", metavar="RUN_DIR", help="run directory holding the match")
    p.add_argument("--print", action="store_true", help="print the transcript instead (no TUI)")
    p.add_argument("--seat", type=int, help="with --print: only what this seat saw")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser(
        "broker",
        help="run the embedded MQTT broker on its own",
        description="Serve MQTT on loopback. Another address needs --allow-remote and --user; "
        "the password is read from ARENA_BROKER_PASSWORD (never from the command line), and "
        "--user without it is refused. Without --user any local client may connect.",
    )
    p.add_argument("--bind", default="127.0.0.1", help="address (default: %(default)s)")
    p.add_argument("--port", type=int, default=1883, help="port (default: %(default)s)")
    p.add_argument(
        "--allow-remote", action="store_true", help="listen beyond loopback (needs --user)"
    )
    p.add_argument("--user", help="the user clients log in as (password: ARENA_BROKER_PASSWORD)")
    p.set_defaults(func=cmd_broker)


# -- watch --------------------------------------------------------------------------------
NOT_AUTHORISED = 3  # exit status of ``watch --once``: the broker refused the credentials
UNREACHABLE = 4  # exit status of ``watch --once``: no connection to the broker at all


def cmd_watch(args: argparse.Namespace) -> int:
    from tui.sources import RunDirSource

    if not args.run_dir and not args.broker:
        return _err("give a RUN_DIR or --broker URL")
    if args.live and not args.run_dir:
        return _err("--live needs a RUN_DIR")
    if args.seat is not None and not (args.match and (args.live or args.broker)):
        return _err("--seat needs --match and --live (or --broker)")
    root = Path(args.run_dir) if args.run_dir else None
    if (
        root is not None
        and not (root / "arena.sqlite").exists()
        and not (root / "matches").is_dir()
        and not (root / "broker.json").exists()
    ):
        return _err(f"{root}: not a run directory")
    source: Any
    if args.broker or args.live:
        made = _mqtt_source(args, root)
        if isinstance(made, int):
            return made
        source = made
    else:
        assert root is not None
        source = RunDirSource(root)
    if args.once or not _tty():
        return _snapshot(source)
    from tui.app import ArenaApp

    ArenaApp(source=source, open_match_id=args.match).run()
    return 0


def _mqtt_source(args: argparse.Namespace, root: Path | None) -> Any:
    """The MQTT source ``watch`` asked for, with the run's credentials when it has them; an
    exit status on bad input."""
    import json
    from dataclasses import replace

    from arena.live.auth import CredentialsError, load_run_credentials
    from arena.live.url import BrokerURL, BrokerURLError, cleartext_warning
    from tui.sources import MqttSource, find_broker

    text = args.broker or (find_broker(root) if root is not None else None)
    if text is None:
        return _err(f"{root}: no broker.json (the run did not publish live); give --broker URL")
    try:
        url = BrokerURL.parse(text)
    except BrokerURLError as err:
        return _err(str(err))
    run_id = args.run_id
    if root is not None:
        info: Any = {}
        with contextlib.suppress(OSError, ValueError):
            info = json.loads((root / "broker.json").read_text(encoding="utf-8"))
        if not isinstance(info, dict):
            info = {}
        run_id = run_id or (str(info["run_id"]) if info.get("run_id") else None)
        if url.password is None:  # the run's own (embedded broker) credentials, if it has any
            try:
                creds = load_run_credentials(root)
            except CredentialsError as err:
                return _err(str(err))
            if creds is not None:
                who = creds.god if args.seat is None else creds.seat(args.match, args.seat)
                url = replace(url, username=who.username, password=who.password)
                run_id = run_id or creds.run_id
            elif info.get("embedded") and not args.broker:
                return _err(
                    f"{root}: its embedded broker is gone (the run is not running); "
                    f"`arena watch {root}` reads its files",
                    UNREACHABLE,
                )
    clear = cleartext_warning(url)
    if clear is not None:
        print(f"warning: {clear}", file=sys.stderr)
    seat = (args.match, args.seat) if args.seat is not None else None
    return MqttSource(url, run_id=run_id, seat=seat)


def _snapshot(source: Any) -> int:
    """One plain-text picture of the run (no terminal needed)."""
    from tui.model import RunModel, rating_title, sparkline
    from tui.sources import RunDirSource

    model = RunModel()
    if isinstance(source, RunDirSource):
        source.poll(model)
        model.connection = "files"
    else:

        async def gather() -> None:
            task = asyncio.create_task(source.run(model, lambda: None))
            await asyncio.sleep(2.5)
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

        asyncio.run(gather())
        if source.refused:
            return _err(
                f"not authorised: broker {source.url.public()} refused these credentials "
                f"[{model.connection}]",
                NOT_AUTHORISED,
            )
        if not source.ever_connected:
            return _err(
                f"broker {source.url.public()} unreachable [{model.connection}]", UNREACHABLE
            )
    _say(
        f"run {model.run_id or '?'} ({model.game}) {model.status}: {model.done}/{model.total} "
        f"done, {model.failed} failed, {model.running} running; source {source.description} "
        f"[{model.connection}]"
    )
    for m in model.ordered_matches()[:20]:
        _say(f"  {m.match_id:<28} {m.status:<9} {m.phase:<12} {m.n_events:>6} events")
    if model.leaderboard:
        _say(f"  leaderboard: {rating_title(model.rating)}")
    for r in model.leaderboard:
        hist = sparkline(model.history.get(r["agent"], []))
        health = r.get("health") or {}
        refused = (health.get("refused") or {}).get("share")
        said = "" if refused is None else f"  refused {refused:.1%}"
        if health.get("flag"):
            said += f"  ! {health['flag']}"
        _say(
            f"  {r['agent']:<20} {model.rating} μ {r['mu']:6.2f} ± {r['sigma']:5.2f}  {hist}{said}"
        )
    if model.malformed or model.foreign:
        print(f"  ignored: {model.malformed} malformed, {model.foreign} foreign messages")
    return 0


# -- replay -------------------------------------------------------------------------------
def resolve_record(match: str, run: str | None) -> Path | None:
    path = Path(match)
    if path.suffix == ".jsonl" or path.exists():
        return path if path.exists() else None
    if run is None:
        return None
    candidate = Path(run) / "matches" / f"{match}.jsonl"
    return candidate if candidate.exists() else None


def cmd_replay(args: argparse.Namespace) -> int:
    from arena.sinks import RecordError
    from tui.sources import replay_events

    path = resolve_record(args.match, args.run)
    if path is None:
        hint = "" if args.run or args.match.endswith(".jsonl") else " (a match id needs --run)"
        return _err(f"no match record {args.match!r}{hint}")
    try:
        events, truncated = replay_events(path)
    except RecordError as err:
        return _err(str(err), 1)
    if truncated:
        print(
            f"notice: {path} is truncated; replaying the {len(events)} complete events",
            file=sys.stderr,
        )
    if not events:
        return _err(f"{path}: no complete event to replay", 1)
    if args.print or not _tty():
        from arena.narration import describe
        from tui.match_model import MatchModel

        model = MatchModel(events[0].match_id)
        for e in events:
            model.add(e)
        for e in model.visible(args.seat):
            _say(f"{e.seq:>5} [{e.phase}] {describe(e, model.cast, args.seat)}")
        return 0
    from tui.app import ArenaApp

    ArenaApp(replay=events, truncated=truncated).run()
    return 0


# -- broker -------------------------------------------------------------------------------
def cmd_broker(args: argparse.Namespace) -> int:
    from arena.live.broker import BrokerSecurityError, EmbeddedBroker

    password = os.environ.get("ARENA_BROKER_PASSWORD") or None
    try:
        broker = EmbeddedBroker(
            args.bind,
            args.port,
            allow_remote=args.allow_remote,
            username=args.user,
            password=password if args.user else None,
        )
        url = broker.start()
    except (BrokerSecurityError, RuntimeError) as err:
        return _err(str(err))
    if not args.user:
        print(
            "warning: no --user: any local process may read and publish on this broker",
            file=sys.stderr,
        )
    print(f"MQTT broker listening on {url.public()} (ctrl-c stops)", flush=True)
    try:
        while broker.running:
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        broker.stop()
    return 0
