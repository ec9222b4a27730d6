"""Harness health beside every rating: how often an entry's answers went wrong.

A rating says how well an entry played; it cannot say whether the entry played at all. An
entry whose answers were refused, re-asked, replaced by a fallback or cut off by the time limit
was partly played by the harness, and a match it forfeited was decided by the harness. So every
board carries, per rated key (an entry, or ``entry@role``, ``game/entry`` with ``--by``):

- ``refused``: the share of its decisions with at least one refused answer (unparseable,
  illegal, an agent error or a timeout): the **harness-error rate**;
- ``reasked``: the share of decisions on which it was asked again;
- ``fallback``: the share of decisions settled by the fallback policy, not by the entry;
- ``timeout``: the share of decisions with an answer past the time limit;
- ``forfeit``: the share of its matches it forfeited.

Each share comes with a 95% Wilson interval. Wilson treats the decisions as independent; an
entry that goes wrong in streaks (a broken match) has a wider true interval than printed.

An entry is **flagged** when its harness-error rate or its forfeit share passes the threshold
(default 5%); ``--strict`` refuses to print a board with a flagged entry. A second fit that
leaves out the matches a fallback or a forfeit touched (:func:`harness_decided`) is shown
beside the main one, and an entry whose rank intervals in the two fits do not overlap is
flagged too (:func:`compare_fits`). Runs recorded before the counts were kept read as health
``unknown`` (never as clean).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

from arena import stats as st
from arena.results import MatchResult, SeatResult

KeyFn = Callable[[MatchResult, SeatResult], str]
DEFAULT_THRESHOLD = 0.05
SHARES = ("refused", "reasked", "fallback", "timeout", "forfeit")


def harness_decided(result: MatchResult) -> bool:
    """Whether a fallback or a forfeit touched the match (left out of the clean fit)."""
    return result.status == "forfeited" or any(s.fallbacks > 0 for s in result.seats)


def _share(k: int, n: int) -> dict[str, Any]:
    if n == 0:
        return {"share": None, "low": None, "high": None, "count": 0, "of": 0}
    lo, hi = st.wilson(k, n)
    return {
        "share": round(k / n, 4),
        "low": round(lo, 4),
        "high": round(hi, 4),
        "count": k,
        "of": n,
    }


def _counts() -> dict[str, int]:
    return dict.fromkeys(("decisions", "matches", "unknown", *SHARES), 0)


def seat_counts(seat: SeatResult) -> dict[str, int]:
    """One seat's contribution to its key's counts (sums: a live fold adds and removes them)."""
    c = _counts()
    c["matches"] = 1
    if seat.decisions is None:  # recorded before health was kept
        c["unknown"] = 1
        return c
    c["decisions"] = seat.decisions
    c["refused"] = seat.refused or 0
    c["reasked"] = seat.reasked or 0
    c["timeout"] = seat.timeouts or 0
    c["fallback"] = seat.fallbacks
    c["forfeit"] = int(bool(seat.forfeited))
    return c


def match_counts(result: MatchResult, keyfn: KeyFn) -> dict[str, dict[str, int]]:
    """Per rated key, its counts in one match: the decisions of all the seats it held summed,
    the match counted once, and forfeited when any of its seats forfeited (the forfeit share is
    a share of matches, whatever number of seats an entry holds in one)."""
    out: dict[str, dict[str, int]] = {}
    for seat in result.seats:
        key, part = keyfn(result, seat), seat_counts(seat)
        total = out.get(key)
        if total is None:
            out[key] = part
            continue
        add_counts(total, part)
        for once in ("matches", "unknown", "forfeit"):
            total[once] = min(total[once], 1)
    return out


def add_counts(total: dict[str, int], part: dict[str, int], sign: int = 1) -> None:
    for k, v in part.items():
        total[k] = total.get(k, 0) + sign * v


def health_doc(c: dict[str, int], threshold: float = DEFAULT_THRESHOLD) -> dict[str, Any]:
    """The shares of summed counts, with their Wilson intervals and the flag."""
    c = {**_counts(), **c}
    known = c["matches"] - c["unknown"]
    doc: dict[str, Any] = {
        "decisions": c["decisions"],
        "matches": c["matches"],
        "unknown_matches": c["unknown"],
        **{s: _share(c[s], c["decisions"]) for s in SHARES if s != "forfeit"},
        "forfeit": _share(c["forfeit"], known),
    }
    doc["flag"] = health_flag(doc, threshold)
    return doc


def entry_health(
    results: list[MatchResult], keyfn: KeyFn, threshold: float = DEFAULT_THRESHOLD
) -> dict[str, dict[str, Any]]:
    """Per rated key: each share with its Wilson interval, and the flag (None when clean).

    A key with several seats in one match counts each seat's decisions, and the match once
    (:func:`match_counts`)."""
    counts: dict[str, dict[str, int]] = defaultdict(_counts)
    for r in results:
        if r.status == "errored":  # not rated, and the harness broke, not the entry
            continue
        for key, part in match_counts(r, keyfn).items():
            add_counts(counts[key], part)
    return {key: health_doc(c, threshold) for key, c in sorted(counts.items())}


def health_flag(doc: dict[str, Any], threshold: float) -> str | None:
    """Why an entry's health is flagged, or None."""
    if doc["matches"] and doc["unknown_matches"] == doc["matches"]:
        return None  # unknown is said as such, not flagged
    why = []
    for name, label in (("refused", "answers refused"), ("forfeit", "matches forfeited")):
        share = doc[name]["share"]
        if share is not None and share > threshold:
            why.append(f"{label} {share:.1%} > {threshold:.0%}")
    return "; ".join(why) or None


def strict_problems(health: dict[str, dict[str, Any]], threshold: float) -> list[str]:
    """One line per entry whose harness-error rate or forfeit share passes ``threshold``."""
    out = []
    for key, doc in health.items():
        flag = health_flag(doc, threshold)
        if flag is not None:
            r = doc["refused"]
            out.append(
                f"{key}: {flag} ({r['count']} of {r['of']} decisions refused, "
                f"95% CI [{r['low']:.1%}, {r['high']:.1%}])"
            )
    return out


def compare_fits(main: list[dict[str, Any]], clean: list[dict[str, Any]]) -> dict[str, Any]:
    """Per key: its clean-fit rank and interval, and a flag when the two rank intervals do not
    overlap (the harness, not the play, may have set the main rank)."""
    by_key = {r["agent"]: r for r in clean}
    out: dict[str, Any] = {}
    for row in main:
        other = by_key.get(row["agent"])
        if row.get("anchor"):  # a fixed anchor is ranked in neither fit
            out[row["agent"]] = {"rank": None, "rank_low": None, "rank_high": None, "flag": None}
            continue
        if other is None:
            out[row["agent"]] = {"rank": None, "rank_low": None, "rank_high": None,
                                 "flag": "not rated without harness-decided matches"}  # fmt: skip
            continue
        lo, hi = _interval(row)
        lo2, hi2 = _interval(other)
        apart = hi < lo2 or hi2 < lo
        out[row["agent"]] = {
            "rank": other.get("rank"),
            "rank_low": other.get("rank_low"),
            "rank_high": other.get("rank_high"),
            "mu": other.get("mu"),
            "flag": (
                f"rank [{lo}, {hi}] in the main fit, [{lo2}, {hi2}] without harness-decided matches"
            )
            if apart
            else None,
        }
    return out


def _interval(row: dict[str, Any]) -> tuple[int, int]:
    rank = int(row.get("rank") or 0)
    lo, hi = row.get("rank_low"), row.get("rank_high")
    return (int(lo), int(hi)) if lo is not None and hi is not None else (rank, rank)
