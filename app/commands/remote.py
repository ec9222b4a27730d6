"""CLI commands: ``arena serve-agent KIND`` (a built-in agent as a remote agent server) and
``arena gauntlet --agent URL --game GAME`` (rate an agent against the frozen reference pool)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from arena.errors import ConfigError


def _fail(problems: list[str], code: int = 2) -> int:
    from app.startup import report

    return report(problems, code)


def add_commands(sub: Any) -> None:
    p = sub.add_parser(
        "serve-agent",
        help="serve a built-in agent kind over the remote agent protocol (docs/remote.md)",
        description="Serve KIND (random, rule, werewolf.rule, llm, ...) as a remote agent: each "
        "match that seats it builds a fresh agent of that kind for the match's game. Listens "
        "on 127.0.0.1 unless --host says otherwise; another host needs --token-env.",
    )
    p.add_argument("kind", nargs="?", help="agent kind (default: the --entry's kind)")
    p.add_argument("--params", default="{}", help="the agent's params as a JSON object")
    p.add_argument("--config", help="serve an agent entry of this tournament config ...")
    p.add_argument("--entry", help="... named ENTRY (its kind and params)")
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default: %(default)s; another host needs --token-env)",
    )
    p.add_argument(
        "--port", type=int, default=8700, help="port to listen on (default: %(default)s)"
    )
    p.add_argument("--token-env", help="require this env variable's value as Bearer token")
    p.add_argument("--name", default="", help="the name /info reports")
    p.add_argument(
        "--no-text",
        action="store_true",
        help="tell the runner not to send the rendered text (the agent reads events only)",
    )
    p.add_argument("--max-seconds", type=float, help="stop by itself after this many seconds")
    p.set_defaults(func=cmd_serve_agent)
    _add_gauntlet(sub)


def _add_gauntlet(sub: Any) -> None:
    p = sub.add_parser(
        "gauntlet",
        help="rate a remote agent against a game's frozen reference opponents",
        description="Plays the agent at URL against every opponent of the game's reference "
        "pool (rule bots at fixed slip levels, fixed rules and seeds; --list-pools): head "
        "to head with sides swapped, or, in a game of factions, in one seat among the "
        "opponent's copies with its role balanced across matches; then prints the board "
        "(every entry rated, 95% intervals) with each entry's harness health.",
    )
    p.add_argument("--agent", metavar="URL", help="the remote agent's base URL")
    p.add_argument("--game", help="the game (a pool per registered game)")
    p.add_argument(
        "--name", help="the agent's entry name on the board (default: the name its /info reports)"
    )
    p.add_argument("--token-env", help="env variable holding the agent's bearer token")
    p.add_argument(
        "--allow-remote-host",
        action="store_true",
        help="the agent may be on another host (config: allow_remote_host: true)",
    )
    p.add_argument(
        "--matches", type=int, default=10, help="matches per opponent (default: %(default)s)"
    )
    p.add_argument(
        "--concurrency",
        type=int,
        default=8,
        help="matches played at once (default: %(default)s)",
    )
    p.add_argument(
        "--timeout-s",
        type=float,
        default=30.0,
        help="seconds the agent has per decision (default: %(default)s)",
    )
    p.add_argument("--output", default="runs", help="where the run directory goes")
    p.add_argument("--run-id", help="the run directory's name (default: a new id)")
    p.add_argument("--json", action="store_true", help="the pool, the board and its health as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress display")
    p.add_argument("--list-pools", action="store_true", help="print the pools and exit")
    p.set_defaults(func=cmd_gauntlet)


# -- serve-agent ----------------------------------------------------------------------------
def _served(args: argparse.Namespace) -> tuple[str, dict[str, Any]]:
    """The kind and params to serve; ConfigError when they do not build an agent."""
    if args.config or args.entry:
        if not (args.config and args.entry):
            raise ConfigError("--config and --entry go together")
        from tournaments import config as tconfig

        try:
            entry = tconfig.load(args.config).entry(args.entry)
        except KeyError:
            raise ConfigError(f"--entry: no agent entry named {args.entry!r}") from None
        return entry.kind, entry.written()
    if not args.kind:
        raise ConfigError("give a KIND (or --config FILE --entry NAME)")
    try:
        params = json.loads(args.params)
    except json.JSONDecodeError as err:
        raise ConfigError(f"--params: not JSON ({err})") from None
    if not isinstance(params, dict):
        raise ConfigError("--params: must be a JSON object")
    return args.kind, params


def _check_kind(kind: str, params: dict[str, Any]) -> None:
    """KIND must build for at least one registered game, with these params."""
    from arena import registry
    from arena.agents import factory

    for game in registry.games():
        try:
            problems = factory.param_problems(kind, game, params)
        except KeyError:
            continue
        if problems:
            raise ConfigError(problems)
        return
    raise ConfigError(f"unknown agent kind {kind!r} (`arena envs` lists the kinds per game)")


def cmd_serve_agent(args: argparse.Namespace) -> int:
    import os

    from arena.remote.client import is_loopback

    try:
        kind, params = _served(args)
        _check_kind(kind, params)
        if not is_loopback(args.host) and not args.token_env:
            raise ConfigError(
                f"--host {args.host}: serving beyond this machine needs --token-env "
                "(a seat's view is private)"
            )
        token = None
        if args.token_env:
            token = os.environ.get(args.token_env)
            if not token:
                raise ConfigError(f"--token-env: {args.token_env} is not set")
    except ConfigError as err:
        return _fail(err.problems)
    return _serve(args, kind, params, token)


def _serve(args: argparse.Namespace, kind: str, params: dict[str, Any], token: str | None) -> int:
    import uvicorn

    from app.startup import listen
    from arena.remote.protocol import PROTOCOL_VERSION
    from arena.remote.server import AgentServer, kind_factory, make_app

    try:
        sock = listen(args.host, args.port)  # a busy port: one error line, exit 2
    except ConfigError as err:
        return _fail(err.problems)
    server = AgentServer(kind_factory(kind, params), args.name or kind, text=not args.no_text)
    config = uvicorn.Config(
        make_app(server, token), host=args.host, port=args.port, log_level="warning"
    )
    web = uvicorn.Server(config)

    async def main() -> None:
        if args.max_seconds:
            loop = asyncio.get_running_loop()
            loop.call_later(args.max_seconds, lambda: setattr(web, "should_exit", True))
        serving = asyncio.create_task(web.serve(sockets=[sock]))
        while not web.started and not serving.done():  # announce only once it listens
            await asyncio.sleep(0.01)
        if web.started:
            print(f"arena serve-agent: {kind} on http://{args.host}:{args.port} "
                  f"(remote agent protocol {PROTOCOL_VERSION})", flush=True)  # fmt: skip
        await serving

    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        return 130
    return 0


# -- gauntlet -------------------------------------------------------------------------------
def cmd_gauntlet(args: argparse.Namespace) -> int:
    from tournaments.gauntlet import POOLS

    if args.list_pools:
        for game, listed in sorted(POOLS.items()):
            entries = ", ".join(
                f"{n} ({k} {p or ''})".replace(" )", ")") for n, k, p in listed.entries
            )
            print(
                f"{game}: {listed.name}, rules {listed.rules}, seed {listed.master_seed}: {entries}"
            )
        return 0
    if not args.agent or not args.game:
        return _fail(["give --agent URL and --game GAME (or --list-pools)"])
    pool = POOLS.get(args.game)
    if pool is None:
        return _fail(
            [f"--game: no reference pool for {args.game!r}; pools: {', '.join(sorted(POOLS))}"]
        )
    try:
        run_dir, results = _run_gauntlet(args, pool)
    except ConfigError as err:
        return _fail(err.problems)
    except KeyboardInterrupt:
        print(
            f"\ninterrupted; resume with: arena run --resume {run_dir_hint(args)}", file=sys.stderr
        )
        return 130
    return _print_board(args, run_dir, results, pool)


def run_dir_hint(args: argparse.Namespace) -> str:
    return f"{args.output}/{args.run_id or '<run id>'}"


def _run_gauntlet(args: argparse.Namespace, pool: Any) -> tuple[Path, list[Any]]:
    from app import startup
    from app.progress import progress_display, ticking
    from tournaments import config as tconfig
    from tournaments.executor import Tournament, new_run_id
    from tournaments.gauntlet import gauntlet_config

    args.name = args.name or _info_name(args)
    raw = gauntlet_config(
        pool, args.agent, args.name, args.token_env, args.matches, args.concurrency,
        args.timeout_s, args.output, args.allow_remote_host,
    )  # fmt: skip
    config = tconfig.parse(raw, source=f"gauntlet {pool.name}")
    if args.run_id is not None:
        startup.check_run_id(args.run_id)
    run_id = args.run_id or new_run_id(config)
    run_dir = Path(config.output_dir) / run_id
    if (run_dir / "config.yaml").exists():
        raise ConfigError(f"{run_dir} already exists; use arena run --resume {run_dir}")
    existed = run_dir.exists()
    tournament = Tournament(config, run_dir, run_id)

    async def play(progress: Any) -> list[Any]:
        await startup.preflight(config.agents)  # unreachable or another protocol: exit 2
        if not args.quiet:
            print(f"gauntlet {pool.name}: {args.name} vs {len(pool.entries)} opponents "
                  f"-> {run_dir}", file=sys.stderr)  # fmt: skip
        async with ticking(progress):
            return await tournament.run(progress)

    try:
        with progress_display(len(tournament.specs), quiet=args.quiet) as progress:
            return run_dir, asyncio.run(play(progress))
    except ConfigError:
        startup.remove_if_new(run_dir, existed)
        raise


def _info_name(args: argparse.Namespace) -> str:
    """The entry name for the agent: the name its ``/info`` reports, made a valid entry name
    (``agent`` when it reports none); ConfigError when the agent cannot be asked."""
    import re

    from pydantic import ValidationError

    from arena.errors import describe_validation
    from arena.remote.client import RemoteCallError, RemoteParams, fetch_info

    params = {"url": args.agent, "token_env": args.token_env}
    params["allow_remote_host"] = args.allow_remote_host
    try:
        info = asyncio.run(fetch_info(RemoteParams.model_validate(params)))
    except ValidationError as err:
        raise ConfigError(describe_validation(err, "--agent")) from None
    except (RemoteCallError, ValueError) as err:
        raise ConfigError(f"agent at {args.agent}: {err}") from None
    name = re.sub(r"[^A-Za-z0-9_.:@+-]+", "-", info.name).strip("-")[:64]
    return name or "agent"


def _run_config(run_dir: Path) -> dict[str, Any]:
    import yaml

    data = yaml.safe_load((run_dir / "config.yaml").read_text(encoding="utf-8"))
    return data if isinstance(data, dict) else {}


def _print_board(args: argparse.Namespace, run_dir: Path, results: list[Any], pool: Any) -> int:
    """The run's board (harness health beside every rating, docs/leaderboards.md), as tables
    or, with --json, one document with the pool it was rated against."""
    from app.commands import leaderboard

    if args.json:
        from app.commands.runs import bootstrap_settings
        from arena.ratings.board import one_board

        seed, resamples = bootstrap_settings(_run_config(run_dir))
        out = {
            "run_dir": str(run_dir),
            "pool": pool_doc(pool),
            "board": one_board(results, "agent", seed, resamples),
        }
        print(json.dumps(out, indent=2, sort_keys=True, default=str))
        return 0
    print(f"pool: {pool.name} (rules {pool.rules}, seed {pool.master_seed})", flush=True)
    board = argparse.Namespace(
        run_dir=[str(run_dir)], by="agent", json=False, csv=False, metrics=False,
        measures=False, strict=False, pool="seasons",
    )  # fmt: skip
    code = leaderboard.cmd_leaderboard(board)
    print(f"run: {run_dir}", flush=True)
    return code


def pool_doc(pool: Any) -> dict[str, Any]:
    """The pool as data: its id (``game-ref@version``), version, rules, seed and opponents."""
    return {
        "id": pool.name,
        "game": pool.game,
        "version": pool.version,
        "rules": dict(pool.rules),
        "master_seed": pool.master_seed,
        "opponents": [{"name": n, "kind": k, "params": p} for n, k, p in pool.entries],
    }
