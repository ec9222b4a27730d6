"""``arena reparse RUN_DIR``: today's answer parser over every stored raw reply of a run.

Reports per agent entry how many verdicts would change: refused replies that now parse (and the
fallbacks they would have saved), accepted replies now refused. Reads only; ``--write`` stores
the verdicts as a new result set under ``RUN_DIR/reparse/<parser id>/`` (identified by a hash
of the parser's source), leaving the run's own record and results as they were.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

console = Console()


def reparse_run(run_dir: Path) -> tuple[list[Any], int]:
    """Every judged call's verdicts, and the number of matches read."""
    from app.commands.runs import _load
    from arena.llm.reparse import replay
    from arena.sinks import read_jsonl

    results, _ = _load([str(run_dir)])
    verdicts: list[Any] = []
    read = 0
    for r in results:
        if not r.jsonl or not (run_dir / r.jsonl).exists():
            continue
        read += 1
        agents = {s.seat: s.agent for s in r.seats}
        verdicts += replay(r.match_id, read_jsonl(run_dir / r.jsonl), agents)
    return verdicts, read


def write_set(run_dir: Path, verdicts: list[Any], doc: dict[str, Any]) -> Path | None:
    """Store the verdicts as a new result set; None when this parser's set already exists."""
    out = run_dir / "reparse" / str(doc["parser"])
    if out.exists():
        return None
    tmp = out.with_name(out.name + ".tmp")
    tmp.mkdir(parents=True, exist_ok=True)
    with open(tmp / "verdicts.jsonl", "w", encoding="utf-8") as fh:
        for v in verdicts:
            fh.write(json.dumps(v.as_dict(), sort_keys=True) + "\n")
    (tmp / "summary.json").write_text(json.dumps(doc, indent=2, sort_keys=True), encoding="utf-8")
    tmp.rename(out)  # the set appears whole or not at all
    return out


def cmd_reparse(args: argparse.Namespace) -> int:
    from app.commands.runs import _fail
    from arena.llm.reparse import parser_id, summary
    from arena.sinks import RecordError

    run_dir = Path(args.run_dir)
    try:
        verdicts, read = reparse_run(run_dir)
    except (FileNotFoundError, RecordError) as err:
        return _fail(str(err))
    per_entry = summary(verdicts)
    doc: dict[str, Any] = {
        "parser": parser_id(),
        "matches": read,
        "entries": per_entry,
        "created": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    }
    if args.json:
        print(
            json.dumps({k: v for k, v in doc.items() if k != "created"}, indent=2, sort_keys=True)
        )
    else:
        console.print(render(per_entry, read, doc["parser"]))
    if args.write:
        where = write_set(run_dir, verdicts, doc)
        if where is None:
            console.print(
                f"a re-parse with parser {doc['parser']} is already stored", highlight=False
            )
        else:
            console.print(f"stored the re-parsed verdicts as {where}", highlight=False)
    return 0


def render(per_entry: dict[str, dict[str, int]], matches: int, parser: str) -> Table:
    table = Table(
        title=f"Re-parse of {matches} match records with today's parser ({parser}): verdicts "
        "that would change (the record is untouched)",
        title_justify="left",
    )
    cols = (
        "agent", "replies", "refused → parse", "fallbacks recovered", "accepted → refused",
        "read differently",
    )  # fmt: skip
    for col in cols:
        table.add_column(col, justify="left" if col == "agent" else "right")
    for agent, s in sorted(per_entry.items()):
        table.add_row(
            agent,
            str(s["calls"]),
            str(s["refused_now_parse"]),
            str(s["fallbacks_recovered"]),
            str(s["accepted_now_refused"]),
            str(s["read_differently"]),
        )
    if not per_entry:
        table.add_row("(no LLM replies recorded)", "-", "-", "-", "-", "-")
    return table


def add_commands(sub: Any) -> None:
    p = sub.add_parser(
        "reparse",
        help="run today's answer parser over a run's stored replies; report changed verdicts",
        description="Runs the current answer parser over every stored raw LLM reply of "
        "RUN_DIR and reports, per agent entry, the replies that were refused and would now "
        "parse (and the fallbacks they would have saved) and the accepted ones that would "
        "now be refused. Reads only, unless --write.",
    )
    p.add_argument("run_dir")
    p.add_argument(
        "--write",
        action="store_true",
        help="store the verdicts as a new result set under RUN_DIR/reparse/<parser id>/ "
        "(the run's record and results stay as they are)",
    )
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_reparse)
