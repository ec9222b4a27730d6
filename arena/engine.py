"""The rules-engine contract every game implements.

A rules engine is pure and seeded: given ``(rules, seed, decisions)`` it always produces the
same events. It owns its ``random.Random`` (never the global one), says whose decision is
pending and what it is, validates and applies actions, fixes each event's audience when it
emits it, and can snapshot/restore itself exactly.

Games subclass :class:`RulesEngine` and implement the abstract hooks; the base class does the
bookkeeping that must be identical everywhere (event log, audiences, parsing, fallbacks,
snapshots, rendering the text a seat reads).

The audience rule (:meth:`RulesEngine.audience`): a ``god`` event reaches no seat; a
``private`` one reaches the seats it lists; a ``public`` or ``team`` one reaches the seats its
visibility admits that are observing (:meth:`RulesEngine.observers`), plus its actor. Games
never filter views afterwards: what an event's audience says is what every consumer shows.
"""

from __future__ import annotations

import pickle
import random
from abc import ABC, abstractmethod
from typing import Any, ClassVar, Generic, TypeVar

from arena import transcript as lines
from arena.decisions import fallback_action
from arena.events import GameEvent, Speech, Visibility
from arena.ruleset import NAME_POOL as NAME_POOL
from arena.ruleset import RuleSet as RuleSet
from arena.transcript import compose_view as compose_view
from arena.types import Action, Decision, InvalidAction, Outcome, PrivateFact

R = TypeVar("R", bound=RuleSet)

FALLBACKS = ("random_legal", "abstain", "forfeit")


class RulesEngine(ABC, Generic[R]):
    """Base class of every game's rules engine."""

    #: registry id of the game, e.g. "werewolf"
    game: ClassVar[str] = ""
    #: the game's RuleSet subclass
    Rules: ClassVar[type[RuleSet]] = RuleSet

    def __init__(self, rules: R | dict[str, Any] | None = None, seed: int = 0) -> None:
        if rules is None:
            rules = {}
        self.rules: R = rules if isinstance(rules, RuleSet) else self.Rules(**rules)  # type: ignore[assignment]
        self.reset(seed)

    # -- lifecycle -------------------------------------------------------------------
    def reset(self, seed: int) -> list[GameEvent]:
        """Start a fresh game from ``seed``; returns the setup events."""
        self.seed = int(seed)
        self.rng = random.Random(self.seed)
        # A separate stream for fallbacks so a replay that applies the recorded fallback
        # action reaches exactly the same engine RNG state as the original run.
        self.fallback_rng = random.Random(f"fallback:{self.seed}")
        self.log: list[GameEvent] = []
        self.phase = "setup"
        self._aborted: Outcome | None = None
        self._views: dict[int, tuple[int, list[GameEvent]]] = {}  # per-seat incremental views
        self._texts: dict[int, tuple[int, str]] = {}
        self._everyone: tuple[int, ...] | None = None
        self._clear_cache()
        self._setup()
        self._clear_cache()
        return list(self.log)

    def _clear_cache(self) -> None:
        """Forget the pending seats and decisions computed for the previous state."""
        self._pending_cache: list[int] | None = None
        self._decision_cache: dict[int, Decision] = {}
        self._facts_cache: list[PrivateFact] | None = None

    @abstractmethod
    def _setup(self) -> None:
        """Deal seats, names, roles and secrets with ``self.rng``; emit the setup events."""

    # -- whose turn ------------------------------------------------------------------
    @abstractmethod
    def pending(self) -> list[int]:
        """Seats that owe a decision now, in seat order (several in a simultaneous phase)."""

    @abstractmethod
    def decision(self, seat: int) -> Decision:
        """The decision ``seat`` must make now; raises KeyError if it owes none."""

    @abstractmethod
    def _apply(self, seat: int, action: Action) -> None:
        """Apply a validated action. Simultaneous phases buffer until every seat answered."""

    @abstractmethod
    def _is_over(self) -> bool:
        """True once the rules say the game has ended."""

    @abstractmethod
    def _outcome(self) -> Outcome | None:
        """The rules' outcome once the game is over, else ``None``."""

    def current_pending(self) -> list[int]:
        """``pending()`` computed once per state: callers outside the engine (env, runner)
        ask many times between two actions, and state only changes in ``apply``,
        ``forfeit``, ``reset`` and ``restore``, which clear the cache."""
        return list(self._pending_now())

    def _pending_now(self) -> list[int]:
        """The cached pending list itself, not copied (read-only: the per-step path)."""
        found = self._pending_cache
        if found is None:
            found = self._pending_cache = self.pending()
        return found

    def owes(self, seat: int) -> bool:
        """True when ``seat`` owes a decision now (no copy of the pending list)."""
        return seat in self._pending_now()

    def current_decision(self, seat: int) -> Decision:
        """``decision(seat)`` computed once per state (see :meth:`current_pending`).

        The same object is returned until the state changes: treat it as read-only. Raises
        KeyError when ``seat`` owes no decision, whatever the game's ``decision`` does."""
        found = self._decision_cache.get(seat)
        if found is None:
            if seat not in self._pending_now():
                raise KeyError(seat)
            found = self._decision_cache[seat] = self.decision(seat)
        return found

    def current_facts(self) -> list[PrivateFact]:
        """``private_facts()`` computed once per state (see :meth:`current_pending`)."""
        if self._facts_cache is None:
            self._facts_cache = self.private_facts()
        return list(self._facts_cache)

    def is_over(self) -> bool:
        return self._aborted is not None or self._is_over()

    def outcome(self) -> Outcome | None:
        if self._aborted is not None:
            return self._aborted
        return self._outcome() if self._is_over() else None

    def forfeit(self, seat: int | None, reason: str, status: str = "forfeited") -> None:
        """End the game now as aborted: ``seat`` forfeits (reward -1), everyone else 0."""
        rewards = {s: 0.0 for s in range(self.n_seats)}
        if seat is not None:
            rewards[seat] = -1.0
        self._aborted = Outcome(label="aborted", rewards=rewards, reason=reason, status=status)
        self._clear_cache()
        self.phase = "end"
        self.emit(
            "match_aborted",
            f"The match was aborted: {reason}",
            actor=seat,
            reason=reason,
            status=status,
        )

    # -- seats and secrets -----------------------------------------------------------
    @property
    @abstractmethod
    def n_seats(self) -> int: ...

    @property
    def names(self) -> list[str]:
        return list(self._seat_names())

    def _seat_names(self) -> list[str]:
        """The seat names, not copied (read-only: the renderer's hot path)."""
        found: list[str] | None = getattr(self, "_names", None)
        return found if found is not None else [f"P{i}" for i in range(self.n_seats)]

    @abstractmethod
    def teams(self) -> dict[int, str]:
        """Faction of each seat (the team for ratings); every seat its own for free-for-all."""

    def roles(self) -> dict[int, str]:
        """Role of each seat (defaults to the team)."""
        return self.teams()

    @abstractmethod
    def private_facts(self) -> list[PrivateFact]:
        """Every piece of private information with its audience (ground truth for metrics)."""

    def max_options(self) -> int:
        """Upper bound on the number of options in any decision (size of the env's mask)."""
        return self.n_seats + 4

    def state(self, seat: int | None) -> dict[str, Any]:
        """A game-specific, JSON-able summary of what ``seat`` may know (None: spectator)."""
        return {"phase": self.phase}

    def briefing(self, seat: int) -> str:
        """The fixed text a seat reads before the transcript: who it is, what it knows."""
        facts = [f for f in self.current_facts() if f.known_by(seat)]
        lines = [f"You are {self.names[seat]} (seat {seat}) in a game of {self.game}."]
        for f in facts:
            who = "You" if f.owner == seat else self.names[f.owner]
            lines.append(f"- {who}: {f.kind} {f.key} = {f.value}")
        return "\n".join(lines)

    # -- audiences -------------------------------------------------------------------
    def observers(self) -> frozenset[int] | None:
        """The seats observing the match now; ``None`` (the default): every seat.

        Games where a seat stops observing (the dead, a character who left) override this; it
        is read when an event is emitted, so it decides that event's audience for good."""
        return None

    def audience(self, visibility: Visibility, actor: int | None) -> tuple[int, ...]:
        """The seats an event with ``visibility`` and ``actor`` emitted now is delivered to."""
        scope = visibility.scope
        if scope == "god":
            return ()
        if scope == "private":  # addressed to its seats: delivered whoever observes
            return visibility.seats
        watching = self.observers()
        if scope == "public":
            if watching is None:
                if self._everyone is None:
                    self._everyone = tuple(range(self.n_seats))
                return self._everyone
            seats = set(watching)
        else:
            if watching is None:
                return visibility.seats
            seats = {s for s in visibility.seats if s in watching}
        if actor is not None and (scope == "public" or actor in visibility.seats):
            seats.add(actor)  # a seat always receives what it did itself
        return tuple(sorted(seats))

    # -- applying actions ------------------------------------------------------------
    def emit(
        self,
        type: str,
        text: str = "",
        *,
        actor: int | None = None,
        visibility: Visibility | None = None,
        payload: dict[str, Any] | None = None,
        speech: Speech | None = None,
        **fields: Any,
    ) -> GameEvent:
        """Append an event to the log, its audience fixed now. Payload keys come from
        ``payload`` (any key, e.g. ``text``) and/or keyword ``fields``.

        A speech event passes ``speech`` (the speaker is ``actor``) and no ``text``: its line is
        rendered by :mod:`arena.transcript`, so every seat reads it in the one convention."""
        vis = visibility or Visibility.public()
        if speech is not None:
            if actor is None:
                raise ValueError("speech needs a speaker (actor)")
            if text:
                raise ValueError("a speech event's text is rendered from its structure")
            text = lines.speech_line(actor, speech, vis, None, self._seat_names())
        event = GameEvent.emitted(
            type,
            self.phase,
            actor,
            {**(payload or {}), **fields},
            vis,
            text,
            self.audience(vis, actor),
            speech,
        )
        self.log.append(event)
        return event

    def emit_speech(
        self,
        type: str,
        seat: int,
        body: str,
        *,
        visibility: Visibility | None = None,
        label: str = "",
        payload: dict[str, Any] | None = None,
        **fields: Any,
    ) -> GameEvent:
        """``seat`` says ``body`` on the channel of ``visibility`` (default: everyone)."""
        return self.emit(
            type,
            actor=seat,
            visibility=visibility,
            payload=payload,
            speech=Speech(body=body, label=label),
            **fields,
        )

    def apply(self, seat: int, raw: Action | str | int | dict[str, Any]) -> list[GameEvent]:
        """Validate ``raw`` against the seat's pending decision and apply it.

        Returns the events this produced. Raises :class:`InvalidAction` (state unchanged)
        when the seat owes no decision or the answer is not legal.
        """
        if self.is_over():
            raise InvalidAction("the game is over")
        if seat not in self._pending_now():
            raise InvalidAction(f"seat {seat} has no pending decision")
        action = self.current_decision(seat).parse(raw, seat)
        start = len(self.log)
        try:
            self._apply(seat, action)
        finally:
            self._clear_cache()
        return self.log[start:]

    def fallback(self, seat: int, policy: str = "random_legal") -> Action:
        """The recorded stand-in for a seat that gave no valid answer (:func:`fallback_action`,
        drawn from the engine's fallback stream)."""
        return fallback_action(self.current_decision(seat), seat, policy, self.fallback_rng)

    # -- views -----------------------------------------------------------------------
    def visible_log(self, seat: int | None) -> list[GameEvent]:
        """Events delivered to ``seat`` (``None``: all), in log order."""
        if seat is None:
            return list(self.log)
        return list(self.view(seat))

    def view(self, seat: int) -> list[GameEvent]:
        """The engine's own (cached, growing) list behind :meth:`visible_log`: read-only.

        Incremental: an event's audience never changes once emitted, so a seat's view only
        grows at its end."""
        done, seen = self._views.get(seat, (0, []))
        if done > len(self.log):  # the log was replaced: start over
            done, seen = 0, []
        if done < len(self.log):
            for e in self.log[done:]:
                aud = e.audience  # inline delivered_to: this runs for every event and seat
                if (seat in aud) if aud is not None else e.visibility.visible_to(seat):
                    seen.append(e)
            self._views[seat] = (len(self.log), seen)
        return seen

    def known_facts(self, seat: int) -> list[PrivateFact]:
        return [f for f in self.current_facts() if f.known_by(seat)]

    def render(self, seat: int, *, error: str | None = None) -> str:
        """The text a seat reads: briefing, transcript, status line, pending decision.

        The one layout (:func:`compose_view`) and the one line renderer
        (:mod:`arena.transcript`): games supply the parts, never their own rendering."""
        return compose_view(
            self.briefing(seat),
            self.transcript(seat),
            self.decision_text(seat),
            error,
            self.status_line(seat),
        )

    def status_line(self, seat: int) -> str:
        """A short line of game state shown after the transcript (e.g. turns left); "" = none."""
        return ""

    def decision_text(self, seat: int) -> str | None:
        """The pending decision as the seat reads it (``None`` when it owes none)."""
        if seat in self._pending_now():
            return self.current_decision(seat).describe()
        return None

    def transcript(self, seat: int) -> str:
        """The lines of the events delivered to ``seat`` (:func:`arena.transcript.line`).

        Cached per seat and extended with the new tail of :meth:`view`, so a render costs
        the new events, not the whole game."""
        view = self.view(seat)
        count, text = self._texts.get(seat, (0, ""))
        if count > len(view):
            count, text = 0, ""
        if count < len(view):
            new = lines.transcript(view[count:], seat, self._seat_names())
            if new:
                text = f"{text}\n{new}" if text else new
            self._texts[seat] = (len(view), text)
        return text

    # -- snapshots -------------------------------------------------------------------
    def snapshot(self) -> bytes:
        """An exact copy of the whole state, RNG streams included."""
        caches = (
            "_pending_cache", "_decision_cache", "_facts_cache", "_views", "_texts", "_everyone"
        )  # fmt: skip
        state = {k: v for k, v in self.__dict__.items() if k not in caches}
        return pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)

    def restore(self, blob: bytes) -> None:
        self.__dict__.clear()
        self.__dict__.update(pickle.loads(blob))
        self._views = {}
        self._texts = {}
        self._everyone = None
        self._clear_cache()
