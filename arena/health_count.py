"""One seat's harness health in one match, counted by the runner decision by decision.

A *decision* is one settled move of the seat: its answer applied, or a fallback. Each decision
is counted once, with the troubles it had on the way: an answer refused (unparseable, illegal,
an agent error or a timeout), a re-ask, a timeout, and whether a fallback settled it. The
counts land in the seat's :class:`arena.results.SeatResult`; the board reads their shares
(:mod:`arena.ratings.health`).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any


@dataclass
class HealthCount:
    decisions: int = 0
    refused: int = 0
    reasked: int = 0
    timeouts: int = 0
    fallbacks: int = 0
    forfeited: bool = False

    def add(self, troubles: Collection[str], fallback: bool, forfeited: bool) -> None:
        """Count one settled decision with its ``troubles`` (``refused``, ``reasked``,
        ``timeout``)."""
        self.decisions += 1
        self.refused += "refused" in troubles
        self.reasked += "reasked" in troubles
        self.timeouts += "timeout" in troubles
        self.fallbacks += fallback
        self.forfeited = self.forfeited or forfeited

    def fields(self) -> dict[str, Any]:
        """The :class:`~arena.results.SeatResult` fields (its ``fallbacks`` is the runner's)."""
        return {
            "decisions": self.decisions,
            "refused": self.refused,
            "reasked": self.reasked,
            "timeouts": self.timeouts,
            "forfeited": self.forfeited,
        }
