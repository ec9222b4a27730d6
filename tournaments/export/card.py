"""The dataset card (``README.md``) of an export: what was exported, from which run, how.

The card holds the run's resolved config and a leaderboard of the whole run per agent entry
(games, wins, draws, losses, win rate, mean reward: SQL aggregates over the stored seats, so
it costs no memory per match; the rated leaderboard with μ, σ and CIs is ``arena
leaderboard RUN_DIR``). Without the god view the config's ``master_seed`` is withheld: with it
and the plan, anyone could rebuild every match's seed and replay the engines' deals.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import yaml

from arena.store import Store
from tournaments.export.options import ExportOptions

MARK = "<!-- arena export card -->"


def leaderboard_rows(store: Store) -> list[dict[str, Any]]:
    """Per agent entry over every finished, forfeited or errored match of the run."""
    rows = store.db.execute(
        "SELECT s.agent, COUNT(*), SUM(s.result = 'win'), SUM(s.result = 'draw'),"
        " SUM(s.result = 'loss'), AVG(s.reward), SUM(s.invalid), SUM(s.fallbacks)"
        " FROM seats s JOIN matches m ON m.match_id = s.match_id GROUP BY s.agent"
    )
    out = []
    for agent, games, wins, draws, losses, reward, invalid, fallbacks in rows:
        decided = wins + draws + losses
        out.append(
            {
                "agent": agent,
                "games": games,
                "wins": wins,
                "draws": draws,
                "losses": losses,
                "win_rate": wins / decided if decided else 0.0,
                "mean_reward": reward or 0.0,
                "invalid": invalid,
                "fallbacks": fallbacks,
            }
        )
    out.sort(key=lambda r: (-r["win_rate"], r["agent"]))
    return out


def _table(rows: list[dict[str, Any]]) -> str:
    head = "| agent | games | W-D-L | win rate | mean reward | invalid | fallbacks |"
    lines = [head, "|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(
            f"| {_cell(r['agent'])} | {r['games']} | {r['wins']}-{r['draws']}-{r['losses']} | "
            f"{r['win_rate']:.3f} | {r['mean_reward']:+.3f} | {r['invalid']} | {r['fallbacks']} |"
        )
    return "\n".join(lines)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def card_text(
    store: Store, info: dict[str, Any], options: ExportOptions, rows: int, data_file: str | None
) -> str:
    config = dict(info.get("config") or {})
    if not options.god and "master_seed" in config:
        config["master_seed"] = "(withheld: export with --god-view to include it)"
    keep = options.keep
    filters = {
        k: v
        for k, v in (
            ("agent", keep.agent),
            ("role", keep.role),
            ("outcome", keep.outcome),
            ("seat", keep.seat),
        )
        if v is not None
    }
    counts = store.counts()
    front = {
        "pretty_name": f"llm-arena trajectories: {info.get('run_id', '')}",
        "tags": ["llm-arena", "multi-agent", "trajectories", str(info.get("game", ""))],
        "size_categories": [_size(rows)],
    }
    where = data_file or "this directory (`datasets.load_from_disk`)"
    view = (
        "god view: every row also carries the match seed, the ground truth of every seat and "
        "the spectator transcript"
        if options.god
        else "per seat: a row holds only what its seat saw (its own observation, prompt, "
        "answer, facts and result)"
    )
    parts = [
        "---",
        yaml.safe_dump(front, sort_keys=False).strip(),
        "---",
        MARK,
        f"# Trajectories of run `{info.get('run_id', '')}`",
        "",
        f"One row per applied seat decision, exported by `arena export` on "
        f"{dt.datetime.now(dt.UTC).strftime('%Y-%m-%d %H:%M UTC')} (see docs/export.md for "
        "the columns).",
        "",
        f"- game: `{info.get('game', '')}`; run status: {info.get('status', '')}; matches: "
        + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())),
        f"- rows: {rows}; format: {options.fmt}; data: {where}",
        "- filters: " + (", ".join(f"{k}={v}" for k, v in filters.items()) or "none"),
        f"- view: {view}",
        "",
        "## Leaderboard (whole run, per agent entry)",
        "",
        _table(leaderboard_rows(store)),
        "",
        "Rated leaderboard (μ, σ, 95% CIs): `arena leaderboard RUN_DIR`.",
        "",
        "## Run config",
        "",
        "```yaml",
        yaml.safe_dump(config, sort_keys=False).strip(),
        "```",
        "",
    ]
    return "\n".join(parts)


def _size(rows: int) -> str:
    for limit, label in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K")):
        if rows < limit:
            return label
    return "100K<n<1M" if rows < 1_000_000 else "n>1M"


def write_card(
    out: Path,
    store: Store,
    info: dict[str, Any],
    options: ExportOptions,
    rows: int,
    data_file: str | None,
) -> Path:
    path = out / "README.md"
    path.write_text(card_text(store, info, options, rows, data_file), encoding="utf-8")
    return path
