"""The leak fuzz of the conformance checks (:mod:`arena.testing`): over random legal games, no
event a seat can see, no state it is given and no text it reads states a private fact outside
that fact's audience (the engine's ``private_facts()``).

A statement is found structurally: the scalar fields of a payload or state dict that names a
``seat``, and ``{name: {"<seat>": value}}`` tables; it leaks when its value is a hidden fact's
value of that owner under a name of that fact. Long distinctive values are also looked for
verbatim in the rendered text.
"""

from __future__ import annotations

import re
from typing import Any

from arena import registry
from arena.engine import RulesEngine
from arena.runner import MAX_DECISIONS
from arena.types import PrivateFact

LEAK_GAMES = 4
STATE_EVERY = 3  # steps between two checks of every seat's state (events: every step)
MAX_STEPS = MAX_DECISIONS  # the runner's own guard against engines that never end


class ConformanceError(AssertionError):
    """A game failed a conformance check; the message says which and why."""


def expect(condition: object, game: str, what: str) -> None:
    if not condition:
        raise ConformanceError(f"{game}: {what}")


def _scalar(value: Any) -> bool:
    return isinstance(value, str | int | float) and not isinstance(value, bool)


def _name(key: str) -> str:
    """A payload or state key as a fact name: 'known_roles' -> 'role', 'reservation' stays."""
    key = key.lower().removeprefix("known_").removeprefix("your_").removeprefix("my_")
    return key[:-1] if key.endswith("s") and not key.endswith("ss") else key


def statements(data: Any) -> list[tuple[int, str, Any]]:
    """(owner seat, name, value) claims a payload or state makes about a seat: the scalar
    fields of a dict that names a ``seat``, and ``{name: {"<seat>": value}}`` tables."""
    out: list[tuple[int, str, Any]] = []
    if isinstance(data, dict):
        seat = data.get("seat")
        if isinstance(seat, int) and not isinstance(seat, bool):
            out += [(seat, _name(str(k)), v) for k, v in data.items() if k != "seat" and _scalar(v)]
        for key, value in data.items():
            if (
                isinstance(value, dict)
                and value
                and all(re.fullmatch(r"\d+", str(k)) for k in value)
            ):
                out += [(int(k), _name(str(key)), v) for k, v in value.items() if _scalar(v)]
            out += statements(value)
    elif isinstance(data, list | tuple):
        for item in data:
            out += statements(item)
    return out


def fact_names(fact: PrivateFact) -> set[str]:
    names = {_name(fact.kind), _name(fact.key)}
    names |= {_name(part) for part in re.split(r"[:_]", f"{fact.kind}_{fact.key}") if part}
    return names - {"val", "private", "fact", "persona"}


def leaks(facts: list[PrivateFact], seat: int, data: Any) -> list[tuple[Any, ...]]:
    hidden: dict[tuple[int, Any], list[PrivateFact]] = {}
    for f in facts:
        if not f.known_by(seat) and _scalar(f.value):
            hidden.setdefault((f.owner, f.value), []).append(f)
    found = []
    for owner, name, value in statements(data):
        for f in hidden.get((owner, value), []):
            if name in fact_names(f):
                found.append((seat, owner, f.kind, f.key, value))
    return found


def distinctive(fact: PrivateFact) -> bool:
    """String values long enough that seeing them verbatim can only mean the fact leaked."""
    return isinstance(fact.value, str) and len(fact.value) >= 12 and " " in fact.value


def check_seat(engine: RulesEngine[Any], seat: int, done: dict[int, int], state: bool) -> None:
    facts = engine.current_facts()
    log = engine.visible_log(seat)
    new = log[done.get(seat, 0) :]
    done[seat] = len(log)
    game = engine.game
    for e in new:
        if e.visibility.visible_to(seat):
            found = leaks(facts, seat, e.payload)
            expect(not found, game, f"a {e.type!r} event shows a private fact: {found[:3]}")
    if state:
        found = leaks(facts, seat, engine.state(seat))
        expect(not found, game, f"seat {seat}'s state shows a private fact: {found[:3]}")


def check_text(engine: RulesEngine[Any], seat: int) -> None:
    text = engine.render(seat)
    for f in engine.current_facts():
        if distinctive(f) and not f.known_by(seat):
            leaked = str(f.value) in text
            expect(not leaked, engine.game, f"seat {seat}'s text shows {(f.owner, f.kind, f.key)}")


def check_no_leaks(game: str, rules: dict[str, Any], games: int = LEAK_GAMES) -> None:
    """Over ``games`` random legal games, no event a seat can see, no state it is given and no
    text it reads states a private fact outside that fact's audience."""
    cls = registry.engine_class(game)
    checked = 0
    for g in range(games):
        engine = cls(rules, seed=1000 + g)
        checked += sum(1 for f in engine.current_facts() if not f.public)
        seen: dict[int, int] = {}
        steps = 0
        while not engine.is_over():
            for seat in range(engine.n_seats):
                check_seat(engine, seat, seen, state=steps % STATE_EVERY == 0)
            if steps % 25 == 0:
                for seat in range(engine.n_seats):
                    check_text(engine, seat)
            seat = engine.current_pending()[0]
            engine.apply(seat, engine.fallback(seat))  # random legal, seeded by the engine
            steps += 1
            expect(steps < MAX_STEPS, game, f"no end after {MAX_STEPS} legal steps")
        for seat in range(engine.n_seats):
            check_seat(engine, seat, seen, state=True)
            check_text(engine, seat)
    expect(checked, game, "the game deals no private fact: nothing for the fuzz to check")
