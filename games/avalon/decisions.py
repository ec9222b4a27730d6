"""Decisions per phase (spec avalon.md §7): what a seat must answer and its legal options."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from arena.types import Decision, Option
from games.avalon.config import fails_needed, team_size


class AvalonDecisions:
    """Mixed into AvalonEngine: ``decision(seat)`` for the current phase, built by the phase's
    entry in :data:`_BY_PHASE`."""

    def decision(self: Any, seat: int) -> Decision:
        if self.is_over() or seat not in self.pending():
            raise KeyError(seat)
        build = _BY_PHASE.get(self.phase)
        if build is None:
            raise KeyError(seat)
        meta = {"quest": self.quest, "attempt": self.attempt, "leader": self.leader}
        seats = [Option(id=str(s), label=self._names[s]) for s in range(self.n_seats)]
        result: Decision = build(self, seat, meta, seats)
        return result

    def _ask_talk(self: Any, seat: int, meta: dict[str, Any], seats: list[Option]) -> Decision:
        confer = self.phase == "confer"
        where = "to the evil team only" if confer else "to everyone"
        return Decision(
            kind="confer" if confer else "discuss",
            prompt=f"Speak {where} (or pass).",
            options=[Option(id="pass")],
            free_text=True,
            silent_option="pass",
            max_chars=self.rules.max_message_chars,
            meta=meta,
        )

    def _ask_propose(self: Any, seat: int, meta: dict[str, Any], seats: list[Option]) -> Decision:
        k = team_size(self.n_seats, self.quest)
        return Decision(
            kind="propose",
            prompt=f"You lead quest {self.quest} (proposal {self.attempt}/5): "
            f"choose exactly {k} players (you may include yourself).",
            options=seats,
            min_choices=k,
            max_choices=k,
            meta={**meta, "team_size": k},
        )

    def _ask_vote(self: Any, seat: int, meta: dict[str, Any], seats: list[Option]) -> Decision:
        return Decision(
            kind="vote",
            prompt=f"Vote on the team {[self._names[s] for s in self.team]} "
            f"for quest {self.quest}.",
            options=[Option(id="approve"), Option(id="reject")],
            simultaneous=True,
            meta={**meta, "team": list(self.team)},
        )

    def _ask_quest(self: Any, seat: int, meta: dict[str, Any], seats: list[Option]) -> Decision:
        good_only = self.rules.good_must_succeed and self.side[seat] == "good"
        cards = ["success"] if good_only else ["success", "fail"]
        needed = fails_needed(self.n_seats, self.quest)
        return Decision(
            kind="quest",
            prompt=f"Play a card on quest {self.quest}.",
            options=[Option(id=c) for c in cards],
            simultaneous=True,
            meta={**meta, "team": list(self.team), "fails_needed": needed},
        )

    def _ask_lady(self: Any, seat: int, meta: dict[str, Any], seats: list[Option]) -> Decision:
        return Decision(
            kind="lady",
            prompt="Lady of the Lake: choose a player whose side you will learn.",
            options=[seats[s] for s in range(self.n_seats) if s not in self.lady_held],
            meta=meta,
        )

    def _ask_assassinate(
        self: Any, seat: int, meta: dict[str, Any], seats: list[Option]
    ) -> Decision:
        return Decision(
            kind="assassinate",
            prompt="Name the player you believe is Merlin.",
            options=[o for o in seats if o.id != str(seat)],
            meta=meta,
        )

    def _ask_belief(self: Any, seat: int, meta: dict[str, Any], seats: list[Option]) -> Decision:
        merlin = ' ; evil may add "merlin:<seat>": P(Merlin)' if self.side[seat] == "evil" else ""
        return Decision(
            kind="belief",
            prompt='Report P(good) for every other player: {"belief": {"<seat>": p, ...}}'
            + merlin
            + ' (or "skip").',
            options=[Option(id="skip")],
            silent_option="skip",
            simultaneous=True,
            belief_only=True,
            meta={**meta, "checkpoint": self.checkpoint},
        )


_Build = Callable[[Any, int, dict[str, Any], list[Option]], Decision]
# Phase -> the builder of its decision; a phase not listed asks nothing.
_BY_PHASE: dict[str, _Build] = {
    "discuss_pre": AvalonDecisions._ask_talk,
    "discuss_post": AvalonDecisions._ask_talk,
    "confer": AvalonDecisions._ask_talk,
    "propose": AvalonDecisions._ask_propose,
    "vote": AvalonDecisions._ask_vote,
    "quest": AvalonDecisions._ask_quest,
    "lady": AvalonDecisions._ask_lady,
    "assassinate": AvalonDecisions._ask_assassinate,
    "belief": AvalonDecisions._ask_belief,
}
