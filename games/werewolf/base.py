"""Shared plumbing of the Werewolf engine: stages, events, options, deaths and reveals.

The engine is an explicit state machine (no generators, so snapshots pickle): ``stage`` names
the decision being collected; a sequential stage has one ``actor``, a simultaneous stage has
``sim_seats`` and buffers ``answers`` until the last seat answered, then resolves them in seat
order. Continuations between sub-flows are string tags dispatched by :meth:`_continue`.
Both go through tables (:attr:`WerewolfBase.STAGES`, :attr:`WerewolfBase.NEXT`), filled in
:mod:`games.werewolf.rules` once every phase mixin is defined: an unknown stage or tag is a
``KeyError`` naming it, never a method looked up by a built name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from arena.engine import RulesEngine
from arena.events import GameEvent, Visibility
from arena.types import Action, Decision, InvalidAction, Option, Outcome
from games.werewolf.config import ROLE_TEAM, WOLF, WerewolfRules
from games.werewolf.suspicion import IS_WOLF, KILL, NOT_WOLF, SUSPECT


@dataclass(frozen=True)
class Stage:
    """How one stage is played: the decision each seat owes, and what its answers do (``on``:
    the one answer of a sequential stage; ``resolve``: every answer of a simultaneous stage,
    in seat order). The callables take the engine first (unbound methods)."""

    decide: Callable[[Any, int], Decision]
    on: Callable[[Any, int, Action], None] | None = None
    resolve: Callable[[Any, dict[int, Action]], None] | None = None


class WerewolfBase(RulesEngine[WerewolfRules]):
    """Bookkeeping used by the night, day and vote mixins."""

    game = "werewolf"
    Rules = WerewolfRules

    #: stage name -> how it is played; continuation tag -> the step it runs
    STAGES: ClassVar[dict[str, Stage]] = {}
    NEXT: ClassVar[dict[str, Callable[[Any], None]]] = {}

    # State set by WerewolfEngine._setup and the phase mixins (declared here for the type checker).
    _names: list[str]
    _seat_opts: list[Option]
    role: list[str]
    wolves: list[int]
    alive: list[bool]
    cause: dict[int, str]
    revealed: dict[int, str]
    role_told: set[int]
    _observing: frozenset[int]
    cutoff: dict[int, int]
    frozen: dict[int, dict[str, Any]]
    day: int
    night: int
    stage: str
    actor: int | None
    sim_seats: list[int]
    answers: dict[int, Action]
    result: Outcome | None
    night_victims: list[int]
    last_protect: dict[int, int]
    inspected: dict[int, set[int]]
    seer_results: dict[int, dict[int, str]]
    heal_left: dict[int, bool]
    poison_left: dict[int, bool]
    rr_start: int | None
    day_first: int | None
    belief_asked: tuple[int, int] | None
    exiled: int | None

    if TYPE_CHECKING:
        # Provided by the phase mixins (day.py, votes.py).
        def run_last_words(self, seats: list[int], then: str) -> None: ...
        def run_hunters(self, hunters: list[int], then: str, reveal_mode: str) -> None: ...
        def check_win(self) -> bool: ...

    # -- seats -----------------------------------------------------------------------
    @property
    def n_seats(self) -> int:
        return self.rules.n_players

    def n(self, seat: int | None) -> str:
        return "nobody" if seat is None else self._names[seat]

    def team_of(self, seat: int) -> str:
        return ROLE_TEAM[self.role[seat]]

    def alive_seats(self) -> list[int]:
        return [s for s in range(self.n_seats) if self.alive[s]]

    def alive_others(self, seat: int) -> list[int]:
        return [s for s in self.alive_seats() if s != seat]

    def alive_wolves(self) -> list[int]:
        return [s for s in self.alive_seats() if self.role[s] == WOLF]

    def alive_with_role(self, role: str) -> list[int]:
        return [s for s in self.alive_seats() if self.role[s] == role]

    def seat_options(self, seats: list[int]) -> list[Option]:
        return [self._seat_opts[s] for s in seats]  # Option is frozen: shared safely

    def meta(self, **extra: Any) -> dict[str, Any]:
        return {"day": self.day, "night": self.night, **extra}

    # -- what a seat knows, said where it decides --------------------------------------
    def seat_knowledge(self, seat: int, targets: list[int]) -> str:
        """What ``seat`` privately knows about ``targets`` (the players it may vote for or
        talk about), said beside the decision: a small model reads the line next to its
        choice, not a night result many lines up the transcript (the bundled model, as the
        Seer, learned "Olga is not a wolf" and voted for Olga). Its own name too, so a vote
        against itself reads as one."""
        parts = [f"You are {self.n(seat)}."]
        if self.role[seat] == WOLF:
            mates = [self.n(w) for w in self.wolves if w != seat and w in targets]
            if mates:
                parts.append("Your fellow wolves (your side): " + ", ".join(mates) + ".")
        for target, result in sorted(self.seer_results.get(seat, {}).items()):
            if target not in targets:
                continue
            side = "a wolf" if result in ("wolf", WOLF) else "on the village side"
            if result not in ("wolf", "not_wolf", WOLF):
                side += f" (a {result})"
            parts.append(f"Your inspection: {self.n(target)} is {side}.")
        return " ".join(parts)

    def speech_menu(self, seat: int) -> list[str]:
        """The sentences of the game's own (the ones its bots speak and read) that ``seat``
        could say now, from what it knows: what each of its inspections found about a living
        player, then a suspicion of each other living player. Never one about itself."""
        others = self.alive_others(seat)
        menu = [
            (IS_WOLF if result in ("wolf", WOLF) else NOT_WOLF).format(name=self.n(target))
            for target, result in sorted(self.seer_results.get(seat, {}).items())
            if target in others
        ]
        return menu + [SUSPECT.format(name=self.n(s)) for s in others]

    def wolf_talk_menu(self, seat: int) -> list[str]:
        """The wolves' night talk offered to ``seat``: a proposal to attack each living player
        who is not a wolf (the sentence the wolf bots speak and read)."""
        return [KILL.format(name=self.n(s)) for s in self.alive_seats() if s not in self.wolves]

    # -- events ----------------------------------------------------------------------
    def ev(
        self,
        type: str,
        line: str,
        payload: dict[str, Any],
        visibility: Visibility | None = None,
        actor: int | None = None,
    ) -> GameEvent:
        return self.emit(type, line, actor=actor, visibility=visibility, payload=payload)

    def wolf_channel(self) -> Visibility:
        """The wolves' team channel: the wolves alive when the event happens."""
        return Visibility.for_team("wolves", self.alive_wolves() or self.wolves)

    # -- stages ----------------------------------------------------------------------
    def seq(self, stage: str, actor: int) -> None:
        self.stage = stage
        self.actor = actor
        self.sim_seats = []
        self.answers = {}

    def sim(self, stage: str, seats: list[int]) -> None:
        """Start a simultaneous stage; with no seats it resolves at once (with no answers).

        A stage nobody owes would stall the game: no seat is pending, so no action can ever
        resolve it (seen: end-of-day beliefs after the Hunter's shot left nobody alive)."""
        self.stage = stage
        self.actor = None
        self.sim_seats = sorted(seats)
        self.answers = {}
        if not self.sim_seats:
            self._resolve(stage, {})

    def pending(self) -> list[int]:
        if self.is_over():
            return []
        if self.actor is not None:
            return [self.actor]
        return [s for s in self.sim_seats if s not in self.answers]

    def decision(self, seat: int) -> Decision:
        if not self.owes(seat):  # cached per state
            raise KeyError(seat)
        return self.STAGES[self.stage].decide(self, seat)

    def _apply(self, seat: int, action: Action) -> None:
        if action.belief:
            self._check_belief(action.belief)
        if self.actor is not None:
            on = self.STAGES[self.stage].on
            if on is None:
                raise RuntimeError(f"stage {self.stage!r} takes no sequential answer")
            on(self, seat, action)
            return
        self.answers[seat] = action
        if all(s in self.answers for s in self.sim_seats):
            self._resolve(self.stage, dict(sorted(self.answers.items())))

    def _resolve(self, stage: str, answers: dict[int, Action]) -> None:
        resolve = self.STAGES[stage].resolve
        if resolve is None:
            raise RuntimeError(f"stage {stage!r} is not simultaneous")
        resolve(self, answers)

    def _check_belief(self, belief: dict[str, float]) -> None:
        """Every key of a belief report names a player (a seat number or a name): a report
        naming nobody is refused, as Avalon does, never dropped as if the seat had passed."""
        names = {nm.lower() for nm in self._names}
        for key in belief:
            k = key.strip()
            seat = k.isascii() and k.isdigit() and int(k) < self.n_seats
            if not seat and k.lower() not in names:
                raise InvalidAction(
                    f"belief names unknown player {key[:40]!r}; use seat numbers "
                    f"0-{self.n_seats - 1} or names"
                )

    def _continue(self, tag: str) -> None:
        self.NEXT[tag](self)

    # -- deaths and reveals ----------------------------------------------------------
    def reveal_of(self, seat: int, mode: str) -> str | None:
        if mode == "role":
            return self.role[seat]
        if mode == "team":
            return self.team_of(seat)
        return None

    def kill(self, seat: int, cause: str) -> None:
        self.alive[seat] = False
        self.cause[seat] = cause
        self.ev(
            "death",
            f"[god] {self.n(seat)} died ({cause}).",
            {"seat": seat, "cause": cause},
            Visibility.god(),
        )

    def announce_deaths(self, seats: list[int], mode: str) -> dict[int, str]:
        """Record public reveals and the point after which a dead seat stops observing."""
        reveals: dict[int, str] = {}
        for s in seats:
            r = self.reveal_of(s, mode)
            if r is not None:
                reveals[s] = r
                self.revealed[s] = r
        return reveals

    def mark_observed_until_now(self, seats: list[int]) -> None:
        """The dead stop observing from the next event on (see ``observers``)."""
        for s in seats:
            self.cutoff[s] = len(self.log)  # the first event the seat no longer observes
            self.frozen[s] = self.public_state()
        self._observing = self._observing - set(seats)

    def reveal_text(self, reveals: dict[int, str]) -> str:
        if not reveals:
            return ""
        return " " + " ".join(f"{self.n(s)} was {r}." for s, r in sorted(reveals.items()))

    def public_state(self) -> dict[str, Any]:
        return {
            "phase": self.phase,
            "day": self.day,
            "night": self.night,
            "alive": self.alive_seats(),
            "dead": [s for s in range(self.n_seats) if not self.alive[s]],
            "names": list(self._names),
            "revealed": dict(self.revealed),
        }
