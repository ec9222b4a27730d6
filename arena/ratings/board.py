"""The published board: the rating report with harness health, the clean fit, the spread
across repeats and the conditions it was played under, one board per season.

:func:`arena.ratings.report` fits the results it is given. This module decides *which* results
share a board (:mod:`arena.ratings.seasons`) and adds what a reader needs to trust it:

- ``health`` per row (:mod:`arena.ratings.health`): shares of refused, re-asked, fallback and
  timed-out decisions and of forfeited matches, with Wilson intervals and a flag;
- ``clean`` per row: the rank from a second fit that leaves out every match a fallback or a
  forfeit touched, flagged when the two rank intervals do not overlap;
- ``repeat_mu`` per row with ``repeats: R``: the entry's μ in each repeat (spread beside RSE);
- ``conditions``: what the board's matches were played under (or that it is unknown).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from arena.ratings import health as hl
from arena.ratings import seasons as ss
from arena.ratings.leaderboard import KEYS, By, leaderboard, report
from arena.results import MatchResult


class PoolRefused(ValueError):
    """``--pool strict`` and the results were played under different conditions."""


def _repeat_spread(results: list[MatchResult], by: By, freeze: list[str]) -> dict[str, Any]:
    repeats = sorted({r.repeat for r in results})
    if len(repeats) < 2:
        return {}
    mus: dict[str, list[float]] = {}
    for rep in repeats:
        for row in leaderboard([r for r in results if r.repeat == rep], by, freeze=freeze):
            if row.games:
                mus.setdefault(row.agent, []).append(row.mu)
    return {
        agent: {
            "per_repeat": vals,
            "min": min(vals),
            "max": max(vals),
            "spread": round(max(vals) - min(vals), 3),
        }
        for agent, vals in mus.items()
    }


def one_board(
    results: list[MatchResult],
    by: By = "agent",
    seed: int = 0,
    bootstrap: int = 2000,
    freeze: Iterable[str] = (),
    threshold: float = hl.DEFAULT_THRESHOLD,
) -> dict[str, Any]:
    """The report of ``results`` (one season) with health, the clean fit and repeat spread."""
    frozen = list(freeze)
    doc = report(results, by, seed=seed, bootstrap=bootstrap, freeze=frozen)
    health = hl.entry_health(results, KEYS[by], threshold)
    clean = [r for r in results if not hl.harness_decided(r)]
    left_out = sum(1 for r in results if r.status != "errored") - sum(
        1 for r in clean if r.status != "errored"
    )
    if left_out:
        rows = leaderboard(clean, by, detail=True, seed=seed, bootstrap=bootstrap, freeze=frozen)
        compared = hl.compare_fits(doc["rows"], [r.model_dump() for r in rows])
    else:  # nothing to leave out: the clean fit is the main fit
        compared = hl.compare_fits(doc["rows"], doc["rows"])
    spread = _repeat_spread(results, by, frozen)
    for row in doc["rows"]:
        agent = row["agent"]
        row["health"] = health.get(agent)
        row["clean"] = compared.get(agent)
        row["repeat_mu"] = spread.get(agent)
        row["flags"] = [
            f for f in ((row["health"] or {}).get("flag"), (row["clean"] or {}).get("flag")) if f
        ]
    doc["health"] = {
        "threshold": threshold,
        "flagged": [r["agent"] for r in doc["rows"] if r["flags"]],
        "unknown": sorted(a for a, h in health.items() if h["unknown_matches"]),
    }
    doc["clean_fit"] = {"left_out": left_out, "matches": len(clean)}
    return doc


def boards(
    results: list[MatchResult],
    by: By = "agent",
    seed: int = 0,
    bootstrap: int = 2000,
    freeze: Iterable[str] = (),
    threshold: float = hl.DEFAULT_THRESHOLD,
    pool: str = "seasons",
) -> list[dict[str, Any]]:
    """One board per season of identical conditions (``pool="strict"``: one, or refuse).

    Each board carries ``season``: its number, match count, the conditions and, from the
    second on, what differs from the first."""
    found = ss.seasons(results, per_game=by == "game")
    if pool == "strict" and len(found) > 1:
        lines = [f"season {i + 1}: {'; '.join(ss.differences(found[0], s))}"
                 for i, s in enumerate(found[1:], 1)]  # fmt: skip
        raise PoolRefused(
            f"the results were played under {len(found)} different conditions; "
            "refusing to pool them (--pool strict):\n  " + "\n  ".join(lines)
        )
    out = []
    for i, season in enumerate(found):
        doc = one_board(season.results, by, seed, bootstrap, freeze, threshold)
        doc["season"] = {
            "number": i + 1,
            "of": len(found),
            "matches": len(season.results),
            "known": season.shared != ss.UNKNOWN,
            "conditions": ss.describe(season),
            "differs": ss.differences(found[0], season) if i else [],
        }
        out.append(doc)
    return out
