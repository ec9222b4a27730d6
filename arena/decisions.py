"""The decision a seat owes (:class:`Decision`, its :class:`Option` s) and its answer
(:class:`Action`): parsed leniently from what an agent wrote, validated strictly against the
decision; a refused answer is an :class:`InvalidAction` with the reason the seat is told."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    model_validator,
)

from arena.trusted import build_trusted


class InvalidAction(ValueError):
    """An action that the pending decision does not allow; the message says why."""


class Option(BaseModel):
    """One legal choice. ``id`` is what an agent answers with; ``label`` is for people."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    label: str = ""

    def display(self) -> str:
        return f"{self.id}: {self.label}" if self.label and self.label != self.id else self.id

    @classmethod
    def of(cls, id: str, label: str = "") -> Option:
        """The shared (frozen) option ``id``/``label``: engines build the same few options
        (pass, abstain, ...) on every decision, and one validated instance serves them all."""
        key = (id, label)
        found = _OPTIONS.get(key)
        if found is None:
            found = _OPTIONS[key] = cls(id=id, label=label)
        return found


_OPTIONS: dict[tuple[str, str], Option] = {}


class Decision(BaseModel):
    """What one seat must decide now.

    A choice decision lists ``options`` and asks for between ``min_choices`` and
    ``max_choices`` distinct ids. A speech decision sets ``free_text`` (bounded by
    ``max_chars``); its options (e.g. ``pass``) may be chosen instead of speaking. A speech
    decision may offer a ``menu``: sentences of the game's own that this seat could say now
    (built from what it knows); any other words stay legal. A small model that ranks its moves
    says one of them (``LLMAgentParams.speech``), since it cannot yet write a sentence that means
    what it knows.
    """

    model_config = ConfigDict(extra="forbid")

    kind: str
    prompt: str = ""
    options: list[Option] = Field(default_factory=list)
    min_choices: int = 1
    max_choices: int = 1
    free_text: bool = False
    max_chars: int = 800
    simultaneous: bool = False
    # A belief report decision: an answer carrying only ``belief`` is complete.
    belief_only: bool = False
    # The option id used when speech fallback is "say nothing" (e.g. "pass" or "wait").
    silent_option: str | None = None
    menu: list[str] = Field(default_factory=list)
    meta: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _check(self) -> Decision:
        ids = [o.id for o in self.options]
        if len(set(ids)) != len(ids):
            raise ValueError(f"duplicate option ids in decision {self.kind!r}")
        if not self.free_text and not self.options:
            raise ValueError(f"decision {self.kind!r} has neither options nor free text")
        if self.options and not (0 <= self.min_choices <= self.max_choices):
            raise ValueError("need 0 <= min_choices <= max_choices")
        if self.silent_option is not None and self.silent_option not in ids:
            raise ValueError("silent_option must be one of the options")
        if self.menu and not self.free_text:
            raise ValueError(f"decision {self.kind!r} offers a menu of sentences without speech")
        if any(not m.strip() or len(m) > self.max_chars for m in self.menu):
            raise ValueError(f"decision {self.kind!r}: a menu sentence is empty or too long")
        return self

    @classmethod
    def trusted(cls, **fields: Any) -> Decision:
        """A decision from an engine's own parts, without pydantic validation: an engine builds
        one on almost every step, and its parts are its own (option lists it keeps, literal
        prompts). The checks still run where decisions are judged: the conformance suite
        validates every decision of every registered game and variant. Unknown fields are a
        ``TypeError``, as a typo must not pass silently."""
        if not fields.keys() <= _DECISION_FIELDS.keys():
            unknown = sorted(fields.keys() - _DECISION_FIELDS.keys())
            raise TypeError(f"Decision has no field(s) {unknown}")
        state = {**_DECISION_PLAIN, **fields}
        for name, factory in _DECISION_FACTORIES:
            if name not in fields:
                state[name] = factory()
        return build_trusted(cls, state, frozenset(fields))

    @property
    def option_ids(self) -> list[str]:
        return [o.id for o in self.options]

    def describe(self, speech: bool = True) -> str:
        """A one-paragraph statement of the decision and its legal answers (``speech``: with
        the offer to write a message where the decision allows one)."""
        lines = [self.prompt] if self.prompt else []
        if self.options:
            if self.max_choices == 1:
                lines.append("Choose one of: " + ", ".join(o.display() for o in self.options))
            elif self.min_choices == self.max_choices:
                lines.append(
                    f"Choose exactly {self.max_choices} distinct ids (comma-separated) from: "
                    + ", ".join(o.display() for o in self.options)
                )
            else:
                lines.append(
                    f"Choose {self.min_choices}-{self.max_choices} distinct ids from: "
                    + ", ".join(o.display() for o in self.options)
                )
        if self.free_text and speech:
            lines.append(f"Or write a message of at most {self.max_chars} characters.")
        return "\n".join(lines)

    # -- strict parsing -------------------------------------------------------------
    def parse(self, raw: Action | str | int | dict[str, Any], seat: int) -> Action:
        """Turn an agent's answer into a validated :class:`Action` or raise InvalidAction.

        Accepted forms: an ``Action``; an option index (int); a JSON object
        ``{"choice": id | [ids], "text": str, "belief": {...}}``; an option id or label;
        comma-separated ids for multi-choice; free text where the decision allows it.
        """
        if isinstance(raw, Action):
            return self._validate(raw.model_copy(update={"seat": seat}))
        if isinstance(raw, bool):
            raise InvalidAction("a boolean is not an action")
        if isinstance(raw, int):
            if not 0 <= raw < len(self.options):
                raise InvalidAction(f"option index {raw} out of range 0..{len(self.options) - 1}")
            return self._validate(Action.trusted(seat, (self.options[raw].id,)))
        if isinstance(raw, dict):
            try:
                raw_text = json.dumps(raw, default=str)
            except (TypeError, ValueError):  # e.g. a mapping that contains itself
                raise InvalidAction("the answer is not a JSON-like object") from None
            return self._from_mapping(raw, seat, raw_text=raw_text)
        if not isinstance(raw, str):
            raise InvalidAction(f"unsupported action type {type(raw).__name__}")
        text = raw.strip()
        if not text:
            raise InvalidAction("empty answer")
        if text.startswith("{") and text.endswith("}"):
            try:
                data = json.loads(text)
            except json.JSONDecodeError:
                data = None
            if isinstance(data, dict):
                return self._from_mapping(data, seat, raw_text=raw)
        matched = self._match_choices(text)
        if matched is not None:
            return self._validate(Action.trusted(seat, matched, raw=raw))
        if self.free_text:
            return self._validate(Action.trusted(seat, text=text, raw=raw))
        raise InvalidAction(
            f"{text[:60]!r} is not a legal answer; legal ids: {', '.join(self.option_ids)}"
        )

    def _from_mapping(self, data: dict[str, Any], seat: int, raw_text: str) -> Action:
        unknown = set(data) - {"choice", "choices", "text", "belief"}
        if unknown:
            raise InvalidAction(f"unknown keys in answer: {sorted(unknown)}")
        choice = data.get("choice", data.get("choices"))
        choices: tuple[str, ...] = ()
        if isinstance(choice, list):
            choices = tuple(self._resolve_one(str(c)) for c in choice)
        elif choice is not None:
            one = str(choice)
            found = self._match_choices(one)
            if found is None:
                raise InvalidAction(f"{one!r} is not a legal option")
            choices = found
        text = data.get("text")
        if text is not None and not isinstance(text, str):
            raise InvalidAction("'text' must be a string")
        belief = data.get("belief")
        if belief is not None and not isinstance(belief, dict):
            raise InvalidAction("'belief' must be an object of name -> probability")
        # checked here, not by Action's own validation: a malformed belief is the agent's
        # invalid answer (re-asked, then the policy's fallback), never an error of the caller
        cleaned = _clean_belief(belief) if belief is not None else None
        try:
            action = Action(
                seat=seat, choices=choices, text=text or None, raw=raw_text, belief=cleaned
            )
        except ValidationError as err:
            raise InvalidAction(f"malformed answer: {err.errors()[0]['msg']}") from None
        return self._validate(action)

    def _resolve_one(self, token: str) -> str:
        token = token.strip()
        for o in self.options:
            if token == o.id:
                return o.id
        low = token.lower()
        for o in self.options:
            if low == o.id.lower() or (o.label and low == o.label.lower()):
                return o.id
        raise InvalidAction(f"{token[:60]!r} is not a legal option")

    def _match_choices(self, text: str) -> tuple[str, ...] | None:
        if not self.options:
            return None
        try:
            return (self._resolve_one(text),)
        except InvalidAction:
            pass
        if self.max_choices > 1:
            parts = [p for p in re.split(r"[,\s]+", text) if p]
            try:
                return tuple(self._resolve_one(p) for p in parts)
            except InvalidAction:
                return None
        return None

    def _validate(self, action: Action) -> Action:
        if action.choices:
            legal = {o.id for o in self.options}
            bad = [c for c in action.choices if c not in legal]
            if bad:
                raise InvalidAction(f"illegal option(s) {bad}; legal: {', '.join(self.option_ids)}")
            if len(set(action.choices)) != len(action.choices):
                raise InvalidAction("the same option was chosen twice")
            n = len(action.choices)
            # A single "silent" option (pass/wait) is always a complete answer.
            silent = n == 1 and action.choices[0] == self.silent_option
            if not silent and not (self.min_choices <= n <= self.max_choices):
                want = (
                    str(self.max_choices)
                    if self.min_choices == self.max_choices
                    else f"{self.min_choices}-{self.max_choices}"
                )
                raise InvalidAction(f"choose {want} option(s), got {n}")
            if action.text is not None and not self.free_text:
                action = action.model_copy(update={"text": None})
        elif action.text is not None:
            if self.belief_only and not action.belief:
                raise InvalidAction(self._belief_form())
            if not self.free_text:
                raise InvalidAction(
                    f"this decision needs a choice, not free text; legal: {', '.join(self.option_ids)}"
                )
            if len(action.text) > self.max_chars:
                raise InvalidAction(
                    f"message too long ({len(action.text)} > {self.max_chars} chars)"
                )
        elif not (self.belief_only and action.belief):
            if self.belief_only:
                raise InvalidAction(self._belief_form())
            raise InvalidAction("the answer has neither a choice nor text")
        if action.belief is not None:
            action = action.model_copy(update={"belief": _clean_belief(action.belief)})
        return action

    def _belief_form(self) -> str:
        skip = f" or {self.silent_option!r}" if self.silent_option else ""
        return f'a belief report is {{"belief": {{"<seat>": probability, ...}}}}{skip}'


def _clean_belief(belief: dict[str, Any]) -> dict[str, float]:
    """Probabilities keyed by seat/name; anything unparseable is refused, never guessed."""
    out: dict[str, float] = {}
    if len(belief) > 1000:
        raise InvalidAction(f"a belief names {len(belief)} players; a game has far fewer")
    for key, value in belief.items():
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise InvalidAction(f"belief for {str(key)[:40]!r} is not a number")
        try:
            p = float(value)
        except (TypeError, ValueError):
            raise InvalidAction(f"belief for {str(key)[:40]!r} is not a number") from None
        if not 0.0 <= p <= 1.0:
            raise InvalidAction(f"belief for {str(key)[:40]!r} must be a probability in [0, 1]")
        out[str(key)] = p
    return out


class Action(BaseModel):
    """A validated answer to a decision."""

    model_config = ConfigDict(extra="forbid")

    seat: int = -1
    choices: tuple[str, ...] = ()
    text: str | None = None
    belief: dict[str, float] | None = None
    raw: str | None = None
    # Set when the action was not the agent's own: "random_legal", "abstain", "silent".
    fallback: str | None = None
    # Annotations from in-process agents (e.g. a scripted bot's ground truth "I slipped on
    # purpose"). Never parsed from text answers; engines may record them as god-only events.
    meta: dict[str, Any] | None = None

    @classmethod
    def trusted(
        cls,
        seat: int,
        choices: tuple[str, ...] = (),
        *,
        text: str | None = None,
        raw: str | None = None,
    ) -> Action:
        """An action from parts :meth:`Decision.parse` already typed (option ids it matched,
        the stripped answer), without pydantic validation: parsing is on every step's path,
        and the decision's own checks (``_validate``) still run on the result."""
        state = {
            "seat": int(seat),
            "choices": choices,
            "text": text,
            "belief": None,
            "raw": raw,
            "fallback": None,
            "meta": None,
        }
        return build_trusted(cls, state, _ACTION_SET)

    @property
    def choice(self) -> str | None:
        return self.choices[0] if self.choices else None

    def summary(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        if self.choices:
            data["choices"] = list(self.choices)
        if self.text is not None:
            data["text"] = self.text
        if self.belief:
            data["belief"] = self.belief
        if self.fallback:
            data["fallback"] = self.fallback
        return data


_ACTION_SET = frozenset({"seat", "choices", "text", "raw"})
# name -> (default, default factory) of every Decision field, in declaration order
_DECISION_FIELDS: dict[str, tuple[Any, Callable[[], Any] | None]] = {
    name: (info.default, info.default_factory)  # type: ignore[misc]
    for name, info in Decision.model_fields.items()
}
# the plain defaults (shared values, immutable) and the fields made fresh per decision
_DECISION_PLAIN = {name: d for name, (d, factory) in _DECISION_FIELDS.items() if factory is None}
_DECISION_FACTORIES = [(name, f) for name, (_d, f) in _DECISION_FIELDS.items() if f is not None]


def fallback_action(decision: Decision, seat: int, policy: str, rng: random.Random) -> Action:
    """The recorded stand-in for a seat that gave no valid answer.

    ``random_legal`` picks uniformly among legal options (speech: stays silent);
    ``abstain`` takes the decision's silent/abstain option when it has one, else a
    random legal option. (``forfeit`` is handled by the caller: it ends the match.)
    """
    ids = decision.option_ids
    if decision.free_text and decision.silent_option:
        return Action(seat=seat, choices=(decision.silent_option,), fallback="silent")
    if policy == "abstain":
        for candidate in ("abstain", "pass", "wait", "no_kill", "none", "decline"):
            if candidate in ids:
                return Action(seat=seat, choices=(candidate,), fallback="abstain")
    if not ids:
        return Action(seat=seat, text="...", fallback="silent")
    k = max(decision.min_choices, 1)
    picks = rng.sample(ids, k) if k > 1 else [rng.choice(ids)]
    return Action(seat=seat, choices=tuple(picks), fallback="random_legal")
