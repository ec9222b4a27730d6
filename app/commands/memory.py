"""``arena memory ...``: inspect, verify, move and grow insight banks (docs/memory.md)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from arena.untrusted import json_for_terminal, printable


def add_commands(sub: Any) -> None:
    p = sub.add_parser(
        "memory",
        help="insight banks: list, show, history, diff, verify, export, import, add, reflect",
        description="An insight bank is an append-only, hash-chained SQLite log. list, show, "
        "history, diff, verify and export open it read-only and never change a byte of it; "
        "every command refuses a bank whose hash chain is broken (verify says where).",
    )
    msub = p.add_subparsers(dest="memory_command", metavar="COMMAND")

    def cmd(name: str, help: str, func: Any) -> argparse.ArgumentParser:
        q = msub.add_parser(name, help=help, description=help)
        q.add_argument("bank", help="bank file (SQLite)")
        q.set_defaults(func=func)
        return q  # type: ignore[no-any-return]

    q = cmd("list", "the insights of a bank version", cmd_list)
    q.add_argument("--namespace", help="only insights applying to game[/role[/opponent]]")
    q.add_argument("--status", default="active", help="active|retired|merged|any")
    q.add_argument("--version", type=int, help="bank version (default: newest)")
    q.add_argument("--json", action="store_true", help="as JSON")
    q = cmd("show", "one insight in full (provenance, support, effect)", cmd_show)
    q.add_argument("id", help="insight id")
    q.add_argument("--version", type=int, help="bank version (default: newest)")
    q = cmd("history", "every logged operation naming an insight", cmd_history)
    q.add_argument("id", help="insight id")
    q = cmd("diff", "what changed between two versions", cmd_diff)
    q.add_argument("old", type=int, help="the older version")
    q.add_argument("new", type=int, nargs="?", help="default: newest")
    q = cmd(
        "verify", "recompute the hash chain and replay the log (exit 1 when broken)", cmd_verify
    )
    q.add_argument(
        "--expect",
        metavar="FILE|HASH",
        help="a head record a run wrote (RUN/banks/NAME.head.json: the bank must still hold "
        "that version with that hash, so cut-off rows are caught), or the head hash the bank "
        "must end with (e.g. from a match record)",
    )
    q = cmd("export", "write the log as JSONL (header line + one operation per line)", cmd_export)
    q.add_argument("--out", help="file (default: stdout)")
    q = cmd(
        "import", "append an exported log (the bank must be empty or a prefix of it)", cmd_import
    )
    q.add_argument("file", help="an exported log (JSONL)")
    q = cmd("add", "add an insight by hand", cmd_add)
    q.add_argument("namespace", help="game[/role[/opponent]]")
    q.add_argument("text", help="the insight")
    q = cmd("reflect", "reflect on finished matches and update the bank", cmd_reflect)
    q.add_argument("target", help="a match JSONL or a run directory (its matches/*.jsonl)")
    q.add_argument("--seats", default="all", help="comma-separated seats, or all")
    q.add_argument(
        "--reflector",
        default="scripted",
        help="a scripted rule (scripted, scripted:directives, scripted:blame; see docs/memory.md)"
        " or llm (with --backend)",
    )
    q.add_argument("--backend", default="{}", help="llm reflector: BackendConfig as JSON")
    q.add_argument("--namespace", default="{game}/{role}", help="where insights go")
    q.add_argument(
        "--budget", type=int, default=3, help="operations per reflected seat (default: 3)"
    )
    q.add_argument(
        "--cap", type=int, default=20, help="active insights per namespace (default: 20)"
    )
    q = cmd(
        "ablate",
        "measure each insight's effect: paired seeded units with the bank and "
        "the bank minus it, effects written to the log",
        cmd_ablate,
    )
    q.add_argument("config", help="tournament config whose llm entry reads BANK")
    q.add_argument("--units", type=int, help="the first N planned matches (default: all)")
    q.add_argument(
        "--metric", choices=["score", "win"], default="score", help="the effect measured on"
    )
    q.add_argument("--whole", action="store_true", help="also the whole bank vs no memory")
    q.add_argument(
        "--whole-only",
        action="store_true",
        help="only the whole bank vs no memory (two arms: the cheap question first)",
    )
    q.add_argument("--retire", action="store_true", help="retire insights measured harmful")
    q.add_argument(
        "--unproven",
        action="store_true",
        help="with --retire: retire every measured insight whose lower bound is <= 0 (keep only "
        "those shown helpful), not just those whose upper bound is < 0",
    )
    q.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="with --retire: ablate again after each retirement, until nothing more is retired "
        "or N rounds (leave-one-out effects are not additive: one harmful insight can mask the "
        "rest)",
    )
    q.add_argument(
        "--master-seed",
        type=int,
        help="play units of this master seed instead of the config's (a held-out set)",
    )
    q.add_argument("--concurrency", type=int, help="units in flight (default: the config's)")
    q.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    p.set_defaults(func=lambda a: (p.print_help(), 2)[1])


def _bank(args: argparse.Namespace, must_exist: bool = True) -> Any:
    """The bank to write to; an existing one must verify first (a writer never extends a
    broken chain)."""
    from arena.memory import Bank

    path = Path(args.bank).expanduser()
    if must_exist and not path.exists():
        raise SystemExit(_err(f"{path} does not exist"))
    if path.exists():
        _intact(_reader(args))
    return Bank(path)


def _reader(args: argparse.Namespace) -> Any:
    """The bank opened read-only: nothing is created, migrated or changed in or beside it."""
    from arena.memory import BankError
    from arena.memory.bank import open_reader

    try:
        return open_reader(Path(args.bank).expanduser())
    except BankError as err:
        raise SystemExit(_err(str(err))) from None


def _intact(bank: Any) -> Any:
    """``bank`` when its hash chain verifies; otherwise exit 2 naming its first bad row."""
    result = bank.verify()
    if not result.ok:
        raise SystemExit(_err(f"{result.problem(bank.path)}; refusing to read it"))
    return bank


def _err(msg: str, code: int = 2) -> int:
    print(f"error: {msg}", file=sys.stderr)
    return code


def _plain(text: str) -> Any:
    """Text for a Rich table cell: no markup parsed, escapes shown (a str cell is markup)."""
    from rich.text import Text

    return Text(printable(text))


def _effect(ins: Any) -> str:
    e = ins.effect
    return "" if e is None else f"{e.delta:+.3f} [{e.lo:+.3f}, {e.hi:+.3f}] n={e.n}"


def cmd_list(args: argparse.Namespace) -> int:
    from arena.memory import BankError

    bank = _intact(_reader(args))
    try:
        snap = bank.at(args.version)
        status = None if args.status == "any" else args.status
        rows = snap.insights(args.namespace, status=status)
    except (BankError, ValueError) as err:
        return _err(str(err))
    if args.json:
        print(json.dumps([i.model_dump(mode="json") for i in rows], indent=1))
        return 0
    from rich.table import Table

    from app.console import stdout_console

    table = Table(title=f"{bank.path.name} @ version {snap.version}", title_justify="left")
    for col in ("id", "namespace", "status", "support", "effect", "text"):
        table.add_column(col, overflow="fold")
    for i in rows:
        # insight text was drawn from agents' words: a Text (no markup), escapes shown
        table.add_row(i.id, i.namespace, i.status, str(i.support), _effect(i), _plain(i.text))
    stdout_console().print(table)
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    from arena.memory import BankError

    try:
        ins = _intact(_reader(args)).at(args.version).get(args.id)
    except BankError as err:
        return _err(str(err))
    print(json.dumps(ins.model_dump(mode="json"), indent=1))
    return 0


def cmd_history(args: argparse.Namespace) -> int:
    ops = _intact(_reader(args)).history(args.id)
    if not ops:
        return _err(f"no operation names {args.id}", 1)
    for op in ops:
        print(
            json.dumps(
                {
                    "version": op.version,
                    "op": op.op,
                    "namespace": op.namespace,
                    "payload": op.payload,
                    "hash": op.hash[:16],
                }
            )
        )
    return 0


def cmd_diff(args: argparse.Namespace) -> int:
    from arena.memory import BankError
    from arena.memory.state import diff

    bank = _intact(_reader(args))
    try:
        changes = diff(bank.at(args.old), bank.at(args.new))
    except BankError as err:
        return _err(str(err))
    for change in changes:
        print(json_for_terminal(json.dumps(change, ensure_ascii=False)))
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    from arena.memory import BankError
    from arena.memory.evidence import check_holds, load_expectation

    bank = _reader(args)
    try:
        expect = load_expectation(args.expect) if args.expect else None
    except BankError as err:
        return _err(str(err))
    result = bank.verify(expect if isinstance(expect, str) else None)
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if not result.ok:
        where = f" at version {result.bad_version}" if result.bad_version else ""
        print(f"BROKEN{where}: {result.reason}")
        return 1
    since = ""
    if expect is not None and not isinstance(expect, str):
        problem = check_holds(bank, expect.version, expect.head_hash)
        if problem:
            print(f"BROKEN: {problem}")
            return 1
        since = f"; holds the recorded head (version {expect.version}"
        since += f", {result.n_ops - expect.version} operations since)"
    print(f"ok: {result.n_ops} operations, head {result.head_hash}{since}")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    bank = _intact(_reader(args))
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            n = bank.export(fh)
        print(f"exported {n} operations to {args.out}", file=sys.stderr)
    else:
        bank.export(sys.stdout)
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from arena.memory import BankError

    bank = _bank(args, must_exist=False)
    try:
        with open(args.file, encoding="utf-8") as fh:
            n = bank.import_log(fh)
    except (OSError, BankError, ValueError) as err:
        return _err(str(err), 1)
    print(f"imported {n} operations; head {bank.head()[1]}")
    return 0


def cmd_add(args: argparse.Namespace) -> int:
    from arena.memory import BankError

    try:
        iid = _bank(args, must_exist=False).add(args.namespace, args.text, created_by="user")
    except (BankError, ValueError) as err:
        return _err(str(err))
    print(iid)
    return 0


def cmd_reflect(args: argparse.Namespace) -> int:
    from arena.memory.reflect import SCRIPTED_RULES, LLMReflector, make_reflector
    from arena.memory.trajectory import load_events
    from arena.memory.update import UpdateSettings, reflect_seat

    target = Path(args.target)
    paths = sorted((target / "matches").glob("*.jsonl")) if target.is_dir() else [target]
    if not paths or not all(p.is_file() for p in paths):
        return _err(f"no match records at {target}")
    reflector: Any
    if args.reflector == "llm":
        reflector = LLMReflector(json.loads(args.backend))
    elif args.reflector in SCRIPTED_RULES:
        reflector = make_reflector(args.reflector)
    else:
        return _err(f"--reflector is llm or one of {', '.join(SCRIPTED_RULES)}")
    settings = UpdateSettings(budget=args.budget, cap=args.cap)
    bank = _bank(args, must_exist=False)

    async def run() -> None:
        for path in paths:  # record order = match id order: the same inputs, the same bank
            events = load_events(path)
            start = next(e for e in events if e.type == "match_start")
            n = len(start.payload.get("names") or [])
            seats = range(n) if args.seats == "all" else [int(s) for s in args.seats.split(",")]
            for seat in seats:
                report = await reflect_seat(bank, events, seat, reflector, args.namespace, settings)
                print(json.dumps(report.summary()))
        if isinstance(reflector, LLMReflector):
            await reflector.close()

    asyncio.run(run())
    return 0


def cmd_ablate(args: argparse.Namespace) -> int:
    from arena.errors import ConfigError
    from arena.memory.ablate import retire_harmful
    from tournaments import config as tconfig
    from tournaments.ablation import ablate_config

    if args.rounds < 1 or (args.rounds > 1 and not args.retire):
        return _err("--rounds N needs N >= 1, and --retire when N > 1")
    if args.unproven and not args.retire:
        return _err("--unproven is a retirement rule: use it with --retire")
    if args.concurrency is not None and args.concurrency < 1:
        return _err("--concurrency must be at least 1")
    bank = _bank(args)
    try:
        config = tconfig.load(args.config)
        if args.master_seed is not None:
            config = config.model_copy(update={"master_seed": args.master_seed})
        for round_ in range(args.rounds):
            results = asyncio.run(
                ablate_config(
                    config,
                    str(bank.path),
                    args.units,
                    args.metric,
                    args.whole or args.whole_only,
                    args.seed,
                    concurrency=args.concurrency,
                    each=not args.whole_only,
                )
            )
            snap = bank.at()
            for r in results:
                e = r.estimate
                label = "whole bank" if len(r.ids) > 1 else snap.get(r.ids[0]).text
                row = {
                    "round": round_,
                    "ids": list(r.ids),
                    "insight": label,
                    "metric": args.metric,
                    "delta": e.value,
                    "lo": e.low,
                    "hi": e.high,
                    "n": e.n,
                    "with": r.with_mean,
                    "without": r.without_mean,
                }
                print(json.dumps(row), flush=True)
            retired = retire_harmful(bank, args.unproven) if args.retire else []
            for iid in retired:
                print(json.dumps({"round": round_, "retired": iid}), flush=True)
            if not retired:
                break
    except ConfigError as err:
        for problem in err.problems:
            print(f"error: {problem}", file=sys.stderr)
        return 2
    return 0
