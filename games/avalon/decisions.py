"""Decisions per phase (spec avalon.md §7): what a seat must answer and its legal options."""

from __future__ import annotations

from typing import Any

from arena.types import Decision, Option
from games.avalon.config import fails_needed, team_size


class AvalonDecisions:
    """Mixed into AvalonEngine: ``decision(seat)`` for the current phase."""

    def decision(self: Any, seat: int) -> Decision:
        if self.is_over() or seat not in self.pending():
            raise KeyError(seat)
        p, n, nm = self.phase, self.n_seats, self._names
        meta = {"quest": self.quest, "attempt": self.attempt, "leader": self.leader}
        seats = [Option(id=str(s), label=nm[s]) for s in range(n)]
        if p in ("discuss_pre", "discuss_post", "confer"):
            where = "to the evil team only" if p == "confer" else "to everyone"
            return Decision(
                kind="confer" if p == "confer" else "discuss",
                prompt=f"Speak {where} (or pass).",
                options=[Option(id="pass")],
                free_text=True,
                silent_option="pass",
                max_chars=self.rules.max_message_chars,
                meta=meta,
            )
        if p == "propose":
            k = team_size(n, self.quest)
            return Decision(
                kind="propose",
                prompt=f"You lead quest {self.quest} (proposal {self.attempt}/5): "
                f"choose exactly {k} players (you may include yourself).",
                options=seats,
                min_choices=k,
                max_choices=k,
                meta={**meta, "team_size": k},
            )
        if p == "vote":
            return Decision(
                kind="vote",
                prompt=f"Vote on the team {[nm[s] for s in self.team]} for quest {self.quest}.",
                options=[Option(id="approve"), Option(id="reject")],
                simultaneous=True,
                meta={**meta, "team": list(self.team)},
            )
        if p == "quest":
            good_only = self.rules.good_must_succeed and self.side[seat] == "good"
            cards = ["success"] if good_only else ["success", "fail"]
            return Decision(
                kind="quest",
                prompt=f"Play a card on quest {self.quest}.",
                options=[Option(id=c) for c in cards],
                simultaneous=True,
                meta={**meta, "team": list(self.team), "fails_needed": fails_needed(n, self.quest)},
            )
        if p == "lady":
            opts = [seats[s] for s in range(n) if s not in self.lady_held]
            return Decision(
                kind="lady",
                prompt="Lady of the Lake: choose a player whose side you will learn.",
                options=opts,
                meta=meta,
            )
        if p == "assassinate":
            return Decision(
                kind="assassinate",
                prompt="Name the player you believe is Merlin.",
                options=[o for o in seats if o.id != str(seat)],
                meta=meta,
            )
        if p == "belief":
            return Decision(
                kind="belief",
                prompt='Report P(good) for every other player: {"belief": {"<seat>": p, ...}}'
                + (
                    ' ; evil may add "merlin:<seat>": P(Merlin)'
                    if self.side[seat] == "evil"
                    else ""
                )
                + ' (or "skip").',
                options=[Option(id="skip")],
                silent_option="skip",
                simultaneous=True,
                belief_only=True,
                meta={**meta, "checkpoint": self.checkpoint},
            )
        raise KeyError(seat)
