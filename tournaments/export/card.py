"""The dataset card (``README.md``) of an export: what was exported, from which run, how.

The card holds the run's resolved config, a leaderboard of the whole run per agent entry
(games, wins, draws, losses, win rate, mean reward, and its harness health: the share of its
decisions with a refused answer and of its matches forfeited, with 95% intervals) and the
conditions its matches were played under (the fingerprint, and the seasons when they differ).
All are SQL aggregates over the stored seats, so the card costs no memory per match; the rated
leaderboard with μ, σ and CIs is ``arena leaderboard RUN_DIR``. The same figures are in the
card's front matter under ``llm_arena`` (:func:`card_data`), for a program to read. Without
the god view the config's ``master_seed`` is withheld: with it and the plan, anyone could
rebuild every match's seed and replay the engines' deals.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import yaml

from arena.store import Store
from tournaments.export import board
from tournaments.export.options import ExportOptions

MARK = "<!-- arena export card -->"
# The conditions a reader checks first (the rest are in the front matter).
_SAID = ("game", "rules_version", "policy.fallback", "policy.retries", "metrics.version")


def leaderboard_rows(store: Store, threshold: float) -> list[dict[str, Any]]:
    """Per agent entry over every finished, forfeited or errored match of the run, with its
    harness health (:func:`tournaments.export.board.entry_health`)."""
    rows = store.db.execute(
        "SELECT s.agent, COUNT(*), SUM(s.result = 'win'), SUM(s.result = 'draw'),"
        " SUM(s.result = 'loss'), AVG(s.reward), SUM(s.invalid), SUM(s.fallbacks)"
        " FROM seats s JOIN matches m ON m.match_id = s.match_id GROUP BY s.agent"
    )
    health = board.entry_health(store, threshold)
    out = []
    for agent, games, wins, draws, losses, reward, invalid, fallbacks in rows:
        decided = wins + draws + losses
        doc = health.get(agent) or {}
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
                "harness_error": doc.get("refused"),
                "forfeit": doc.get("forfeit"),
                "health_unknown_matches": doc.get("unknown_matches", 0),
                "flag": doc.get("flag"),
            }
        )
    out.sort(key=lambda r: (-r["win_rate"], r["agent"]))
    return out


def card_data(store: Store, info: dict[str, Any], threshold: float) -> dict[str, Any]:
    """The card's figures as plain data (the front matter's ``llm_arena``)."""
    return {
        "run_id": str(info.get("run_id", "")),
        "game": str(info.get("game", "")),
        "status": str(info.get("status", "")),
        "matches": dict(sorted(store.counts().items())),
        "harness_error_threshold": threshold,
        "leaderboard": leaderboard_rows(store, threshold),
        "conditions": board.conditions(store),
    }


def card_text(
    store: Store, info: dict[str, Any], options: ExportOptions, rows: int, data_file: str | None
) -> str:
    config = _shown_config(info, options)
    data = card_data(store, info, board.threshold_of(config))
    front = {
        "pretty_name": f"llm-arena trajectories: {data['run_id']}",
        "tags": ["llm-arena", "multi-agent", "trajectories", data["game"]],
        "size_categories": [_size(rows)],
        "llm_arena": data,
    }
    parts = [
        "---",
        yaml.safe_dump(front, sort_keys=False, allow_unicode=True).strip(),
        "---",
        MARK,
        f"# Trajectories of run `{data['run_id']}`",
        "",
        *_about(data, options, rows, data_file),
        "",
        "## Leaderboard (whole run, per agent entry)",
        "",
        _table(data["leaderboard"]),
        "",
        *_health_note(data),
        "Rated leaderboard (μ, σ, 95% CIs): `arena leaderboard RUN_DIR`.",
        "",
        "## Conditions",
        "",
        *_condition_lines(data["conditions"]),
        "",
        "## Run config",
        "",
        "```yaml",
        yaml.safe_dump(config, sort_keys=False).strip(),
        "```",
        "",
    ]
    return "\n".join(parts)


def _shown_config(info: dict[str, Any], options: ExportOptions) -> dict[str, Any]:
    config = dict(info.get("config") or {})
    if not options.god and "master_seed" in config:
        config["master_seed"] = "(withheld: export with --god-view to include it)"
    return config


def _about(
    data: dict[str, Any], options: ExportOptions, rows: int, data_file: str | None
) -> list[str]:
    """What was exported, how, and which rows were kept."""
    keep = options.keep
    filters = [f"{k}={v}" for k, v in (("agent", keep.agent), ("role", keep.role),
               ("outcome", keep.outcome), ("seat", keep.seat)) if v is not None]  # fmt: skip
    where = data_file or "this directory (`datasets.load_from_disk`)"
    view = (
        "god view: every row also carries the match seed, the ground truth of every seat and "
        "the spectator transcript"
        if options.god
        else "per seat: a row holds only what its seat saw (its own observation, prompt, "
        "answer, facts and result)"
    )
    counts = ", ".join(f"{k} {v}" for k, v in data["matches"].items())
    return [
        f"One row per applied seat decision, exported by `arena export` on "
        f"{dt.datetime.now(dt.UTC).strftime('%Y-%m-%d %H:%M UTC')} (see docs/export.md for "
        "the columns).",
        "",
        f"- game: `{data['game']}`; run status: {data['status']}; matches: {counts}",
        f"- rows: {rows}; format: {options.fmt}; data: {where}",
        "- filters: " + (", ".join(filters) or "none"),
        f"- view: {view}",
    ]


def _table(rows: list[dict[str, Any]]) -> str:
    head = (
        "| agent | games | W-D-L | win rate | mean reward | invalid | fallbacks "
        "| harness errors (95% CI) | forfeits (95% CI) | flag |"
    )
    lines = [head, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        lines.append(
            f"| {_cell(r['agent'])} | {r['games']} | {r['wins']}-{r['draws']}-{r['losses']} | "
            f"{r['win_rate']:.3f} | {r['mean_reward']:+.3f} | {r['invalid']} | {r['fallbacks']} "
            f"| {_share(r['harness_error'])} | {_share(r['forfeit'])} | {_cell(r['flag'] or '')} |"
        )
    return "\n".join(lines)


def _share(doc: dict[str, Any] | None) -> str:
    if not doc or doc.get("share") is None:
        return "unknown"
    return f"{doc['share']:.1%} [{doc['low']:.1%}, {doc['high']:.1%}]"


def _health_note(data: dict[str, Any]) -> list[str]:
    flagged = [r["agent"] for r in data["leaderboard"] if r["flag"]]
    unknown = [r["agent"] for r in data["leaderboard"] if r["health_unknown_matches"]]
    lines = [
        "Harness errors: the share of an entry's decisions with a refused answer (unparseable, "
        "illegal, an error or a timeout); forfeits: the share of its matches it forfeited. "
        f"An entry past {data['harness_error_threshold']:.0%} in either is flagged: its results "
        "were partly decided by the harness."
    ]
    if flagged:
        lines.append(f"Flagged: {', '.join(_cell(a) for a in flagged)}.")
    if unknown:
        lines.append(f"Health unknown (recorded before it was kept) for part of: "
                     f"{', '.join(_cell(a) for a in unknown)}.")  # fmt: skip
    return [" ".join(lines), ""]


def _condition_lines(cond: dict[str, Any]) -> list[str]:
    """The fingerprint of each season (one season: one board) and what differs."""
    seasons = cond["seasons"]
    lines = []
    if len(seasons) > 1:
        lines += [f"The matches were played under {len(seasons)} different conditions "
                  "(seasons): rate them apart (`arena leaderboard` prints a board per season).",
                  ""]  # fmt: skip
    for s in seasons:
        c = s["conditions"]
        said = ", ".join(f"{k}={c[k]}" for k in _SAID if k in c)
        entries = ", ".join(f"{_cell(e)} `{h}`" for e, h in s["entries"].items())
        lines.append(f"- season {s['season']} of {len(seasons)} ({s['matches']} matches): "
                     f"fingerprint `{s['shared']}`; {_cell(said)}; entries: {entries}")  # fmt: skip
        lines += [f"  - differs from season 1: {_cell(d)}" for d in s["differs"]]
    if cond["unknown_matches"]:
        lines.append(f"- {cond['unknown_matches']} matches recorded before conditions were "
                     "kept: conditions unknown")  # fmt: skip
    return lines or ["- no match recorded"]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


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
