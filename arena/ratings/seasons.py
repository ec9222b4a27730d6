"""Seasons: the results that may share one board, because they were played under the same
conditions.

Each match records the fingerprint of its conditions (``MatchResult.conditions``: the
match-wide ``shared`` hash of game, rules, rules version, policy and metric thresholds, and an
``entries`` hash per agent entry of its kind, params, model, decoding and prompt templates).
Two matches may be pooled when their ``shared`` hashes agree and no entry they both seat has
two different hashes. Matches are taken in the order given (run by run, plan order) and each
joins the first season it agrees with, else opens a new one. Matches recorded before
conditions were kept form a season of their own, said to be of unknown conditions.

One season is one board. Several seasons are several boards, each saying what differs from the
first (:func:`differences`); ``--pool strict`` refuses instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from arena.results import MatchResult

UNKNOWN = "unknown"


@dataclass
class Season:
    shared: str  # the first match's shared hash, or "unknown"
    per_game: bool = False  # entries are compared within a game only (``--by game``)
    games: dict[str, str] = field(default_factory=dict)  # scope -> its shared hash
    entries: dict[str, str] = field(default_factory=dict)  # scoped entry -> its hash
    results: list[MatchResult] = field(default_factory=list)
    example: dict[str, Any] | None = None  # the first match's full conditions
    entry_detail: dict[str, Any] = field(default_factory=dict)  # entry -> its conditions

    def _scope(self, result: MatchResult) -> str:
        return result.game if self.per_game else ""

    def admits(self, result: MatchResult) -> bool:
        conditions = result.conditions
        if conditions is None or self.shared == UNKNOWN:
            return conditions is None and self.shared == UNKNOWN
        scope = self._scope(result)
        if self.games.get(scope, conditions.get("shared")) != conditions.get("shared"):
            return False
        mine = conditions.get("entries", {})
        return all(self.entries.get(f"{scope}/{e}", h) == h for e, h in mine.items())

    def add(self, result: MatchResult) -> None:
        self.results.append(result)
        c = result.conditions
        if c is None:
            return
        scope = self._scope(result)
        self.games.setdefault(scope, str(c.get("shared")))
        self.entries.update({f"{scope}/{e}": h for e, h in c.get("entries", {}).items()})
        for name, detail in c.get("entry", {}).items():
            self.entry_detail.setdefault(name, detail)


def seasons(results: list[MatchResult], per_game: bool = False) -> list[Season]:
    """The results split into seasons of identical conditions, in order of first appearance.

    ``per_game``: the board rates each game apart (``--by game``), so only matches of the same
    game must agree; different games share a board as before."""
    out: list[Season] = []
    for r in results:
        found = next((s for s in out if s.admits(r)), None)
        if found is None:
            shared = UNKNOWN if r.conditions is None else str(r.conditions.get("shared"))
            found = Season(shared=shared, per_game=per_game, example=r.conditions)
            out.append(found)
        found.add(r)
    return out


def _flat(prefix: str, value: Any) -> dict[str, Any]:
    if isinstance(value, dict) and value:
        out: dict[str, Any] = {}
        for k, v in value.items():
            out.update(_flat(f"{prefix}.{k}" if prefix else str(k), v))
        return out
    return {prefix: value}


def describe(season: Season) -> dict[str, Any]:
    """A season's conditions as flat ``path: value`` pairs (what the board prints)."""
    if season.example is None:
        return {}
    keep = {k: v for k, v in season.example.items() if k not in ("entries", "entry", "shared")}
    return {**_flat("", keep), **_flat("entry", season.entry_detail)}


def differences(first: Season, other: Season) -> list[str]:
    """What differs in ``other`` from ``first``: one ``path: a -> b`` line each."""
    if other.shared == UNKNOWN or first.shared == UNKNOWN:
        return ["conditions unknown (recorded before runs kept them)"]
    a, b = describe(first), describe(other)
    lines = []
    for path in sorted(set(a) | set(b)):
        if path.startswith("entry.") and path.split(".")[1] not in (
            first.entry_detail.keys() & other.entry_detail.keys()
        ):
            continue  # an entry only one season seats is not a difference of conditions
        if a.get(path) != b.get(path):
            lines.append(f"{path}: {_short(a.get(path))} -> {_short(b.get(path))}")
    return lines or ["an entry's conditions differ between runs"]


def _short(value: Any) -> str:
    text = "-" if value is None else str(value)
    return text if len(text) <= 40 else text[:37] + "..."
