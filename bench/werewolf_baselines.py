"""Werewolf baseline bots on classic8: win rates and measures of four seatings.

Plays ``--games`` seeded matches (seeds 0..games-1, engine seed = match seed) for each of
  rule village vs random wolves, random village vs rule wolves, rule vs rule, random vs random
through the match runner ``arena run`` uses (``MatchRunner.play``: the same record, observations,
private facts and agent seeds; seats filled by team) and prints one JSON line per figure:
village win rate (95% CI), mean game length in days, VA (and chance), SeerSurv, plus a few
more §14 measures. Every answer must be legal: a refused one stops the bench. Usage:

    .venv/bin/python bench/werewolf_baselines.py --games 1000 [--preset classic8]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.results import InvalidActionPolicy, MatchSpec
from arena.runner import MatchRunner
from games.werewolf.bots import BOTS
from games.werewolf.config import ROLE_TEAM
from games.werewolf.measures import match_measures
from games.werewolf.measures_agg import aggregate

SEATINGS = [("rule", "random"), ("random", "rule"), ("rule", "rule"), ("random", "random")]
FIGURES = [
    "village_win", "draw", "length_days", "va", "va_chance", "va_lift", "va|seer", "exile_acc",
    "no_exile", "wolf_escape", "seer_surv", "seer_n1", "seer_life", "seer_info_use",
    "save_rate", "da_nt|role=villager", "auc_nt|role=villager", "messages_per_player",
]  # fmt: skip


# A refused answer falls back at once and is counted; the batch then fails on it.
STRICT = InvalidActionPolicy(retries=0, timeout_s=None)


def batch(rules: dict, village: str, wolves: str, games: int) -> list[dict]:
    by_team = {t: village if t == "village" else wolves for t in set(ROLE_TEAM.values())}
    out = []
    for seed in range(games):
        spec = MatchSpec(match_id=f"werewolf-{seed}", game="werewolf", rules=rules, seed=seed,
                         seats=[], by_team=by_team)  # fmt: skip
        runner = MatchRunner(spec, lambda entry, seat: BOTS[entry](), policy=STRICT)
        result = runner.play()
        refused = [(s.seat, s.invalid) for s in result.seats if s.invalid or s.fallbacks]
        if result.status != "finished" or refused:
            raise RuntimeError(f"match {seed}: {result.status} {result.reason}, refused {refused}")
        agents = {s.seat: s.agent for s in result.seats}
        out.append(match_measures(runner.recorder.events, agents))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--preset", default="classic8")
    ap.add_argument("--boot", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    args = ap.parse_args()
    rules = {"preset": args.preset}
    for village, wolves in SEATINGS:
        started = time.perf_counter()
        matches = batch(rules, village, wolves, args.games)
        elapsed = time.perf_counter() - started
        agg = aggregate(matches, n_boot=args.boot, seed=args.seed)
        seating = f"{village}_village_vs_{wolves}_wolves"
        for name in FIGURES:
            fig = agg["figures"].get(name)
            if fig is None:
                continue
            line = {
                "bench": "werewolf_baselines", "preset": args.preset, "seating": seating,
                "figure": name, "value": fig["value"], "ci95": fig["ci"], "n": fig["n"],
                "method": fig["method"], "games": agg["n_matches"],
            }  # fmt: skip
            print(json.dumps(line), flush=True)
        print(json.dumps({"bench": "werewolf_baselines", "preset": args.preset,
                          "seating": seating, "figure": "seconds", "value": round(elapsed, 1),
                          "games": agg["n_matches"], "bootstrap_seed": args.seed}), flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
