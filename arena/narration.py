"""Short readable lines for events a person watches: who did what, in words, never JSON.

A game writes the line a spectator reads into an event's ``text``; many events carry none —
the runner's records (a seat's decision, a belief report, an LLM call, a refused answer, the
ground truth) and a game's god-only bookkeeping (Avalon's quest cards, a negotiation's
scenario). :func:`describe` gives every event one line: its text when it has one, otherwise
an account of its payload built from tables:

* :data:`RUNNER_LINES` — the runner's own event types, one function each;
* the payload keys with a known meaning (:data:`SEAT_KEYS` hold a seat, :data:`SEAT_LIST_KEYS`
  a list of seats, :data:`BALLOT_KEYS` voter → choice, :data:`PROBABILITY_KEYS` seat →
  probability); any other key is written ``key value`` with seat-keyed maps named and
  numbers rounded;
* the game's knowledge model (:func:`arena.registry.knowledge`) names what a belief report
  measures (Werewolf: P(wolves), Avalon: P(good)).

Probabilities print with two decimals, seats by their player names, ballots as "Ann votes for
Bob". Every line goes through :func:`arena.untrusted.quote`: an agent's words inside it (a
decision's speech, a refused answer) stay on the line, with controls shown as stand-ins and no
markup that could close a block. A line is cut at a word boundary with "…".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from arena import transcript
from arena.events import GameEvent
from arena.untrusted import quote

MAX_CHARS = 220  # one line of a wide terminal; longer accounts are cut at a word

# payload keys whose int value is a seat, or whose list holds seats
SEAT_KEYS = frozenset(
    {"seat", "target", "voter", "exiled", "reporter", "walker", "first_mover", "leader", "killer"}
)
SEAT_LIST_KEYS = frozenset(
    {"team", "dead", "deaths", "alive", "wolves", "killed", "eliminated", "executed", "seats"}
)
BALLOT_KEYS = frozenset({"ballots", "votes"})  # voter seat -> target seat (or a word)
PROBABILITY_KEYS = frozenset({"beliefs", "belief", "p_good", "p_merlin"})  # seat -> P
# what a payload carries for machines only: prompts, full rule sets, per-call transcripts
SKIP_KEYS = frozenset({"shown", "rules", "messages", "briefing", "traceback", "persona", "ts"})


@dataclass(frozen=True)
class Cast:
    """Who is who in a match: player names by seat, and the game (for its belief label)."""

    names: Sequence[str] = ()
    game: str = ""

    def name(self, seat: Any) -> str:
        if isinstance(seat, str) and seat.isdigit():
            seat = int(seat)
        if isinstance(seat, int) and not isinstance(seat, bool):
            return self.names[seat] if 0 <= seat < len(self.names) else f"seat {seat}"
        return str(seat)

    @property
    def belief_side(self) -> str:
        return _belief_side(self.game)


@lru_cache(maxsize=64)
def _belief_side(game: str) -> str:
    """What a belief report's numbers are the probability of, as the game's model says."""
    from arena import registry

    try:
        side = registry.knowledge(game).belief_side if game else None
    except (ImportError, TypeError, ValueError):  # an unregistered or broken game: unnamed
        side = None
    return f"P({side})" if side else "P"


def number(value: float) -> str:
    """A number as people read it: integers whole, others with two decimals."""
    return str(int(value)) if float(value).is_integer() and abs(value) < 1e15 else f"{value:.2f}"


def probabilities(values: Mapping[str, Any], cast: Cast, top: int = 0) -> str:
    """``Bob 0.62, Ann 0.33``: seats by name, most likely first (``top``: only that many)."""
    pairs = [(cast.name(k), float(v)) for k, v in values.items() if isinstance(v, int | float)]
    pairs.sort(key=lambda kv: -kv[1])
    shown = pairs[:top] if top else pairs
    more = ", …" if top and len(pairs) > top else ""
    return ", ".join(f"{n} {p:.2f}" for n, p in shown) + more


def ballots(values: Mapping[str, Any], cast: Cast) -> str:
    """``Ann votes for Bob, Cleo votes approve``."""
    out = []
    for voter, choice in values.items():
        said = f"for {cast.name(choice)}" if _is_seat(choice) else _value(choice, cast)
        out.append(f"{cast.name(voter)} votes {said}")
    return ", ".join(out)


def _is_seat(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _value(value: Any, cast: Cast, depth: int = 0) -> str:
    """Any payload value in words: numbers rounded, seat maps named, lists joined."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        return number(value)
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        if depth > 1:
            return "…"
        return ", ".join(
            f"{cast.name(k) if str(k).isdigit() else k} {_value(v, cast, depth + 1)}"
            for k, v in value.items()
        )
    if isinstance(value, list | tuple):
        if depth > 1:
            return "…"
        inner = " ".join if all(isinstance(v, int | float) for v in value) else ", ".join
        parts = [_value(v, cast, depth + 1) for v in value]
        return inner(parts) if depth == 0 else "(" + inner(parts) + ")"
    return str(value)


def field(key: str, value: Any, cast: Cast) -> str:
    """One payload field as ``key value`` in words."""
    label = key.replace("_", " ")
    if key in SEAT_KEYS and _is_seat(value):
        return f"{label} {cast.name(value)}"
    if key in SEAT_LIST_KEYS and isinstance(value, list | tuple) and all(map(_is_seat, value)):
        return f"{label} {', '.join(cast.name(s) for s in value) or 'none'}"
    if key in BALLOT_KEYS and isinstance(value, Mapping):
        return ballots(value, cast)
    if key in PROBABILITY_KEYS and isinstance(value, Mapping):
        return f"{cast.belief_side if key in ('beliefs', 'belief') else label}: " + (
            probabilities(value, cast) or "none"
        )
    return f"{label} {_value(value, cast)}"


def fields(payload: Mapping[str, Any], cast: Cast, skip: frozenset[str] = SKIP_KEYS) -> str:
    return " · ".join(field(k, v, cast) for k, v in payload.items() if k not in skip)


# -- the runner's records --------------------------------------------------------------------
def _choice_labels(payload: Mapping[str, Any]) -> dict[str, str]:
    """Option id -> label, from the decision the seat was shown (when the record has it)."""
    shown = payload.get("shown")
    decision = shown.get("decision") if isinstance(shown, Mapping) else None
    options = decision.get("options") if isinstance(decision, Mapping) else None
    out: dict[str, str] = {}
    for o in options if isinstance(options, list) else []:
        if isinstance(o, Mapping) and o.get("label"):
            out[str(o.get("id"))] = str(o["label"])
    return out


def action(
    act: Any, cast: Cast, labels: Mapping[str, str] | None = None, *, numbers: bool = True
) -> str:
    """What an answer did: ``chose Bob``, ``says "…"``, a belief, a fallback.

    ``numbers=False`` names a belief without its probabilities (a line beside it has them)."""
    if not isinstance(act, Mapping):
        return "no answer"
    labels = labels or {}
    parts = []
    if act.get("choices"):
        parts.append("chose " + ", ".join(labels.get(str(c), str(c)) for c in act["choices"]))
    if act.get("text") is not None:
        parts.append(f"says “{act['text']}”")
    if isinstance(act.get("belief"), Mapping):
        if numbers:
            parts.append(f"believes {cast.belief_side}: {probabilities(act['belief'], cast)}")
        else:
            parts.append(f"reports {cast.belief_side}")
    said = ", ".join(parts) or "passes"
    # the fallback qualifies what was done: a note after it, not one more thing done
    return f"{said} (fallback: {act['fallback']})" if act.get("fallback") else said


def _decision(p: Mapping[str, Any], cast: Cast) -> str:
    # the runner follows a decision that carries a belief with its belief_report: the
    # probabilities are read there, once, not twice in a row
    said = action(p.get("action"), cast, _choice_labels(p), numbers=False)
    return f"{said} ({p.get('kind', 'decision')})"


def _belief_report(p: Mapping[str, Any], cast: Cast) -> str:
    beliefs = p.get("beliefs")
    said = probabilities(beliefs, cast) if isinstance(beliefs, Mapping) else ""
    return f"believes {cast.belief_side}: {said or 'nothing reported'}"


def _llm_call(p: Mapping[str, Any], cast: Cast) -> str:
    what = f"LLM call for {p.get('decision', '?')}"
    if p.get("attempt"):
        what += f" (attempt {p['attempt']})"
    if p.get("ranked"):  # a choice among candidates: their tokens were scored, not written
        out = f"{what}: {p.get('status', '?')}, ranked over {p.get('tokens_in', 0)} prompt tokens"
    else:
        out = f"{what}: {p.get('status', '?')}, {p.get('tokens_in', 0)}→{p.get('tokens_out', 0)} tokens"
    if isinstance(p.get("latency_s"), int | float):
        out += f", {p['latency_s']:.2f} s"
    if p.get("model"):
        out += f" ({p['model']})"
    if p.get("error"):
        out += f": {p['error']}"
    return out


def _invalid(p: Mapping[str, Any], cast: Cast) -> str:
    return f"invalid answer to {p.get('decision', '?')} (attempt {p.get('attempt', '?')}): {p.get('error', '')}"


def _fallback(p: Mapping[str, Any], cast: Cast) -> str:
    out = f"fallback {p.get('policy', '?')}"
    if isinstance(p.get("action"), Mapping):
        out += f": {action(p['action'], cast)}"
    if p.get("error"):
        out += f" (after: {p['error']})"
    return out


def _ground_truth(p: Mapping[str, Any], cast: Cast) -> str:
    seats = p.get("seats") or {}
    kinds = p.get("kinds") or {}
    roles = p.get("roles") or {}
    out = []
    for s in sorted({*seats, *roles}, key=lambda k: int(k) if str(k).isdigit() else 0):
        entry = str(seats.get(s, ""))
        if kinds.get(s) and kinds[s] != entry:
            entry += f" ({kinds[s]})"
        role = f" {roles[s]}" if s in roles else ""
        out.append(f"{cast.name(s)}{role}" + (f" = {entry}" if entry else ""))
    return "who is who: " + ", ".join(out)


def _facts(p: Mapping[str, Any], cast: Cast) -> str:
    facts = [f for f in p.get("facts") or [] if isinstance(f, Mapping)]
    said = ", ".join(
        f"{cast.name(f.get('owner'))} {f.get('key')} {_value(f.get('value'), cast)}" for f in facts
    )
    return f"facts: {said or 'none'}"


def _error(p: Mapping[str, Any], cast: Cast) -> str:
    lines = [ln for ln in str(p.get("traceback", "")).splitlines() if ln.strip()]
    return "runner error: " + (lines[-1].strip() if lines else fields(p, cast))


Line = Callable[[Mapping[str, Any], Cast], str]
RUNNER_LINES: dict[str, Line] = {
    "decision": _decision,
    "belief_report": _belief_report,
    "llm_call": _llm_call,
    "invalid_action": _invalid,
    "fallback": _fallback,
    "ground_truth": _ground_truth,
    "facts": _facts,
    "error": _error,
}
# keys whose numbers a game's text line does not carry: added after the text
TEXT_EXTRAS = frozenset({"beliefs", "belief"})


def cut(text: str, limit: int = MAX_CHARS) -> str:
    """``text`` within ``limit`` characters, cut after a whole word."""
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    space = head.rfind(" ")
    return (head[:space] if space > limit // 2 else head).rstrip(" ,·:") + "…"


def account(event: GameEvent, cast: Cast) -> str:
    """What an event without text says, without its actor's name (the caller shows it)."""
    line = RUNNER_LINES.get(event.type)
    body = line(event.payload, cast) if line else fields(event.payload, cast)
    label = event.type.replace("_", " ")
    if line is None:
        body = f"{label}: {body}" if body else label
    return quote(cut(body))


def extras(event: GameEvent, cast: Cast) -> str:
    """The numbers a text line's payload adds (a belief report's probabilities), in words."""
    found = {k: v for k, v in event.payload.items() if k in TEXT_EXTRAS}
    return quote(cut(fields(found, cast), MAX_CHARS // 2)) if found else ""


def describe(event: GameEvent, cast: Cast, seat: int | None = None) -> str:
    """The one line a person reads for ``event`` (as ``seat`` reads it; ``None``: spectator)."""
    if event.text:
        more = extras(event, cast)
        text = transcript.line(event, seat, cast.names)
        return f"{text}  ({more})" if more else text
    body = account(event, cast)
    return body if event.actor is None else f"{quote(cast.name(event.actor))} {body}"
