"""What the dataset card says about the run's board: per agent entry its record and harness
health, and the conditions (fingerprint and seasons) its matches were played under.

Both are SQL aggregates over the stored seats and conditions, so the card costs no memory per
match. Health is :mod:`arena.ratings.health`'s (the shares of refused, re-asked, fallback and
timed-out decisions and of forfeited matches, each with a 95% Wilson interval, flagged past the
run's ``ratings.max_harness_error``); seasons are :mod:`arena.ratings.seasons`' (matches
pooled only when their conditions agree). A run written before health or conditions were kept
reads as ``unknown``, never as clean.
"""

from __future__ import annotations

import json
from typing import Any

from arena.ratings import health as hl
from arena.ratings import seasons as ss
from arena.results import MatchResult
from arena.store import Store

# Per seat: known health counts only where a seat_health row exists (a run written before
# health was kept has none); errored matches are the harness's failure, not the entry's.
_HEALTH_SQL = """
SELECT s.agent,
  SUM(m.status != 'errored' AND h.match_id IS NOT NULL),
  SUM(m.status != 'errored' AND h.match_id IS NULL),
  SUM(CASE WHEN m.status != 'errored' THEN h.decisions END),
  SUM(CASE WHEN m.status != 'errored' THEN h.refused END),
  SUM(CASE WHEN m.status != 'errored' THEN h.reasked END),
  SUM(CASE WHEN m.status != 'errored' AND h.match_id IS NOT NULL THEN s.fallbacks END),
  SUM(CASE WHEN m.status != 'errored' THEN h.timeouts END),
  SUM(CASE WHEN m.status != 'errored' THEN h.forfeited END)
FROM seats s JOIN matches m ON m.match_id = s.match_id
LEFT JOIN seat_health h ON h.match_id = s.match_id AND h.seat = s.seat
GROUP BY s.agent
"""
_COUNTS = ("decisions", "refused", "reasked", "fallback", "timeout", "forfeit")


def threshold_of(config: dict[str, Any]) -> float:
    """The run's harness-error threshold (``ratings.max_harness_error``), else the default."""
    ratings = config.get("ratings") or {}
    value = ratings.get("max_harness_error") if isinstance(ratings, dict) else None
    return float(value) if value is not None else hl.DEFAULT_THRESHOLD


def entry_health(store: Store, threshold: float) -> dict[str, dict[str, Any]]:
    """Per agent entry: :func:`arena.ratings.health.health_doc` from the stored counts."""
    if not _has(store, "seat_health"):  # written before health was kept: all unknown
        rows = store.db.execute(
            "SELECT s.agent, COUNT(*) FROM seats s JOIN matches m ON m.match_id = s.match_id"
            " WHERE m.status != 'errored' GROUP BY s.agent"
        )
        return {a: hl.health_doc({"matches": n, "unknown": n}, threshold) for a, n in rows}
    out = {}
    for agent, known, unknown, *counts in store.db.execute(_HEALTH_SQL):
        c = {"matches": (known or 0) + (unknown or 0), "unknown": unknown or 0}
        c.update({k: int(v or 0) for k, v in zip(_COUNTS, counts, strict=True)})
        out[agent] = hl.health_doc(c, threshold)
    return out


def conditions(store: Store) -> dict[str, Any]:
    """The run's seasons: per season its match count, the match-wide fingerprint (``shared``),
    each entry's fingerprint and the conditions in ``path: value`` form; later seasons say
    what differs from the first. One season is one board."""
    unknown = _count_unknown(store)
    blobs: list[tuple[dict[str, Any], int]] = []
    if _has(store, "conditions"):
        rows = store.db.execute(
            "SELECT c.data, COUNT(*), MIN(m.idx) FROM conditions c"
            " JOIN matches m ON m.match_id = c.match_id"
            " GROUP BY c.data ORDER BY MIN(m.idx), c.data"
        )
        blobs = [(json.loads(data), n) for data, n, _ in rows]
    # one stand-in result per distinct fingerprint: seasons group them as they group matches
    stand_ins = [_stand_in(i, data) for i, (data, _) in enumerate(blobs)]
    weight = {id(r): n for r, (_, n) in zip(stand_ins, blobs, strict=True)}
    found = ss.seasons(stand_ins)
    out = []
    for i, season in enumerate(found):
        out.append({
            "season": i + 1,
            "matches": sum(weight[id(r)] for r in season.results),
            "shared": season.shared,
            "entries": {e.lstrip("/"): h for e, h in sorted(season.entries.items())},
            "conditions": ss.describe(season),
            "differs": ss.differences(found[0], season) if i else [],
        })  # fmt: skip
    return {"seasons": out, "unknown_matches": unknown}


def _stand_in(i: int, data: dict[str, Any]) -> MatchResult:
    return MatchResult(
        match_id=f"c{i}", game=str(data.get("game", "")), seed=0, index=i,
        status="finished", outcome="", conditions=data,
    )  # fmt: skip


def _count_unknown(store: Store) -> int:
    """Done matches without recorded conditions (the run predates them)."""
    join = (
        " LEFT JOIN conditions c ON c.match_id = m.match_id WHERE c.match_id IS NULL AND"
        if _has(store, "conditions")
        else " WHERE"
    )
    row = store.db.execute(
        f"SELECT COUNT(*) FROM matches m{join} m.status IN ('finished', 'forfeited', 'errored')"
    ).fetchone()
    return int(row[0])


def _has(store: Store, table: str) -> bool:
    row = store.db.execute(
        "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", (table,)
    ).fetchone()
    return row is not None
