"""One phase mechanism for the price, pie and auction engines.

A game's flow is a small table, ``PHASES``: step name -> :class:`Phase`. The engine keeps the
current step in ``self.step``; the phase says who owes a decision, what it is, how an answer
applies, and what happens once nobody in the step owes one any more (``resolve``: counting the
votes of a simultaneous step, ending a talk pass). The engine base does the rest once, for the
three games: no string-built method names, no per-mode branches.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar, Generic, TypeVar

from arena.types import Action, Decision, InvalidAction, Outcome
from games.negotiation.common import NegotiationEngine, option_list, seat_names

G = TypeVar("G", bound="PhasedEngine")


class Phase(Generic[G]):
    """One step of a game's flow; stateless (the state lives on the engine ``G``)."""

    @abstractmethod
    def pending(self, game: G) -> list[int]:
        """Seats that owe a decision in this step, in seat order."""

    @abstractmethod
    def decision(self, game: G, seat: int) -> Decision:
        """The decision of a pending ``seat``."""

    @abstractmethod
    def apply(self, game: G, seat: int, action: Action) -> None:
        """Apply a validated answer (may move the game to another step or end it)."""

    def resolve(self, game: G) -> None:
        """Called when the step is still current and nobody in it owes a decision."""

    def noop(self, game: G, seat: int) -> Action:
        """The spec's no-op answer (§6): a pass that uses up the turn."""
        return Action(seat=seat, choices=("pass",), fallback="fallback_pass")


class YesNo(Phase[G]):
    """A simultaneous two-way choice (pie's vote, the auction's clock tick): every pending seat
    answers ``yes`` or ``no`` at once, recorded as True / False in :meth:`answers`; the no-op
    (§6) is ``no``."""

    kind: ClassVar[str]
    yes: ClassVar[str]
    no: ClassVar[str]

    @abstractmethod
    def answers(self, game: G) -> dict[int, bool]:
        """Where the step's answers go (seat -> said yes)."""

    @abstractmethod
    def prompt(self, game: G) -> str:
        """The question of the step."""

    def decision(self, game: G, seat: int) -> Decision:
        return Decision(
            kind=self.kind,
            prompt=self.prompt(game),
            options=list(option_list((self.yes, self.no))),
            simultaneous=True,
        )

    def apply(self, game: G, seat: int, action: Action) -> None:
        self.answers(game)[seat] = action.choice == self.yes

    def noop(self, game: G, seat: int) -> Action:
        return Action(seat=seat, choices=(self.no,), fallback=self.no)


PRIVATE_HINT = '; {"choice": "to:<seat>", "text": ...} is private'


def talk_decision(kind: str, prompt: str, seat: int, n_seats: int, rules: Any) -> Decision:
    """A talk turn (pie discussion, auction talk): a message as free text or ``pass``, and
    ``to:<seat>`` for a private message when ``rules.allow_private``."""
    ids = ["pass"]
    if rules.allow_private:
        ids += [f"to:{t}" for t in range(n_seats) if t != seat]
    return Decision(
        kind=kind,
        prompt=prompt,
        options=list(option_list(tuple(ids))),
        free_text=True,
        max_chars=rules.max_message_chars,
        silent_option="pass",
    )


def post_talk(game: NegotiationEngine, seat: int, action: Action) -> None:
    """The message of a talk turn: private with ``to:<seat>`` (text needed), public as plain
    text; a pass posts nothing."""
    choice, text = action.choice, (action.text or "").strip()
    if choice and choice.startswith("to:"):
        if not text:
            raise InvalidAction("a private message needs text")
        game.post_message(seat, text, recipients=(int(choice[3:]),))
    elif choice is None:
        game.post_message(seat, text)


class PhasedEngine(NegotiationEngine):
    """Base of the price, pie and auction engines: the phase table, the result, the outcome.

    A game sets ``PHASES``, starts its flow in :meth:`_start` (setting ``self.step``) and ends
    it by setting ``self.result`` (label, reason, utilities, ...)."""

    PHASES: ClassVar[Mapping[str, Phase[Any]]]
    #: the role every seat plays (the price game names its two roles instead)
    ROLE: ClassVar[str] = "party"

    step: str
    result: dict[str, Any] | None
    _names: list[str]

    def _setup(self) -> None:
        self._names = seat_names(self.rng, self.n_seats)
        self.result = None
        self.phase = "negotiation"
        self._start()

    @abstractmethod
    def _start(self) -> None:
        """Sample the scenario, emit the setup events and set the first step."""

    # -- the phase table ---------------------------------------------------------------
    def current_phase(self) -> Phase[Any]:
        return self.PHASES[self.step]

    def pending(self) -> list[int]:
        if self.result is not None:
            return []
        return self.current_phase().pending(self)

    def decision(self, seat: int) -> Decision:
        if seat not in self.current_pending():
            raise KeyError(seat)
        return self.current_phase().decision(self, seat)

    def _apply(self, seat: int, action: Action) -> None:
        phase = self.current_phase()
        phase.apply(self, seat, action)
        if self.result is None and self.PHASES.get(self.step) is phase and not phase.pending(self):
            phase.resolve(self)

    def noop(self, seat: int) -> Action:
        return self.current_phase().noop(self, seat)

    # -- the end -----------------------------------------------------------------------
    def _is_over(self) -> bool:
        return self.result is not None

    @abstractmethod
    def scores(self) -> list[float]:
        """The rating score of each seat (negotiation.md §8.11), once the game is over."""

    def _outcome(self) -> Outcome | None:
        if self.result is None:
            return None
        scores = self.scores()
        best = max(scores)
        top = [s for s, x in enumerate(scores) if x == best]
        winners = () if len(top) == len(scores) else tuple(f"p{s}" for s in top)
        return Outcome(
            label=self.result["label"],
            winners=winners,
            rewards={s: float(u) for s, u in enumerate(self.result["utilities"])},
            reason=self.result["reason"],
        )

    def teams(self) -> dict[int, str]:
        return {s: f"p{s}" for s in range(self.n_seats)}

    def roles(self) -> dict[int, str]:
        return {s: self.ROLE for s in range(self.n_seats)}

    def status_line(self, seat: int) -> str:
        if self.result is not None:
            return "The game is over."
        return self.status(seat)

    @abstractmethod
    def status(self, seat: int) -> str:
        """The line under the transcript while the game runs: turn, round or price."""
