"""Avalon baseline bots over seeded 5-player games (spec avalon.md §8.5).

Prints one JSON line per figure: good-side win rate with a Wilson 95% interval, the shares of
each outcome label and the Assassin's hit rate. Seats are filled by side: the harness sees the
engine's deal only to choose which bot plays each seat; bots see nothing but their own observation.
``rule`` is the calibrated rule bot (``games.avalon.bots.CALIBRATED``); ``rule_spec`` is the same
bot with the literal spec §8 defaults (``calibration="spec"``, the uncalibrated reference).

    .venv/bin/python bench/avalon_baselines.py [--games 1000] [--seed 2026]
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from arena.seeding import derive_seed
from arena.stats import wilson
from games.avalon.bots import CALIBRATED, RandomBot, RuleBot
from games.avalon.measures import label_shares
from games.avalon.simulate import play

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


def figure(good: str, evil: str, rules: dict[str, Any], games: int, seed: int) -> dict[str, Any]:
    labels: list[str] = []
    start = time.perf_counter()
    for i in range(games):
        g, e = SEED_NAME.get(good, good), SEED_NAME.get(evil, evil)
        game_seed = derive_seed(seed, g, e, json.dumps(rules, sort_keys=True), i)

        def factory(s: int, role: str, side: str) -> Any:
            name = good if side == "good" else evil
            return BOT[name](name=SEED_NAME.get(name, name))

        eng, _ = play(rules, game_seed, factory, with_events=False)
        outcome = eng.outcome()
        assert outcome is not None
        labels.append(outcome.label)
    wins = labels.count("good_win")
    lo, hi = wilson(wins, games) or (0.0, 0.0)
    hits = labels.count("evil_win_assassination")
    return {
        "figure": f"{good}_good_vs_{evil}_evil",
        "rules": rules or "default (5 players, basic roles, hammer, conference)",
        "games": games,
        "good_win_rate": round(wins / games, 4),
        "ci95": [round(lo, 4), round(hi, 4)],
        "labels": {k: round(v, 4) for k, v in label_shares(labels).items()},
        "assassin_hit_rate": round(hits / (hits + wins), 4) if hits + wins else None,
        "seconds": round(time.perf_counter() - start, 2),
        "seed": seed,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args()
    print(json.dumps({"rule_params": CALIBRATED}), flush=True)
    for good, evil, rules in FIGURES:
        print(json.dumps(figure(good, evil, rules, args.games, args.seed)), flush=True)


if __name__ == "__main__":
    main()
