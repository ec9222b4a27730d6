"""Shared pieces of the negotiation engines: rule flags, messages, turn bookkeeping.

Conventions of negotiation.md §1: a turn is one structured action plus an optional message;
the engine validates the structured part and never parses numbers out of the message; a
structured action is rendered in one canonical public form (a game event, not speech) and the
message is a separate ``message`` event whose ``payload["message"]`` is the only text the
privacy detectors scan.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Any

from pydantic import Field

from arena.engine import RulesEngine, RuleSet
from arena.events import Visibility
from arena.types import Action, InvalidAction, Option

# A free-text answer that looks like a structured action but is not a legal option is refused
# instead of being posted as talk (so "accept" with nothing on the table, "offer:-5" or an
# infeasible split reach the invalid-action policy).
_ACTION_LIKE = re.compile(
    r"^\s*[\"']?(accept|reject|walk[ _-]?away|propose|offer|keep|allocate|end[ _]dialogue|"
    r"no[ _]agreement|pass)\b",
    re.IGNORECASE,
)


class NegotiationRules(RuleSet):
    """Flags shared by every negotiation game."""

    max_message_chars: int = Field(600, ge=1, le=4000)
    allow_talk: bool = True


class TwoPartyRules(NegotiationRules):
    """Flags of the two-player games (item split, price bargain), where either side may leave."""

    allow_walk_away: bool = True


def refuse_action_like_text(action: Action, legal: list[str]) -> None:
    """Raise InvalidAction when a text-only answer is really an (illegal) structured action."""
    if action.choices or action.text is None:
        return
    m = _ACTION_LIKE.match(action.text)
    if m:
        word = m.group(1).lower()
        raise InvalidAction(
            f"{action.text.strip()[:60]!r} is not a legal action now ({word!r} not allowed "
            f"or malformed); legal ids include: {', '.join(legal[:12])}"
            + (" ..." if len(legal) > 12 else "")
        )


def message_of(action: Action) -> str | None:
    """The message carried by an action (stripped; None when empty)."""
    text = (action.text or "").strip()
    return text or None


@functools.cache
def option_list(ids: tuple[str, ...]) -> tuple[Option, ...]:
    """Cached immutable options (decisions are rebuilt every turn; options never change)."""
    return tuple(Option(id=i) for i in ids)


def vec_id(prefix: str, vec: tuple[int, ...]) -> str:
    return f"{prefix}:" + "-".join(str(v) for v in vec)


def parse_vec(option_id: str) -> tuple[int, ...]:
    return tuple(int(x) for x in option_id.split(":", 1)[1].split("-"))


class NegotiationEngine(RulesEngine[Any]):
    """Base of the negotiation engines: message events (rendered by the arena's one renderer:
    the seat's own lines as "You", spec §5), the status line after the transcript, fallbacks."""

    _names: list[str]

    def fallback(self, seat: int, policy: str = "random_legal") -> Action:
        """A seat without a valid answer (negotiation.md §6), honouring the policy.

        A turn with a silent option (offers, proposals, talk) becomes the spec's no-op turn,
        recorded as ``fallback_pass``, under either policy (the base keeps speech silent too).
        In a simultaneous step ``abstain`` takes the step's no-op (:meth:`noop`: ``reject``,
        ``no_bid``, ``drop``, ``no_agreement``) and ``random_legal`` a uniform legal choice,
        as the base does.
        """
        decision = self.current_decision(seat)
        if decision.free_text and decision.silent_option:
            return Action(seat=seat, choices=(decision.silent_option,), fallback="fallback_pass")
        if policy == "abstain":
            return self.noop(seat)
        return super().fallback(seat, policy)

    def noop(self, seat: int) -> Action:
        """The spec's no-op answer to the seat's pending simultaneous decision.

        Games name theirs; without one, the base ``abstain`` applies (an abstain-like option
        when the decision has one, else a random legal option), so a fallback never fails."""
        return super().fallback(seat, "abstain")

    def post_message(self, seat: int, text: str, recipients: tuple[int, ...] | None = None) -> None:
        """A message event: public, or private to the sender and named recipients."""
        if recipients:
            vis = Visibility.private(seat, *recipients)
            to_payload: Any = list(recipients)
        else:
            vis = Visibility.public()
            to_payload = "all"
        self.emit_speech("message", seat, text, visibility=vis, message=text, to=to_payload)

    def tell_privately(self, texts: Sequence[str]) -> None:
        """One ``private_info`` event per seat, in seat order: what only that seat is told at
        the start (its values, reservation price or outside option)."""
        for s, text in enumerate(texts):
            self.emit(
                "private_info",
                f"(private to {self._names[s]}) {text}",
                visibility=Visibility.private(s),
                seat=s,
            )


def seat_names(rng: Any, n: int) -> list[str]:
    """Distinct names drawn with the engine RNG."""
    from arena.engine import NAME_POOL

    return list(rng.sample(list(NAME_POOL), n))
