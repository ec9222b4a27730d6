"""``arena score RUN_DIR|MATCH.jsonl [--settings FILE.yaml]``: recompute metrics offline."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from app.wording import count


def add_commands(sub: Any) -> None:
    p = sub.add_parser(
        "score",
        help="recompute privacy and persona metrics offline for a run directory or a match",
        description="Scores every match JSONL of RUN_DIR into RUN_DIR/metrics/<match>.json, or "
        "one MATCH.jsonl (report printed, or written with --out). Threshold version, detector "
        "versions and the embedding model are stamped into every report. A run directory also "
        "gets RUN_DIR/metrics/measures.json: each game's own measures per agent entry with 95% "
        "CIs (as `arena leaderboard --measures --json`).",
    )
    p.add_argument("target", help="run directory or match JSONL file")
    p.add_argument("--settings", help="YAML file of MetricsSettings (thresholds, tiers, options)")
    p.add_argument("--no-embeddings", action="store_true", help="lexical tiers only")
    p.add_argument("--out", help="single match: write the report here")
    p.add_argument("--columns", action="store_true", help="run: print leaderboard columns")
    p.set_defaults(func=cmd_score)


def write_measures(run_dir: Path) -> Path:
    """RUN_DIR/metrics/measures.json: the games' measures per agent entry with their CIs."""
    from app.commands.runs import bootstrap_settings
    from arena.ratings.measures import report, run_records
    from arena.store import Store

    store = Store(run_dir / "arena.sqlite")
    try:
        config = (store.run_info() or {}).get("config", {})
    finally:
        store.close()
    seed, resamples = bootstrap_settings(config)
    dest = run_dir / "metrics" / "measures.json"
    dest.parent.mkdir(parents=True, exist_ok=True)
    doc = report(run_records([run_dir]), seed, resamples)
    dest.write_text(json.dumps(doc, indent=1, sort_keys=True), encoding="utf-8")
    return dest


def cmd_score(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from arena.metrics.report import metrics_columns, score_events, score_run
    from arena.metrics.settings import load_settings

    try:
        settings = load_settings(args.settings)
    except (OSError, ValidationError, ValueError) as err:
        print(f"error: bad settings: {err}", file=sys.stderr)
        return 2
    if args.no_embeddings:
        settings = settings.model_copy(update={"embeddings": False})
    target = Path(args.target)
    if target.is_dir():
        if not (target / "matches").is_dir():
            print(f"error: {target} has no matches/ directory", file=sys.stderr)
            return 2
        paths = score_run(target, settings)
        print(f"scored {count(len(paths), 'match', 'matches')} into {target / 'metrics'} "
              f"(thresholds {settings.thresholds.version})")  # fmt: skip
        if (target / "arena.sqlite").exists():
            dest = write_measures(target)
            print(f"game measures per agent entry: {dest}")
        if args.columns:
            print(json.dumps(metrics_columns(target), indent=1, default=str))
        return 0
    if not target.is_file():
        print(f"error: {target} not found", file=sys.stderr)
        return 2
    report = score_events(target, settings)
    text = json.dumps(report, indent=1, default=str)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
    else:
        print(text)
    return 0
