"""Avalon baseline bots over seeded 5-player games (spec avalon.md §8.5).

Prints one JSON line per figure: good-side win rate with a Wilson 95% interval, the shares of
each outcome label and the Assassin's hit rate. Every game is played by the match runner
``arena run`` uses (``MatchRunner.play``: same observations, private facts and agent seeds),
with seats filled by side (``by_team``): only the runner sees the deal; bots see nothing but
their own observation. Every answer must be legal: a refused one stops the bench.
``rule`` is the calibrated rule bot (``games.avalon.bots.CALIBRATED``); ``rule_spec`` is the same
bot with the literal spec §8 defaults (``calibration="spec"``, the uncalibrated reference).
``--ablations`` adds the one-knob-at-a-time lines: good seats change one parameter of the
calibrated bot, evil stays calibrated.

    .venv/bin/python bench/avalon_baselines.py [--games 1000] [--seed 2026] [--ablations]
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from arena.results import InvalidActionPolicy, MatchSpec
from arena.runner import MatchRunner
from arena.seeding import derive_seed
from arena.stats import wilson
from games.avalon.bots import CALIBRATED, RandomBot, RuleBot
from games.avalon.measures import label_shares

BOT: dict[str, Any] = {
    "rule": RuleBot,
    "rule_spec": lambda name: RuleBot(name=name, calibration="spec"),
    "random": RandomBot,
}
SEED_NAME = {"rule_spec": "rule"}  # same game and bot seeds as the calibrated line
FIGURES = [
    ("rule", "rule", {}),
    ("rule", "random", {}),
    ("random", "rule", {}),
    ("rule", "rule", {"preset": "avalonbench"}),
    ("rule_spec", "rule_spec", {}),
    ("rule_spec", "random", {}),
    ("rule_spec", "rule_spec", {"preset": "avalonbench"}),
]
# Good seats' parameter changes from the calibration (evil stays calibrated), default 5p rules.
ABLATIONS: list[dict[str, Any]] = [
    {"p_conceal": 0.0},
    {"gamma": 1.0},
    {"delta": 0.05},
    {"hammer_aware": True},
    {"p_conceal": 0.0, "gamma": 1.0, "delta": 0.05},
]
STRICT = InvalidActionPolicy(retries=0, timeout_s=None)


def play(rules: dict[str, Any], game_seed: int, good: Any, evil: Any) -> str:
    """One game, good seats played by ``good()``, evil by ``evil()``; its outcome label."""
    make = {"good": good, "evil": evil}
    spec = MatchSpec(match_id=f"avalon-{game_seed}", game="avalon", rules=rules, seed=game_seed,
                     seats=[], by_team={"good": "good", "evil": "evil"})  # fmt: skip
    result = MatchRunner(spec, lambda side, seat: make[side](), policy=STRICT).play()
    refused = [s.seat for s in result.seats if s.invalid or s.fallbacks]
    if result.status != "finished" or refused:
        raise RuntimeError(f"game {game_seed}: {result.status} {result.reason}, refused {refused}")
    return result.outcome


def summary(name: str, rules: Any, labels: list[str], started: float, seed: int) -> dict[str, Any]:
    games = len(labels)
    wins = labels.count("good_win")
    lo, hi = wilson(wins, games)
    hits = labels.count("evil_win_assassination")
    return {
        "figure": name,
        "rules": rules or "default (5 players, basic roles, hammer, conference)",
        "games": games,
        "good_win_rate": round(wins / games, 4),
        "ci95": [round(lo, 4), round(hi, 4)],
        "labels": {k: round(v, 4) for k, v in label_shares(labels).items()},
        "assassin_hit_rate": round(hits / (hits + wins), 4) if hits + wins else None,
        "seconds": round(time.perf_counter() - started, 2),
        "seed": seed,
        "driver": "arena.runner",
    }


def figure(good: str, evil: str, rules: dict[str, Any], games: int, seed: int) -> dict[str, Any]:
    start = time.perf_counter()
    g, e = SEED_NAME.get(good, good), SEED_NAME.get(evil, evil)
    labels = [
        play(
            rules,
            derive_seed(seed, g, e, json.dumps(rules, sort_keys=True), i),
            lambda: BOT[good](name=g),
            lambda: BOT[evil](name=e),
        )
        for i in range(games)
    ]
    return summary(f"{good}_good_vs_{evil}_evil", rules, labels, start, seed)


def ablation(params: dict[str, Any], games: int, seed: int) -> dict[str, Any]:
    start = time.perf_counter()
    labels = [
        play(
            {},
            derive_seed(seed, "rule", "rule", json.dumps({}, sort_keys=True), i),
            lambda: RuleBot(name="rule", **params),
            lambda: RuleBot(name="rule"),
        )
        for i in range(games)
    ]
    knobs = ",".join(f"{k}={v}" for k, v in params.items())
    line = summary(f"ablation_good_{knobs}_vs_rule_evil", {}, labels, start, seed)
    return {**line, "good_params": params}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--ablations", action="store_true", help="also the one-knob lines")
    args = ap.parse_args()
    print(json.dumps({"rule_params": CALIBRATED}), flush=True)
    for good, evil, rules in FIGURES:
        print(json.dumps(figure(good, evil, rules, args.games, args.seed)), flush=True)
    for params in ABLATIONS if args.ablations else []:
        print(json.dumps(ablation(params, args.games, args.seed)), flush=True)


if __name__ == "__main__":
    main()
