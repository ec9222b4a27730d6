"""Rules engine of ``arena/PieDivision-v0``: the multi-party pie division of negotiation.md §4.1.

Round r: the proposer (seat (s0 + r - 1) mod n) writes ``allocate: a0, a1, ...`` (one
non-negative integer per seat, summing to the pie) with an optional message on the next line;
then ``discussion_passes`` passes of messages by the other parties in seat order; then all but the
proposer vote accept/reject simultaneously (the proposer counts as accepting). Passed iff the
accepts reach the quota. Phases: ``propose``, ``discuss``, ``vote``.
"""

from __future__ import annotations

import re
from typing import Any

from arena.events import Visibility
from arena.types import Action, Decision, InvalidAction, PrivateFact
from games.negotiation.common import option_list, refuse_action_like_text
from games.negotiation.phases import (
    PRIVATE_HINT,
    Phase,
    PhasedEngine,
    YesNo,
    post_talk,
    talk_decision,
)
from games.negotiation.pie_rules import PieRules, PieScenario, sample_pie

_ALLOC = re.compile(
    r"^\s*allocat(?:e|ion)\s*[:=]?\s*\[?([-\d,;\s]*?)\]?\s*(?:\n|\||$)(.*)\Z", re.S | re.I
)


def parse_allocation(text: str, n: int, pie: int) -> tuple[tuple[int, ...], str | None]:
    """(allocation, message) from ``allocate: 40, 30, 30`` + optional message; else InvalidAction."""
    m = _ALLOC.match(text)
    if not m:
        raise InvalidAction(
            f'propose an allocation: "allocate: a0, ..., a{n - 1}" (one integer per seat, '
            f"summing to {pie}), optionally followed by a new line and a message"
        )
    parts = [p for p in re.split(r"[,;\s]+", m.group(1)) if p]
    try:
        alloc = tuple(int(p) for p in parts)
    except ValueError:
        raise InvalidAction(f"allocation {m.group(1)!r} is not a list of integers") from None
    if len(alloc) != n:
        raise InvalidAction(f"the allocation needs exactly {n} shares, got {len(alloc)}")
    if any(a < 0 for a in alloc):
        raise InvalidAction("shares cannot be negative")
    if sum(alloc) != pie:
        raise InvalidAction(f"the shares must sum to {pie}, got {sum(alloc)}")
    msg = m.group(2).strip()
    return alloc, msg or None


class Propose(Phase["PieDivisionEngine"]):
    """The round's proposer writes an allocation (or passes: the round is lost)."""

    def pending(self, game: PieDivisionEngine) -> list[int]:
        return [game.proposer()]

    def decision(self, game: PieDivisionEngine, seat: int) -> Decision:
        r = game.rules
        return Decision(
            kind="propose_allocation",
            prompt=game.round_head() + f'Write "allocate: a0, ..., a{r.n_parties - 1}" (shares '
            f"in seat order, summing to {r.pie}); a message may follow on the next line.",
            options=list(option_list(("pass",))),
            free_text=True,
            max_chars=r.max_message_chars + 100,
            silent_option="pass",
        )

    def apply(self, game: PieDivisionEngine, seat: int, action: Action) -> None:
        game.propose(seat, action)


class Discuss(Phase["PieDivisionEngine"]):
    """``discussion_passes`` passes of messages by the other parties, in seat order."""

    def pending(self, game: PieDivisionEngine) -> list[int]:
        return game.queue[:1]

    def decision(self, game: PieDivisionEngine, seat: int) -> Decision:
        r = game.rules
        hint = PRIVATE_HINT if r.allow_private else ""
        prompt = (
            game.round_head() + f"Comment on the proposal (plain text is public{hint}) or pass."
        )
        return talk_decision("discuss", prompt, seat, r.n_parties, r)

    def apply(self, game: PieDivisionEngine, seat: int, action: Action) -> None:
        game.discuss(seat, action)

    def resolve(self, game: PieDivisionEngine) -> None:
        game.step = "vote"


class Vote(YesNo["PieDivisionEngine"]):
    """Everyone but the proposer votes, simultaneously; the proposer counts as accepting."""

    kind, yes, no = "vote", "accept", "reject"

    def answers(self, game: PieDivisionEngine) -> dict[int, bool]:
        return game.votes

    def pending(self, game: PieDivisionEngine) -> list[int]:
        proposer = game.proposer()
        return [s for s in range(game.rules.n_parties) if s != proposer and s not in game.votes]

    def prompt(self, game: PieDivisionEngine) -> str:
        return game.round_head() + "Vote on the proposal."

    def resolve(self, game: PieDivisionEngine) -> None:
        game.count_votes()


class PieDivisionEngine(PhasedEngine):
    """n parties divide a pie by rotating proposals and votes; private outside options."""

    game = "pie_division"
    Rules = PieRules
    rules: PieRules
    PHASES = {"propose": Propose(), "discuss": Discuss(), "vote": Vote()}

    @property
    def n_seats(self) -> int:
        return self.rules.n_parties

    def max_options(self) -> int:
        return self.n_seats + 2

    def _start(self) -> None:
        r = self.rules
        self.sc: PieScenario = sample_pie(self.rng, r)
        self.round = 1
        self.step = "propose"
        self.allocation: tuple[int, ...] | None = None
        self.queue: list[int] = []
        self.votes: dict[int, bool] = {}
        self.history: list[dict[str, Any]] = []
        n = self._names
        self.emit(
            "game_start",
            f"{', '.join(n)} divide a pie of {r.pie}. {r.rounds} rounds at most; a proposal "
            f"passes with {r.quota_count} of {r.n_parties} accepts (the proposer counts). "
            f"{n[self.sc.first_proposer]} proposes first."
            + (f" Shares are discounted by {r.discount:g} per round." if r.discount < 1 else ""),
            pie=r.pie,
            n_parties=r.n_parties,
            quota=r.quota_count,
            max_rounds=r.rounds,
            discount=r.discount,
            first_proposer=self.sc.first_proposer,
            names=list(n),
        )
        self.tell_privately(
            [f"Your outside option (payoff if no proposal passes) is {o}." for o in self.sc.outside]
        )
        self.emit(
            "scenario",
            visibility=Visibility.god(),
            disagreement=list(self.sc.outside),
            first_proposer=self.sc.first_proposer,
            pie=r.pie,
        )
        self.phase = "round_1"

    def proposer(self) -> int:
        return (self.sc.first_proposer + self.round - 1) % self.rules.n_parties

    def round_head(self) -> str:
        return f"Round {self.round} of {self.rules.rounds}. "

    def propose(self, seat: int, action: Action) -> None:
        r = self.rules
        name = self._names[seat]
        if action.choice == "pass":
            kind = "fallback_pass" if action.fallback else "pass"
            self.emit(kind, f"{name} makes no proposal.", actor=seat, round=self.round)
            self._next_round()
            return
        alloc, msg = parse_allocation(action.text or "", r.n_parties, r.pie)
        self.allocation = alloc
        self.history.append({"round": self.round, "proposer": seat, "allocation": list(alloc)})
        shares = ", ".join(f"{self._names[s]} {a}" for s, a in enumerate(alloc))
        self.emit(
            "proposal", f"{name} proposes: {shares}.", actor=seat,
            allocation=list(alloc), round=self.round,
        )  # fmt: skip
        if msg:
            self.post_message(seat, msg)
        others = [(seat + k) % r.n_parties for k in range(1, r.n_parties)]
        self.queue = others * r.discussion_passes
        self.step = "discuss" if self.queue else "vote"

    def discuss(self, seat: int, action: Action) -> None:
        refuse_action_like_text(action, ["pass"])
        if action.choice is None and not self.rules.allow_talk:
            raise InvalidAction("talk is disabled in this game: pass")
        post_talk(self, seat, action)
        self.queue.pop(0)

    def count_votes(self) -> None:
        r = self.rules
        accepts = 1 + sum(self.votes.values())
        passed = accepts >= r.quota_count
        self.emit(
            "votes",
            "Votes: " + ", ".join(
                f"{self._names[s]} {'accepts' if v else 'rejects'}" for s, v in sorted(self.votes.items())
            ) + f". {accepts} of {r.n_parties} accept: the proposal {'passes' if passed else 'fails'}.",
            votes={str(s): v for s, v in sorted(self.votes.items())},
            accepts=accepts, passed=passed, round=self.round,
        )  # fmt: skip
        self.history[-1]["votes"] = {str(s): v for s, v in sorted(self.votes.items())}
        if passed:
            assert self.allocation is not None
            f = r.discount ** (self.round - 1)
            self._end("agreement", "passed", [a * f for a in self.allocation])
        else:
            self._next_round()

    def _next_round(self) -> None:
        self.votes = {}
        self.allocation = None
        self.round += 1
        self.step = "propose"
        if self.round > self.rules.rounds:
            self._end("no_deal", "rounds_exhausted", [float(o) for o in self.sc.outside])
        else:
            self.phase = f"round_{self.round}"

    def _end(self, label: str, reason: str, utils: list[float]) -> None:
        self.result = {
            "label": label,
            "reason": reason,
            "allocation": list(self.allocation)
            if label == "agreement" and self.allocation
            else None,
            "round": self.round,
            "utilities": utils,
        }
        self.phase = "end"
        text = (
            "No proposal passed: everyone takes the outside option."
            if label != "agreement"
            else ("Agreement in round " + str(self.round) + ".")
        )
        self.emit(
            "game_end", text, label=label, reason=reason, allocation=self.result["allocation"]
        )
        for s in range(self.rules.n_parties):
            self.emit(
                "payoff", f"(private to {self._names[s]}) Your payoff: {utils[s]:g}.",
                visibility=Visibility.private(s), seat=s, utility=utils[s],
            )  # fmt: skip
        self.emit("result", visibility=Visibility.god(), **self.result)

    def scores(self) -> list[float]:
        assert self.result is not None
        p = self.rules.pie
        out = []
        for s, u in enumerate(self.result["utilities"]):
            o = self.sc.outside[s]
            out.append((u - o) / (p - o) if p > o else 0.0)
        return out

    def private_facts(self) -> list[PrivateFact]:
        return [
            PrivateFact(
                owner=s, kind="outside_option", key="outside", value=o, audience=(s,),
                numeric=float(o),
            )
            for s, o in enumerate(self.sc.outside)
        ]  # fmt: skip

    def state(self, seat: int | None) -> dict[str, Any]:
        r = self.rules
        st: dict[str, Any] = {
            "phase": self.phase,
            "mode": "pie",
            "round": self.round,
            "max_rounds": r.rounds,
            "step": self.step if self.result is None else "end",
            "proposer": self.proposer() if self.result is None else None,
            "pie": r.pie,
            "n_parties": r.n_parties,
            "quota": r.quota_count,
            "discount": r.discount,
            "allocation": list(self.allocation) if self.allocation else None,
            "history": [dict(h) for h in self.history],
        }
        if seat is not None:
            st["seat"] = seat
        if self.result is not None:
            st["label"] = self.result["label"]
        return st

    def status(self, seat: int) -> str:
        r = self.rules
        text = f"Round {self.round} of {r.rounds}; proposer: {self._names[self.proposer()]}."
        if self.allocation:
            text += f" On the table: you get {self.allocation[seat]} of {r.pie}."
        return text

    def briefing(self, seat: int) -> str:
        r = self.rules
        return (
            f"You are {self._names[seat]} (seat {seat}), one of {r.n_parties} parties dividing "
            f"a pie of {r.pie} (seats: "
            + ", ".join(f"{s}={n}" for s, n in enumerate(self._names))
            + f"). Your outside option is {self.sc.outside[seat]}: you get it if no proposal "
            f"passes within {r.rounds} rounds. A proposal passes with {r.quota_count} accepts."
        )
