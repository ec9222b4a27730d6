"""Which pairs of entries met: the coverage of a plan, or of a run's results.

Every format ranks all its entries on one board, but not every format seats every pair of
entries together: a gauntlet never seats two baselines together, explicit lineups seat only what
they name, rating-driven matchmaking picks its pairs as it goes. The order of two entries that
never met rests only on their common opponents, so the plan (``arena run --check``) and the
leaderboard say which pairs never met. Pure functions: no engine, no store.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from arena.ratings.batch import team_ranks
from arena.ratings.tallies import head_to_head_cells
from arena.results import MatchResult

Pair = tuple[str, str]

# Never-met pairs named in one line at most; the rest are counted.
SHOWN = 10


@dataclass(frozen=True)
class Coverage:
    """``counts`` holds every unordered pair of ``entries`` (in entry order) with the number of
    tables (matches) that seated both; 0 for a pair that never met."""

    entries: tuple[str, ...]
    counts: dict[Pair, int]

    @property
    def pairs(self) -> int:
        return len(self.counts)

    @property
    def met(self) -> int:
        return sum(1 for c in self.counts.values() if c > 0)

    @property
    def never(self) -> list[Pair]:
        return [p for p, c in self.counts.items() if c == 0]

    @property
    def complete(self) -> bool:
        return self.met == self.pairs

    def as_dict(self, tense: str = "past") -> dict[str, Any]:
        """Plain data (a leaderboard's JSON), with its one-line ``summary``."""
        met = [c for c in self.counts.values() if c > 0]
        return {
            "summary": summary(self, tense),
            "entries": list(self.entries),
            "pairs": self.pairs,
            "met": self.met,
            "never": [list(p) for p in self.never],
            "fewest": min(met, default=0),
            "most": max(met, default=0),
        }


def pair_coverage(entries: Sequence[str], tables: Iterable[Iterable[str]]) -> Coverage:
    """How often each pair of ``entries`` shared a table. ``tables`` are the entries seated at
    each match (repeats of an entry allowed); names not in ``entries`` are added after them."""
    order = list(dict.fromkeys(entries))
    seated = [list(dict.fromkeys(t)) for t in tables]
    known = set(order)
    order += sorted({e for t in seated for e in t} - known)
    rank = {e: i for i, e in enumerate(order)}
    counts: dict[Pair, int] = dict.fromkeys(combinations(order, 2), 0)
    for table in seated:
        for pair in combinations(sorted(table, key=rank.__getitem__), 2):
            counts[pair] += 1
    return Coverage(tuple(order), counts)


def summary(cov: Coverage, tense: str = "past") -> str:
    """One line: 'all 6 pairs met, 8 times each', 'all 3 pairs met, 2 to 40 times each',
    'the one pair met 40 times' or '4 of 6 pairs met; never met: a vs b, c vs d' (at most ``SHOWN``
    pairs named). ``tense``: "past" (results) or "plan" (meets / meet)."""
    one, many = ("meets", "meet") if tense == "plan" else ("met", "met")
    if cov.pairs == 0:
        return "a single entry: no pairs"
    counts = sorted({c for c in cov.counts.values() if c > 0})
    if cov.complete:
        times = _times(counts[0]) if len(counts) == 1 else f"{counts[0]} to {counts[-1]} times"
        if cov.pairs == 1:
            return f"the one pair {one} {times}"
        return f"all {cov.pairs} pairs {many}, {times} each"
    never = cov.never
    named = ", ".join(f"{a} vs {b}" for a, b in never[:SHOWN])
    if len(never) > SHOWN:
        named += f" and {len(never) - SHOWN} more"
    verb = one if cov.pairs == 1 else many
    return f"{cov.met} of {cov.pairs} pair{'s' * (cov.pairs > 1)} {verb}; never {many}: {named}"


def _times(n: int) -> str:
    return "once" if n == 1 else f"{n} times"


def results_coverage(
    results: list[MatchResult], cells: dict[tuple[str, str], list[Any]] | None = None
) -> dict[str, Any]:
    """Which pairs of entries shared a rated match (``tables``) and which met head to head
    (``head_to_head``: the cross-table's cells, ``cells`` when already computed), over every
    entry seated in ``results``."""
    if cells is None:
        cells = head_to_head_cells(results)
    entries = sorted({s.agent for r in results for s in r.seats})
    rated = [[s.agent for s in r.seats] for r in results if team_ranks(r) is not None]
    games = [pair for pair, played in cells.items() for _ in played]
    return {
        "tables": pair_coverage(entries, rated).as_dict(),
        "head_to_head": pair_coverage(entries, games).as_dict(),
    }
