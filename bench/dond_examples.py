"""Do worked examples move the bundled model? One JSON line per figure.

    python bench/dond_examples.py [--train 4] [--deals 30] [--temperature 1] [--seed 2000]

What the ``demonstrate`` operator of self-play does, isolated from the rest of the loop, on the
bundled model (SmolLM2-135M, local backend, ranked moves) playing Deal or No Deal against the
rule bot:

1. *train*: ``--train`` deals, each from both seats, played at ``--temperature`` (moves drawn
   from their likelihoods, as ``units.train_temperature`` plays self-play's train games);
2. *pool*: the moves of the best of those games, as ``demonstrate`` takes them
   (:func:`tournaments.selfplay.demos.pool`: at most 2 games, at least a point above the worst);
3. *eval*: ``--deals`` other deals, each from both seats, played greedily (temperature 0) by the
   model without examples and by the model with the pool as its ``examples`` (the nearest one
   shown before each decision, :mod:`arena.llm.examples`).

Printed (one JSON line each): ``train`` — the train games' scores, the scores of the games the
pool came from and its size; ``eval without examples`` / ``eval with examples`` — the mean
score with its 95 % bootstrap interval, and ``first_games``, the model's moves in the first
four eval games (to see what the examples changed); ``paired difference (with - without)`` —
over the same deals and seats, with its interval. Time: about 10 minutes at the defaults on an
idle 2-core CPU (8 + 2 × 60 games). Measured figures: docs/benchmarks.md ("Self-play on the
bundled model", "The operator alone").
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from dond_headroom import bootstrap_ci, play_against_rule

from arena.agents.llm_agent import LLMAgent
from arena.stats import paired_difference
from tournaments.selfplay.demos import best, pool

BASE: dict[str, Any] = {
    "backend": {"type": "local", "max_tokens": 16, "temperature": 0.0},
    "max_prompt_tokens": 1000,
}


def agent(temperature: float = 0.0, examples: list[dict[str, str]] | None = None) -> LLMAgent:
    params = {**BASE, "backend": {**BASE["backend"], "temperature": temperature}}
    if examples:
        params["examples"] = examples
    return LLMAgent("policy", **params)


def moves(events: list[Any], seat: int) -> list[str]:
    out = []
    for e in events:
        if e.type == "decision" and e.actor == seat:
            choices = (e.payload.get("action") or {}).get("choices") or ["-"]
            out.append(str(choices[0]))
    return out


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, 3)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--train", type=int, default=4, help="exploring train deals (x 2 seats)")
    ap.add_argument("--deals", type=int, default=30, help="held-out eval deals (x 2 seats)")
    ap.add_argument("--temperature", type=float, default=1.0, help="the train games' temperature")
    ap.add_argument("--seed", type=int, default=2000, help="the first train deal's seed")
    args = ap.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    train_seeds = list(range(args.seed, args.seed + args.train))
    eval_seeds = list(range(args.seed + args.train, args.seed + args.train + args.deals))

    t0 = time.perf_counter()
    train = asyncio.run(play_against_rule(lambda: agent(args.temperature), train_seeds))
    found = [e.model_dump() for e in pool(train)]
    print(json.dumps({
        "figure": "train", "units": len(train), "temperature": args.temperature,
        "scores": [s for s, _, _ in train], "pool_games": [s for s, _, _ in best(train)],
        "pool_examples": len(found), "wall_s": round(time.perf_counter() - t0, 1),
    }), flush=True)  # fmt: skip
    if not found:
        print(json.dumps({"figure": "no pool", "why": "every train game scored the same"}))
        return 1

    scores: dict[str, list[float]] = {}
    for label, examples in (("without", None), ("with", found)):
        t = time.perf_counter()
        games = asyncio.run(play_against_rule(partial(agent, 0.0, examples), eval_seeds))
        xs = scores[label] = [s for s, _, _ in games]
        print(json.dumps({
            "figure": f"eval {label} examples", "units": len(xs),
            "mean_score": round(float(np.mean(xs)), 3), "ci": bootstrap_ci(xs, args.seed),
            "first_games": [moves(ev, seat) for _, ev, seat in games[:4]],
            "wall_s": round(time.perf_counter() - t, 1),
        }), flush=True)  # fmt: skip
    est = paired_difference(scores["with"], scores["without"], np.random.default_rng(args.seed))
    print(json.dumps({
        "figure": "paired difference (with - without)", "units": est.n,
        "delta": _r(est.value), "ci": [_r(est.low), _r(est.high)],
        "wall_s": round(time.perf_counter() - t0, 1),
    }), flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
