"""Printing a board's harness health, clean fit, repeat spread and season (the leaderboard's
trust columns): a Rich table, CSV columns and short lines for the end-of-run summary."""

from __future__ import annotations

import csv
import io
from typing import Any

from rich.table import Table

from arena.untrusted import printable

SHARE_COLUMNS = (
    ("refused", "refused"),
    ("reasked", "re-asked"),
    ("fallback", "fallback"),
    ("timeout", "timed out"),
    ("forfeit", "forfeited"),
)


def share_text(s: dict[str, Any] | None, interval: bool = True) -> str:
    if not s or s.get("share") is None:
        return "-"
    text = f"{s['share']:.1%}"
    return f"{text} [{s['low']:.1%}, {s['high']:.1%}]" if interval else text


def _clean_text(c: dict[str, Any] | None) -> str:
    if not c or c.get("rank") is None:
        return "-"
    lo, hi = c.get("rank_low"), c.get("rank_high")
    return f"{c['rank']} [{lo}, {hi}]" if lo is not None else str(c["rank"])


def render_health(doc: dict[str, Any]) -> Table:
    """A row per rated key: decisions, each share with its 95% Wilson interval, the clean-fit
    rank and the flags."""
    h = doc.get("health") or {}
    cf = doc.get("clean_fit") or {}
    title = (
        "Harness health: shares of decisions refused (the harness-error rate), re-asked, "
        "settled by a fallback, timed out, and of matches forfeited [95% Wilson CI]; clean fit: "
        f"rank without the {cf.get('left_out', 0)} matches a fallback or forfeit touched; "
        f"flagged above {h.get('threshold', 0.05):.0%}"
    )
    table = Table(title=title, title_justify="left")
    for col in ("agent", "decisions", *(label for _, label in SHARE_COLUMNS), "clean rank"):
        table.add_column(col, justify="left" if col == "agent" else "right")
    table.add_column("flags")
    for row in doc["rows"]:
        health = row.get("health") or {}
        unknown = health.get("unknown_matches")
        cells = [share_text(health.get(k)) for k, _ in SHARE_COLUMNS]
        decisions = str(health.get("decisions", "-"))
        if unknown:
            decisions += f" ({unknown} matches unknown)"
        flags = "; ".join(row.get("flags") or []) or ("unknown" if unknown else "ok")
        table.add_row(
            printable(row["agent"]),
            decisions,
            *cells,
            _clean_text(row.get("clean")),
            printable(flags),
        )
    return table


def render_repeats(doc: dict[str, Any]) -> Table | None:
    rows = [r for r in doc["rows"] if r.get("repeat_mu")]
    if not rows:
        return None
    table = Table(
        title=f"Across {doc['repeats']} repeats: μ per repeat, its spread (max − min) and RSE % "
        "of the win rate",
        title_justify="left",
    )
    for col in ("agent", "μ per repeat", "spread", "RSE %"):
        table.add_column(col, justify="left" if col == "agent" else "right")
    for r in rows:
        rep = r["repeat_mu"]
        table.add_row(
            printable(r["agent"]),
            " ".join(f"{m:.2f}" for m in rep["per_repeat"]),
            f"{rep['spread']:.2f}",
            "-" if r.get("rse") is None else f"{r['rse']:.1f}",
        )
    return table


def season_lines(doc: dict[str, Any]) -> list[str]:
    """The board's season: its conditions in one line, and what differs from season 1."""
    s = doc.get("season")
    if not s:
        return []
    head = f"season {s['number']} of {s['of']} ({s['matches']} matches)"
    if not s["known"]:
        return [f"{head}: conditions unknown (recorded before runs kept them)"]
    c = s["conditions"]
    keys = ("game", "rules_version", "policy.fallback", "policy.retries", "metrics.version")
    said = ", ".join(f"{k}={c[k]}" for k in keys if k in c)
    prompts = sorted({v for k, v in c.items() if k.endswith(".prompt.hash")})
    if prompts:
        said += f", prompt hashes {', '.join(prompts)}"
    lines = [f"{head}: {said}"]
    lines += [f"  differs from season 1: {d}" for d in s["differs"]]
    return [printable(x) for x in lines]


def csv_fields(row: dict[str, Any]) -> dict[str, Any]:
    """The trust columns of one row, flat, for ``--csv``."""
    out: dict[str, Any] = {}
    health = row.get("health") or {}
    out["health_decisions"] = health.get("decisions")
    out["health_unknown_matches"] = health.get("unknown_matches")
    for k, _ in SHARE_COLUMNS:
        s = health.get(k) or {}
        out[f"{k}_share"], out[f"{k}_low"], out[f"{k}_high"] = (
            s.get("share"),
            s.get("low"),
            s.get("high"),
        )
    clean = row.get("clean") or {}
    for k in ("rank", "rank_low", "rank_high"):
        out[f"clean_{k}"] = clean.get(k)
    rep = row.get("repeat_mu") or {}
    out["repeat_mu_spread"] = rep.get("spread")
    out["flags"] = "; ".join(row.get("flags") or [])
    return out


def summary_lines(doc: dict[str, Any]) -> list[str]:
    """Short lines under the end-of-run board: flagged entries, or that none was."""
    h = doc.get("health") or {}
    lines = []
    for row in doc["rows"]:
        for flag in row.get("flags") or []:
            lines.append(f"  ! {row['agent']}: {flag}")
    if lines:
        return ["harness health: flagged entries (docs/leaderboards.md)", *map(printable, lines)]
    if h.get("unknown"):
        return ["harness health: unknown for runs recorded before it was kept"]
    return [
        f"harness health: no entry above {h.get('threshold', 0.05):.0%} refused answers or forfeits"
    ]


def strict_refusal(docs: list[dict[str, Any]]) -> str | None:
    """Why a strict board is refused (an entry's harness-error or forfeit share passes the
    threshold), or None."""
    from arena.ratings.health import strict_problems

    lines = []
    for doc in docs:
        health = {r["agent"]: r["health"] for r in doc["rows"] if r.get("health")}
        threshold = (doc.get("health") or {}).get("threshold", 0.05)
        lines += strict_problems(health, threshold)
    if not lines:
        return None
    return (
        "refusing to print the board (strict): the harness, not the entries, decided part of "
        "it:\n  " + "\n  ".join(lines) + "\n(docs/leaderboards.md; drop --strict to see it "
        "with the flags)"
    )


def health_settings(config: dict[str, Any], strict: bool) -> tuple[float, bool]:
    """The harness-error threshold and whether to refuse a flagged board (config or flag)."""
    ratings = config.get("ratings") or {}
    return float(ratings.get("max_harness_error", 0.05)), strict or bool(ratings.get("strict"))


def leaderboard_csv(docs: list[dict[str, Any]]) -> str:
    """Every season's rows as CSV (a ``season`` column when there are several)."""
    out = io.StringIO()
    nested = ("roles", "roles_ci", "health", "clean", "repeat_mu", "flags")
    rows = docs[0]["rows"]
    fields = [k for k in rows[0] if k not in nested] if rows else ["agent"]
    trust = list(csv_fields(rows[0]) if rows else {})
    season = ["season"] if len(docs) > 1 else []
    writer = csv.DictWriter(
        out, fieldnames=[*season, *fields, "roles", "roles_ci", *trust], lineterminator="\n"
    )
    writer.writeheader()
    for doc in docs:
        for row in doc["rows"]:
            roles = ";".join(f"{k}={v}" for k, v in sorted(row.get("roles", {}).items()))
            cis = ";".join(
                f"{k}={lo}..{hi}" for k, (lo, hi) in sorted(row.get("roles_ci", {}).items())
            )
            number = {"season": doc["season"]["number"]} if season else {}
            writer.writerow(
                {
                    **number,
                    **{k: row.get(k) for k in fields},
                    "roles": roles,
                    "roles_ci": cis,
                    **csv_fields(row),
                }
            )
    return out.getvalue()


def with_ci(value: Any, low: Any, high: Any, digits: int = 3) -> str:
    """A value and its 95% interval as the boards print them: ``0.512 [0.401, 0.620]``."""
    if value is None:
        return "-"
    text = f"{value:.{digits}f}" if isinstance(value, float) else str(value)
    if low is None or high is None:
        return text
    if isinstance(low, int) and isinstance(high, int):
        return f"{text} [{low}, {high}]"
    return f"{text} [{low:.{digits}f}, {high:.{digits}f}]"


def end_of_run_table(rows: list[Any], health: dict[str, dict[str, Any]]) -> Table:
    """The table ``arena run`` prints at the end: the batch fit's rows (``LeaderboardRow``,
    with their intervals) as ``arena leaderboard`` prints them, and each entry's shares of
    refused and fallback decisions and of forfeits."""
    table = Table(
        title="Leaderboard (batch Bradley–Terry fit over all results, factions as teams; "
        "sorted by μ; rank, μ and win rate with 95% CIs, bootstrap over matches; harness "
        "health: shares of decisions refused / settled by a fallback, of matches forfeited)",
        title_justify="left",
    )
    cols = ("rank [95% CI]", "agent", "μ [95% CI]", "games", "W-D-L", "win rate [95% CI]")
    for col in (*cols, "refused", "fallback", "forfeited", "flag"):
        table.add_column(col, justify="left" if col == "agent" else "right")
    for r in rows:
        h = health.get(r.agent) or {}
        unknown = bool(h.get("unknown_matches"))
        table.add_row(
            with_ci(r.rank, r.rank_low, r.rank_high),
            r.agent,
            with_ci(r.mu, r.mu_low, r.mu_high, 2),
            str(r.games),
            f"{r.wins}-{r.draws}-{r.losses}",
            f"{r.win_rate:.3f}"
            + (f" [{r.wr_low:.2f}, {r.wr_high:.2f}]" if r.wr_low is not None else ""),
            *(share_text(h.get(k), interval=False) for k in ("refused", "fallback", "forfeit")),
            "unknown" if unknown else ("!" if h.get("flag") else ""),
        )
    return table
