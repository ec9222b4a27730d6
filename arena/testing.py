"""Conformance checks for a game plug-in, importable by a game that lives outside this repository
(the way PettingZoo ships ``api_test``)::

    from arena import testing

    testing.check_game("mygame")                   # every check, on each of the game's variants
    testing.check_game("mygame", {"players": 6})   # every check, on these rules

Each ``check_*`` function takes a registered game (short id or versioned env id) and its rules,
and raises :class:`ConformanceError` naming the game, the rules and what went wrong:

* :func:`check_registration`: the env id carries a version (``arena/MyGame-v0``) and both names
  find the game;
* :func:`check_api`, :func:`check_seeding`: PettingZoo ``api_test`` and ``seed_test``;
* :func:`check_call_order`: ``step``/``observe`` before ``reset`` is a clear error;
* :func:`check_max_cycles`: the env truncates every agent within ``max_cycles``, and without a
  cap a game of legal actions terminates;
* :func:`check_determinism`: the same (rules, seed, decisions) give the same events, and the
  record's actions replayed on a fresh engine rebuild the match;
* :func:`check_snapshot_restore`: restored mid-game (also into another engine), the rest of the
  match is the same and every seat's view is as it was;
* :func:`check_bot`, :func:`check_bots_together`: registered bots play legally under the runner;
* :func:`check_no_leaks` (:mod:`arena.conformance_leaks`): no event or state a seat is given
  states a private fact outside its audience.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from arena import registry
from arena.agents import factory
from arena.agents.base import Agent
from arena.conformance_leaks import ConformanceError, check_no_leaks, expect
from arena.engine import RulesEngine
from arena.env import EnvOrderError
from arena.events import Event
from arena.results import InvalidActionPolicy, MatchResult, MatchSpec
from arena.runner import MAX_DECISIONS, MatchRunner
from arena.types import Action

__all__ = [
    "ConformanceError",
    "check_api",
    "check_bot",
    "check_bots_together",
    "check_call_order",
    "check_determinism",
    "check_game",
    "check_max_cycles",
    "check_no_leaks",
    "check_registration",
    "check_seeding",
    "check_snapshot_restore",
    "variants",
]

API_STEPS, SEED_STEPS = 120, 60  # per api_test / seed_test, spread over the agents
BOT_SEEDS = (0, 1, 2)
MAX_STEPS = MAX_DECISIONS  # the runner's own guard against engines that never end
VERSIONED = re.compile(r"^[\w.-]+/[A-Za-z0-9_]+-v\d+$")  # "arena/Werewolf-v0"
STRICT = InvalidActionPolicy(retries=0, timeout_s=None)  # one refusal falls back: a failure
LENIENT = InvalidActionPolicy(timeout_s=None)


def variants(game: str) -> dict[str, dict[str, Any]]:
    """The game's named rule sets (its default rules when it declares none)."""
    return dict(registry.get(game).variants or {"default": {}})


def make_env(game: str, rules: dict[str, Any], **env_args: Any) -> Any:
    import pettingzoo

    return pettingzoo.make("aec", registry.get(game).env_id, **rules, **env_args)


# -- the env ------------------------------------------------------------------------------
def check_registration(game: str) -> None:
    info = registry.get(game)
    expect(VERSIONED.match(info.env_id), game, f"env id {info.env_id!r} carries no -vN version")
    expect(registry.get(info.env_id) == info, game, f"{info.env_id!r} does not find the game")


def _cycles(env: Any, steps: int) -> int:
    """Cycles worth about ``steps`` steps: a cycle is one step per agent."""
    return max(8, steps // len(env.possible_agents))


def check_api(game: str, rules: dict[str, Any]) -> None:
    from pettingzoo.test import api_test

    env = make_env(game, rules)
    api_test(env, num_cycles=_cycles(env, API_STEPS))


def check_seeding(game: str, rules: dict[str, Any]) -> None:
    from pettingzoo.test import seed_test

    n = _cycles(make_env(game, rules), SEED_STEPS)
    seed_test(lambda: make_env(game, rules), num_cycles=n)


def check_call_order(game: str, rules: dict[str, Any]) -> None:
    for call in ("step", "observe"):
        env = make_env(game, rules)
        try:
            env.step(None) if call == "step" else env.observe(env.possible_agents[0])
        except EnvOrderError as err:
            expect("reset()" in str(err), game, f"{call} before reset: unclear error {err!r}")
        else:
            raise ConformanceError(f"{game}: {call}() before reset() raised nothing")


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
        seat = env.unwrapped.possible_agents.index(agent)
        env.step(engine.fallback(seat) if engine.owes(seat) else "wait")
    return live, final


def check_max_cycles(game: str, rules: dict[str, Any]) -> None:
    for cap in (1, 3):
        env = make_env(game, rules, max_cycles=cap)
        env.reset(seed=7)
        n = len(env.possible_agents)
        live, final = step_legally(env, max_iter=10 * cap * n + 10 * n)
        expect(live <= cap * n, game, f"max_cycles={cap}: {live} live steps for {n} agents")
        everyone_left = set(final) == set(env.possible_agents) and not env.agents
        expect(everyone_left, game, f"max_cycles={cap}: not every agent was done")
        if not env.unwrapped.engine.is_over():
            outcomes = {i["outcome"] for i in final.values()}
            expect(outcomes == {"truncated"}, game, f"max_cycles={cap}: outcomes {outcomes}")
    env = make_env(game, rules)
    env.reset(seed=7)
    live, final = step_legally(env, max_iter=MAX_STEPS)
    expect(env.unwrapped.engine.is_over() and not env.agents, game, "legal play never ended")
    expect("truncated" not in {i["outcome"] for i in final.values()}, game, "truncated uncapped")


# -- matches under the runner ---------------------------------------------------------------
def play_bots(
    game: str, rules: dict[str, Any], seed: int, seats: list[str], strict: bool = True
) -> tuple[MatchRunner, MatchResult]:
    """One match of registered bots (``seats``: a bot kind per seat) through the runner."""

    def build(kind: str, seat: int) -> Agent:
        return factory.build(kind, kind, game)

    spec = MatchSpec(match_id=f"{game}-{seed}", game=game, rules=rules, seed=seed, seats=seats)
    runner = MatchRunner(spec, build, None, STRICT if strict else LENIENT)
    return runner, runner.play()


def refusals(events: Iterable[Event]) -> list[dict[str, Any]]:
    return [e.payload for e in events if e.type in ("invalid_action", "fallback")]


def applied_actions(events: Iterable[Event]) -> list[tuple[int, Action]]:
    """The applied actions rebuilt from a match record, to replay the match on an engine."""
    out = []
    for e in events:
        if e.type == "decision" and e.actor is not None:
            a = e.payload["action"]
            action = Action(
                seat=e.actor,
                choices=tuple(a.get("choices", ())),
                text=a.get("text"),
                belief=a.get("belief"),
                fallback=a.get("fallback"),
            )
            out.append((e.actor, action))
    return out


def lineup(game: str) -> list[str]:
    """The game's bots in a fixed order, seated in rotation for mixed matches."""
    return sorted(registry.bots(game))


def _mixed(game: str, rules: dict[str, Any], seed: int) -> tuple[MatchRunner, list[Any]]:
    kinds = lineup(game)
    n = registry.engine_class(game)(rules, seed=seed).n_seats
    runner, _ = play_bots(game, rules, seed, [kinds[s % len(kinds)] for s in range(n)], False)
    return runner, applied_actions(runner.recorder.events)


def _dump(engine: RulesEngine[Any]) -> list[dict[str, Any]]:
    return [e.model_dump(mode="json") for e in engine.log]


def _views(engine: RulesEngine[Any]) -> dict[int, list[dict[str, Any]]]:
    return {
        s: [e.model_dump(mode="json") for e in engine.visible_log(s)] for s in range(engine.n_seats)
    }


def _replay(engine: RulesEngine[Any], actions: list[tuple[int, Action]]) -> None:
    for seat, action in actions:
        engine.apply(seat, action)


def check_determinism(game: str, rules: dict[str, Any], seed: int = 3) -> None:
    match, actions = _mixed(game, rules, seed)
    again, _ = _mixed(game, rules, seed)
    same = [e.comparable() for e in match.recorder.events] == [
        e.comparable() for e in again.recorder.events
    ]
    expect(same, game, f"seed {seed}: two runs of the same match differ")
    fresh = registry.engine_class(game)(rules, seed=seed)
    _replay(fresh, actions)
    rebuilt = fresh.is_over() and _dump(fresh) == _dump(match.engine)
    expect(rebuilt, game, f"seed {seed}: the record's actions do not rebuild the match")
    expect(fresh.outcome() == match.engine.outcome(), game, "replayed outcome differs")
    other, _ = _mixed(game, rules, seed + 1)
    expect(_dump(other.engine) != _dump(match.engine), game, "the seed changes nothing")


def check_snapshot_restore(game: str, rules: dict[str, Any], seed: int = 5) -> None:
    match, actions = _mixed(game, rules, seed)
    half = len(actions) // 2
    engine = registry.engine_class(game)(rules, seed=seed)
    _replay(engine, actions[:half])
    blob, seen = engine.snapshot(), _views(engine)
    _replay(engine, actions[half:])
    uninterrupted = _dump(engine)
    expect(uninterrupted == _dump(match.engine), game, "replay differs from the match")
    engine.restore(blob)
    expect(_views(engine) == seen, game, "a restored engine shows other views")
    _replay(engine, actions[half:])
    same_end = _dump(engine) == uninterrupted and engine.outcome() == match.engine.outcome()
    expect(same_end, game, "restored mid-game, the rest of the match differs")
    elsewhere = registry.engine_class(game)(rules, seed=0)  # another deal, replaced whole
    elsewhere.restore(blob)
    expect(_views(elsewhere) == seen, game, "restored into another engine: other views")
    _replay(elsewhere, actions[half:])
    expect(_dump(elsewhere) == uninterrupted, game, "restored into another engine: differs")


def _legal(game: str, rules: dict[str, Any], seed: int, seats: list[str]) -> None:
    runner, result = play_bots(game, rules, seed, seats)
    where = f"rules {rules}, seed {seed}, seats {seats}"
    expect(result.status == "finished", game, f"{where}: {result.status} ({result.reason})")
    expect(runner.engine.is_over(), game, f"{where}: the engine is not over")
    refused = refusals(runner.recorder.events)
    expect(not refused, game, f"{where}: refused answers {refused[:3]}")


def check_bot(
    game: str, rules: dict[str, Any], kind: str, seeds: Iterable[int] = BOT_SEEDS
) -> None:
    """Bot ``kind`` in every seat plays legally: zero refused answers, zero fallbacks."""
    for seed in seeds:
        n = registry.engine_class(game)(rules, seed=seed).n_seats
        _legal(game, rules, seed, [kind] * n)


def check_bots_together(game: str, rules: dict[str, Any], seeds: Iterable[int] = BOT_SEEDS) -> None:
    """All of the game's bots seated in rotation play legally."""
    kinds = lineup(game)
    for seed in seeds:
        n = registry.engine_class(game)(rules, seed=seed).n_seats
        _legal(game, rules, seed, [kinds[(s + seed) % len(kinds)] for s in range(n)])


# -- everything -----------------------------------------------------------------------------
RULES_CHECKS: tuple[Callable[[str, dict[str, Any]], None], ...] = (
    check_api,
    check_seeding,
    check_call_order,
    check_max_cycles,
    check_determinism,
    check_snapshot_restore,
    check_bots_together,
    check_no_leaks,
)


def check_game(game: str, rules: dict[str, Any] | None = None) -> list[str]:
    """Every check on ``rules`` (default: each of the game's variants); each registered bot
    alone on the first rule set. Returns the names of the checks that ran."""
    check_registration(game)
    rule_sets = [rules] if rules is not None else list(variants(game).values())
    ran = ["check_registration"]
    for ruleset in rule_sets:
        for check in RULES_CHECKS:
            check(game, ruleset)
            ran.append(check.__name__)
    for kind in lineup(game):
        check_bot(game, rule_sets[0], kind)
        ran.append(f"check_bot[{kind}]")
    return ran
