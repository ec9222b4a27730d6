"""The conformance suite: every registered game, every catalog variant, with no per-game code.

Parametrised over ``arena.registry.games()`` and each game's ``variants`` (a game without
variants runs its default rules), so registering a game is enough to be checked:

* PettingZoo ``api_test`` and ``seed_test`` on the env;
* a ``max_cycles`` cap: the env truncates every agent within the cap, and without a cap a
  game of legal actions terminates;
* determinism: the runner plays the same match twice alike, and replaying its applied
  actions on a fresh engine of the same (rules, seed) rebuilds every event and the outcome;
* ``snapshot()``/``restore()``: restored mid-game (also into another engine), the rest of the
  match gives the same events as the uninterrupted one, and every seat's view is as it was;
* every registered bot plays legally under the runner: zero refused answers, zero fallbacks,
  over several seeds: each bot in every seat (first variant), and all of the game's bots
  seated in rotation (every variant);
* a leak fuzz at the engine level: over random legal games, no event a seat can see and no
  state it is given states a private fact outside that fact's audience (``private_facts()``).

Per-seat view equality and declared event types are checked by the sibling suites
``test_conformance_views.py`` and ``test_conformance_events.py``. How to add a game:
``docs/adding-a-game.md``.
"""

from __future__ import annotations

import re
from typing import Any

import pettingzoo
import pytest
from pettingzoo.test import api_test, seed_test

from arena import registry
from arena.agents import factory
from arena.agents.base import Agent
from arena.engine import RulesEngine
from arena.types import Action, PrivateFact
from tests.builders import IDS, MAX_STEPS, VARIANTS
from tests.games.played import play

API_STEPS, SEED_STEPS = 120, 60  # per api_test / seed_test, spread over the agents
BOT_SEEDS = (0, 1, 2)
LEAK_GAMES = 4
STATE_EVERY = 3  # steps between two checks of every seat's state (events: every step)


def bots() -> list[tuple[str, str, dict[str, Any], str]]:
    """Each bot alone on its game's first variant (every variant: the mixed test below)."""
    out = []
    for game, info in registry.games().items():
        name, rules = next(iter((info.variants or {"default": {}}).items()))
        out += [(game, name, rules, bot) for bot in sorted(registry.bots(game))]
    return out


BOTS = bots()
BOT_IDS = [f"{g}-{v}-{b}" for g, v, _, b in BOTS]


def make_env(game: str, rules: dict[str, Any], **env_args: Any) -> Any:
    return pettingzoo.make("aec", registry.get(game).env_id, **rules, **env_args)


def bot(game: str, kind: str) -> Agent:
    return factory.build(kind, kind, game)


def lineup(game: str) -> list[str]:
    """The game's bots in a fixed order, seated in rotation for mixed matches."""
    return sorted(registry.bots(game))


def played_with_actions(game: str, rules: dict[str, Any], seed: int) -> tuple[Any, Any]:
    """A mixed bot match through the runner, and its applied actions (fallbacks included)
    rebuilt from the record: the record must be enough to replay the match."""
    kinds = lineup(game)
    n = registry.engine_class(game)(rules, seed=seed).n_seats
    seats = [kinds[s % len(kinds)] for s in range(n)]
    match = play(game, rules, seed, lambda entry, seat: bot(game, entry), seats=seats, strict=False)
    return match, match.actions()


def dump(engine: RulesEngine[Any]) -> list[dict[str, Any]]:
    return [e.model_dump(mode="json") for e in engine.log]


def views(engine: RulesEngine[Any]) -> dict[int, list[dict[str, Any]]]:
    return {
        s: [e.model_dump(mode="json") for e in engine.visible_log(s)] for s in range(engine.n_seats)
    }


def replay(engine: RulesEngine[Any], actions: list[tuple[int, Action]]) -> None:
    for seat, action in actions:
        engine.apply(seat, action)


# -- PettingZoo -------------------------------------------------------------------------
def cycles(env: Any, steps: int) -> int:
    """Cycles worth about ``steps`` steps: a cycle is one step per agent."""
    return max(8, steps // len(env.possible_agents))


@pytest.mark.parametrize(("game", "variant", "rules"), VARIANTS, ids=IDS)
def test_pettingzoo_api_test(game: str, variant: str, rules: dict[str, Any]) -> None:
    env = make_env(game, rules)
    api_test(env, num_cycles=cycles(env, API_STEPS))


@pytest.mark.parametrize(("game", "variant", "rules"), VARIANTS, ids=IDS)
def test_pettingzoo_seed_test(game: str, variant: str, rules: dict[str, Any]) -> None:
    n = cycles(make_env(game, rules), SEED_STEPS)
    seed_test(lambda: make_env(game, rules), num_cycles=n)


def step_legally(env: Any, max_iter: int) -> tuple[int, dict[str, dict[str, Any]]]:
    """Step ``env`` with legal actions (the engine's random-legal choice) until every agent
    is done: (live steps taken, final infos)."""
    engine = env.unwrapped.engine
    live = 0
    final: dict[str, dict[str, Any]] = {}
    for agent in env.agent_iter(max_iter=max_iter):
        _, _, term, trunc, info = env.last()
        if term or trunc:
            final[agent] = info
            env.step(None)
            continue
        live += 1
        seat = env.unwrapped._seat[agent]
        env.step(engine.fallback(seat) if engine.owes(seat) else "wait")
    return live, final


@pytest.mark.parametrize(("game", "variant", "rules"), VARIANTS, ids=IDS)
def test_env_truncates_within_max_cycles_and_terminates_without(
    game: str, variant: str, rules: dict[str, Any]
) -> None:
    for cap in (1, 3):
        env = make_env(game, rules, max_cycles=cap)
        env.reset(seed=7)
        n = len(env.possible_agents)
        live, final = step_legally(env, max_iter=10 * cap * n + 10 * n)
        assert live <= cap * n, (cap, live)
        assert set(final) == set(env.possible_agents) and not env.agents  # everyone left
        if not env.unwrapped.engine.is_over():
            assert {i["outcome"] for i in final.values()} == {"truncated"}
    env = make_env(game, rules)
    env.reset(seed=7)
    live, final = step_legally(env, max_iter=MAX_STEPS)
    assert env.unwrapped.engine.is_over() and not env.agents
    assert "truncated" not in {i["outcome"] for i in final.values()}


# -- determinism and snapshots ------------------------------------------------------------
@pytest.mark.parametrize(("game", "variant", "rules"), VARIANTS, ids=IDS)
def test_same_rules_seed_and_decisions_give_the_same_events(
    game: str, variant: str, rules: dict[str, Any]
) -> None:
    match, actions = played_with_actions(game, rules, seed=3)
    again, _ = played_with_actions(game, rules, seed=3)
    assert [e.comparable() for e in match.events] == [e.comparable() for e in again.events]
    fresh = registry.engine_class(game)(rules, seed=3)
    replay(fresh, actions)
    assert fresh.is_over() and dump(fresh) == dump(match.engine)
    assert fresh.outcome() == match.engine.outcome()
    other, _ = played_with_actions(game, rules, seed=4)
    assert dump(other.engine) != dump(match.engine)  # the seed matters


@pytest.mark.parametrize(("game", "variant", "rules"), VARIANTS, ids=IDS)
def test_snapshot_restore_mid_game_continues_exactly(
    game: str, variant: str, rules: dict[str, Any]
) -> None:
    match, actions = played_with_actions(game, rules, seed=5)
    half = len(actions) // 2
    engine = registry.engine_class(game)(rules, seed=5)
    replay(engine, actions[:half])
    blob, seen = engine.snapshot(), views(engine)
    replay(engine, actions[half:])
    uninterrupted = dump(engine)
    assert uninterrupted == dump(match.engine)
    engine.restore(blob)
    assert views(engine) == seen
    replay(engine, actions[half:])
    assert dump(engine) == uninterrupted and engine.outcome() == match.engine.outcome()
    elsewhere = registry.engine_class(game)(rules, seed=0)  # another deal, replaced whole
    elsewhere.restore(blob)
    assert views(elsewhere) == seen
    replay(elsewhere, actions[half:])
    assert dump(elsewhere) == uninterrupted


# -- bots ---------------------------------------------------------------------------------
@pytest.mark.parametrize(("game", "variant", "rules", "kind"), BOTS, ids=BOT_IDS)
def test_every_registered_bot_plays_legally_under_the_runner(
    game: str, variant: str, rules: dict[str, Any], kind: str
) -> None:
    for seed in BOT_SEEDS:
        # strict: one refused answer or fallback fails, with the runner's error text
        match = play(game, rules, seed, lambda entry, seat: bot(game, kind))
        assert match.result.status == "finished" and match.engine.is_over()
        assert all(s.invalid == 0 and s.fallbacks == 0 for s in match.result.seats)


@pytest.mark.parametrize(("game", "variant", "rules"), VARIANTS, ids=IDS)
def test_the_games_bots_play_legally_together(
    game: str, variant: str, rules: dict[str, Any]
) -> None:
    kinds = lineup(game)
    for seed in BOT_SEEDS:
        n = registry.engine_class(game)(rules, seed=seed).n_seats
        seats = [kinds[(s + seed) % len(kinds)] for s in range(n)]
        match = play(game, rules, seed, lambda entry, seat: bot(game, entry), seats=seats)
        assert all(s.invalid == 0 and s.fallbacks == 0 for s in match.result.seats)


# -- leak fuzz ----------------------------------------------------------------------------
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
    for e in new:
        if e.visibility.visible_to(seat):
            assert not leaks(facts, seat, e.payload), (e.type, leaks(facts, seat, e.payload))
    if state:
        assert not leaks(facts, seat, engine.state(seat)), leaks(facts, seat, engine.state(seat))


def check_text(engine: RulesEngine[Any], seat: int) -> None:
    text = engine.render(seat)
    for f in engine.current_facts():
        if distinctive(f) and not f.known_by(seat):
            assert str(f.value) not in text, (seat, f.owner, f.kind, f.key)


@pytest.mark.parametrize(("game", "variant", "rules"), VARIANTS, ids=IDS)
def test_no_seat_is_shown_a_private_fact_outside_its_audience(
    game: str, variant: str, rules: dict[str, Any]
) -> None:
    cls = registry.engine_class(game)
    checked = 0
    for g in range(LEAK_GAMES):
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
            assert steps < MAX_STEPS
        for seat in range(engine.n_seats):
            check_seat(engine, seat, seen, state=True)
            check_text(engine, seat)
    assert checked, "the game deals no private fact: nothing for the fuzz to check"
