"""Environment speed: steps/s and games/s with random legal actions, one JSON line per figure.

    python bench/env_speed.py [--seconds 10] [--games N] [--only GAME]

Figures:
* every registered game (``arena.registry``) on its default rules, and Werewolf's
  ``secret_mafia6`` variant (TextArena's SecretMafia as played: 6 players, no wolf talk, no
  belief reports; about 32 decisions a game with random legal answers, as there), through the
  PettingZoo AEC API (``env.last()`` + ``env.step()``: the observation text is rendered for
  every step, as an agent would read it);
* the rules engine alone (decisions applied directly, no observation rendering);
* when the PyPI package ``textarena`` is installed (a bench-only extra: ``pip install
  'textarena>=0.7'``): its ``SecretMafia-v0`` (6 players, legal random actions,
  ``get_observation()`` + ``step()`` per step) in the same process, and the ratios of our
  Werewolf figures to its figures: per real decision (``decisions_per_s``: the AEC's ``wait``
  turns of the fixed cycle are steps, not decisions; every TextArena step is a decision) and
  per game (both variants hold about the same decisions a game: ``decisions_per_game``).
  Werewolf is also measured with a fresh env per game (``pettingzoo.make`` each game), as
  TextArena is.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from collections.abc import Callable
from typing import Any

import pettingzoo

import arena  # noqa: F401  (registers the games)
from arena import registry

FILLER = "I have nothing to add yet."
MATCHING = "secret_mafia6"  # the Werewolf variant that plays like TextArena's SecretMafia


def emit(**figure: Any) -> None:
    print(json.dumps(figure), flush=True)


class Clock:
    """Wall and CPU time since it was made: on a shared machine the CPU time of this process
    is the steadier measure (wall time counts the other jobs' turns on the cores)."""

    def __init__(self) -> None:
        self.wall, self.cpu = time.perf_counter(), time.process_time()

    def elapsed(self) -> float:
        return time.perf_counter() - self.wall

    def cpu_s(self) -> float:
        return max(time.process_time() - self.cpu, 1e-9)


def figure(steps: int, games: int, clock: Clock, decisions: int | None = None) -> dict[str, Any]:
    """Steps, games and real decisions (steps that were not a ``wait`` turn) per second of
    wall time, and decisions and games per second of this process's CPU time (``cpu_*``)."""
    decisions = steps if decisions is None else decisions
    elapsed, cpu = clock.elapsed(), clock.cpu_s()
    return {
        "steps": steps,
        "games": games,
        "seconds": round(elapsed, 3),
        "steps_per_s": round(steps / elapsed, 1),
        "decisions_per_s": round(decisions / elapsed, 1),
        "decisions_per_game": round(decisions / max(games, 1), 1),
        "games_per_s": round(games / elapsed, 2),
        "cpu_s": round(cpu, 3),
        "cpu_decisions_per_s": round(decisions / cpu, 1),
        "cpu_games_per_s": round(games / cpu, 2),
        "load_avg_1m": round(os.getloadavg()[0], 2),  # a shared machine: timings are noisy
    }


def random_legal(rng: random.Random, info: dict[str, Any]) -> Any:
    legal = info.get("legal") or []
    if info.get("belief_only") and legal:  # free text is no belief report: refused (issue 15)
        return legal[0]  # pass
    if info.get("free_text") and (not legal or rng.random() < 0.2):
        return FILLER
    if info.get("free_text") and legal:
        return legal[0]  # pass / wait
    k = info.get("max_choices", 1)
    if k > 1:  # e.g. an Avalon team proposal: exactly k distinct seats
        return ",".join(rng.sample(legal, max(info.get("min_choices", 1), 1)))
    return rng.choice(legal)


def pettingzoo_speed(
    env_id: str, rules: dict[str, Any], seconds: float, max_games: int
) -> dict[str, Any]:
    env = pettingzoo.make("aec", env_id, **rules)
    rng = random.Random(0)
    steps = games = decisions = 0
    clock = Clock()
    while clock.elapsed() < seconds and games < max_games:
        env.reset(seed=games)
        for _agent in env.agent_iter():
            _obs, _rew, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            decisions += info.get("decision") != "wait"
            env.step(random_legal(rng, info))
            steps += 1
        games += 1
    return figure(steps, games, clock, decisions)


def pettingzoo_fresh_speed(
    env_id: str, rules: dict[str, Any], seconds: float, max_games: int
) -> dict[str, Any]:
    """As :func:`pettingzoo_speed` with a new env per game (``pettingzoo.make`` each time)."""
    rng = random.Random(0)
    steps = games = decisions = 0
    clock = Clock()
    while clock.elapsed() < seconds and games < max_games:
        env = pettingzoo.make("aec", env_id, **rules)
        env.reset(seed=games)
        for _agent in env.agent_iter():
            _obs, _rew, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            decisions += info.get("decision") != "wait"
            env.step(random_legal(rng, info))
            steps += 1
        env.close()
        games += 1
    return figure(steps, games, clock, decisions)


def engine_speed(
    game: str, rules: dict[str, Any], seconds: float, max_games: int
) -> dict[str, Any]:
    engine = registry.engine_class(game)(rules, seed=0)
    rng = random.Random(0)
    steps = games = 0
    clock = Clock()
    while clock.elapsed() < seconds and games < max_games:
        engine.reset(games)
        while not engine.is_over():
            for seat in engine.current_pending():  # as arena.runner asks, once per state
                if engine.is_over() or seat not in engine.current_pending():
                    continue
                d = engine.current_decision(seat)
                info = {
                    "legal": d.option_ids,
                    "free_text": d.free_text,
                    "min_choices": d.min_choices,
                    "max_choices": d.max_choices,
                    "belief_only": d.belief_only,
                }
                engine.apply(seat, random_legal(rng, info))
                steps += 1
        games += 1
    return figure(steps, games, clock)


def textarena_speed(
    seconds: float, max_games: int, num_players: int = 6, fresh: bool = False
) -> dict[str, Any] | None:
    """TextArena SecretMafia with legal random actions. ``fresh``: a new env per game.

    One env reset game after game slows down as games accumulate (about 3,100 steps/s over
    the first second, under 1,000 over eight here), so both ways are measured.
    """
    try:
        import textarena as ta
    except ImportError:
        return None
    env = ta.make("SecretMafia-v0")
    rng = random.Random(0)
    steps = games = 0
    clock = Clock()
    while clock.elapsed() < seconds and games < max_games:
        if fresh and games:
            env = ta.make("SecretMafia-v0")
        base: Any = env
        while hasattr(base, "env"):
            base = base.env
        env.reset(num_players=num_players, seed=games)
        done = False
        guard = 0
        while not done and guard < 5000:
            pid, _obs = env.get_observation()
            action = _mafia_action(base, pid, rng)
            done, _info = env.step(action=action)
            steps += 1
            guard += 1
        env.close()
        games += 1
    return figure(steps, games, clock)


def _mafia_action(base: Any, pid: int, rng: random.Random) -> str:
    """A legal random action for TextArena's SecretMafia, read from its phase and roles."""
    phase = base.phase.name
    alive = list(base.state.game_state["alive_players"])
    if phase == "DAY_DISCUSSION":
        return FILLER
    if phase == "NIGHT_MAFIA":
        targets = [p for p in alive if base.player_roles[p] != "Mafia"]
    else:
        targets = [p for p in alive if p != pid]
    return f"[{rng.choice(targets)}]"


def cases() -> list[tuple[str, str, str, dict[str, Any]]]:
    """(game, label, env id, rules): every registered game on its default rules, and
    Werewolf's ``secret_mafia6`` variant (TextArena's SecretMafia as played)."""
    out: list[tuple[str, str, str, dict[str, Any]]] = []
    for game, info in sorted(registry.games().items()):
        out.append((game, info.env_id, info.env_id, {}))
        if game == "werewolf" and MATCHING in info.variants:
            out.append((game, f"{info.env_id} {MATCHING}", info.env_id, info.variants[MATCHING]))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=8.0, help="time budget per figure")
    parser.add_argument("--games", type=int, default=100_000, help="max games per figure")
    parser.add_argument(
        "--only", default=None, help="measure only this game id (e.g. werewolf) beside TextArena"
    )
    args = parser.parse_args()

    ours: dict[str, dict[str, Any]] = {}  # "<label> <mode>" -> figure, for the ratios
    for game, label, env_id, rules in cases():
        if args.only and game != args.only:
            continue
        runs: list[tuple[str, Callable[..., dict[str, Any]], str]] = [
            ("pettingzoo_aec", pettingzoo_speed, env_id),
            ("engine_only", engine_speed, game),
        ]
        if game == "werewolf":  # like TextArena's figure that the target names
            runs.insert(1, ("pettingzoo_aec_fresh_env", pettingzoo_fresh_speed, env_id))
        for mode, fn, target in runs:
            fig = fn(target, rules, args.seconds, args.games)
            emit(figure=f"{label} {mode}", env=env_id, rules=rules, mode=mode, **fig)
            if label.endswith(MATCHING):
                ours[f"{label} {mode}"] = fig

    for fresh in (False, True):
        ta_fig = textarena_speed(args.seconds, args.games, fresh=fresh)
        how = "fresh env per game" if fresh else "one env, reset per game"
        if ta_fig is None:
            emit(
                figure="textarena SecretMafia-v0",
                skipped="textarena not installed (pip install textarena)",
            )
            return
        emit(figure=f"textarena SecretMafia-v0 ({how})", env="SecretMafia-v0", **ta_fig)
        if not fresh:
            continue  # the targets name a fresh env per game, as TextArena is used
        for name, fig in ours.items():
            for unit in (
                "cpu_decisions_per_s",
                "cpu_games_per_s",
                "decisions_per_s",
                "games_per_s",
            ):
                emit(
                    figure=f"ratio {name} / textarena SecretMafia ({how}) {unit}",
                    ratio=round(fig[unit] / ta_fig[unit], 3),
                    target=">= 1.0",
                )


if __name__ == "__main__":
    main()
