"""A real self-play gain, with its interval: the bundled model (SmolLM2-135M-Instruct) evolves its
Deal or No Deal context against the rule-bot panel; one JSON line per figure.

    python bench/selfplay_real.py [--scale dev|full|memo] [--repeats 3] [--out DIR]

What runs: ``arena selfplay`` (:class:`tournaments.selfplay.SelfPlay`) on a config built here —
the base agent is the local backend (ranked choice over the legal moves, temperature 0), the
seed context is the plain briefing, and the operators are the ones that learn from the games
in a way a small model can use: ``demonstrate`` (its own moves from its best train games as
worked examples, the nearest one shown before each decision, quoted as data) and ``reflect`` (directives drawn into the memory bank by the scripted
reflector), drawn 2 : 1. No ``restyle``: a style line reads nothing from the games, and with
2 generations a repeat's only children of its games are generation 1's (the first run of this
design drew restyles and reflections in all three repeats and never a demonstration).
The train games explore: the candidate's ranked moves are drawn from their likelihoods at
temperature 1 (``units.train_temperature``), so its best train games — the demonstrations —
can hold moves its greedy play never makes (greedy, the seed never proposes a split). Select
and gate games play greedily (temperature 0).
R = 3 master seeds (repeats). Each repeat's champion is promoted only through the held-out gate
(one-sided bootstrap lower bound of the paired improvement > 0, Bonferroni over generations).

Printed, per repeat: the seed's (baseline) and the champion's mean score on the gate units, the
paired held-out improvement Δ (champion − seed, the same deals and seats) with its 95% bootstrap
interval, and every gate test (challenger − incumbent, Δ and interval); over the repeats: the
mean Δ with its Student-t 95% interval and RSE = (sd/√R)/mean. A repeat whose seed was never
replaced has Δ = 0 by construction; its gate tests say how close the challengers came. The Δ of
a promoted champion is measured on the gate that promoted it, so it is optimistic (the winner
of up to G tests); the interval is the paired bootstrap's all the same.

Power (the gate size of ``full``): to detect a one-point change in mean score (scores run
0–10) with one-sided α = 0.05 / G (G = 2 generations: 0.025) and power 0.8, a paired test
needs n = ((z₀.₉₇₅ + z₀.₈) · σ_Δ / 1)² units. σ_Δ (the spread of a seat's score between two
contexts on one deal) was first assumed 3.5; the first full run (2026-12-05) measured 1.30, 2.57
and 2.88 on its three gate tests, so σ_Δ = 3.0 is used: n = (2.80 · 3.0)² = 70.6 → 71 units:
36 deals × 2 seats = 72. Every run prints the measured σ_Δ of its tests and the change its gate
could detect with it (``mde_measured``), so a play that spreads more shows it.
:func:`gate_units` does the arithmetic.

Scales (units are per seed of the split, each played from both seats):

* ``dev`` — a smoke run for a loaded machine: population 2, 2 generations, train 1, select 2,
  gate 3, a 25-minute wall cap. It can show that the loop runs on the real model, not a gain.
* ``full`` — population 3, 2 generations, train 4, select 6, gate 36 (72 units), R = 3, for
  an idle 2-core machine (target 45 minutes; measured 41 on 2026-12-06, docs/benchmarks.md). Its wall
  cap is 90 minutes, so the run finishes there; the cap stops a run on a slower or loaded
  machine, which then reports the repeats it finished.
* ``memo`` — 2,000 games per task (per repeat) as in the MEMO paper: population 8,
  5 generations, train 10, select 20, gate 64 (≤ 1,200 play + ≤ 768 gate games per repeat),
  64 games at once, the model on CUDA (``device: auto``) with batches of 64. The command for
  one large GPU: ``python bench/selfplay_real.py --scale memo`` (target ≤ 10 minutes).

In every scale generation 0 plays the seed alone (both operators read train games, which do
not exist yet); the children of its train games play from generation 1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from arena.stats import paired_difference
from tournaments.selfplay.config import parse
from tournaments.selfplay.driver import SelfPlay

TRAIN_TEMPERATURE = 1.0  # the train games' sampling temperature (select and gate: greedy)
SIGMA_ASSUMED = 3.0  # points: sd of a paired per-unit score difference (measured ≤ 2.88; printed)
SCALES: dict[str, dict[str, Any]] = {
    "dev": {"population": 2, "generations": 2, "units": {"train": 1, "select": 2, "gate": 3},
            "concurrency": 4, "wall_s": 1500},
    "full": {"population": 3, "generations": 2, "units": {"train": 4, "select": 6, "gate": 36},
             "concurrency": 4, "wall_s": 5400},
    "memo": {"population": 8, "generations": 5, "units": {"train": 10, "select": 20, "gate": 64},
             "concurrency": 64, "wall_s": 3600, "max_batch": 64},
}  # fmt: skip


def gate_units(delta: float, sigma: float, alpha: float, power: float = 0.8) -> int:
    """Paired units a one-sided level-``alpha`` test needs to detect a mean change ``delta``
    with ``power``, the per-unit differences having sd ``sigma`` (normal approximation)."""
    z = statistics.NormalDist().inv_cdf
    return math.ceil(((z(1 - alpha) + z(power)) * sigma / delta) ** 2)


def detectable(n: int, sigma: float, alpha: float, power: float = 0.8) -> float | None:
    """The change a paired test over ``n`` units detects with ``power`` (the inverse)."""
    if n < 2 or not math.isfinite(sigma):
        return None
    z = statistics.NormalDist().inv_cdf
    return (z(1 - alpha) + z(power)) * sigma / math.sqrt(n)


def config(scale: str, repeats: int, seed: int, wall_s: float | None = None) -> dict[str, Any]:
    s = SCALES[scale]
    return {
        "name": f"selfplay-real-{scale}",
        "game": "dealornodeal",
        "base": {
            "kind": "llm",
            "params": {
                "backend": {
                    "type": "local",
                    "max_tokens": 16,
                    "temperature": 0.0,
                    "max_batch": s.get("max_batch", 8),
                },
                "max_prompt_tokens": 1000,
            },
        },
        "seed_context": {"style": None, "insights": "none"},
        "population": s["population"],
        "elites": 1,
        "generations": s["generations"],
        # no restyle: it reads nothing from the games, and at 2 generations a repeat has only
        # the slots of generation 1 for children of the train games (docs/benchmarks.md)
        "operators": {"demonstrate": 2, "reflect": 1},
        "reflector": "scripted:directives",
        "panel": [{"name": "bot", "kind": "rule"}],
        # train games sample the ranked moves (exploration): the demonstrations come from the
        # best of them, so a child can be shown moves the greedy seed never makes
        "units": {**s["units"], "seats": "all", "train_temperature": TRAIN_TEMPERATURE},
        "metric": "score",
        "budget": {"wall_s": wall_s if wall_s is not None else s["wall_s"]},
        "repeats": repeats,
        "master_seed": seed,
        "concurrency": s["concurrency"],
        # one re-ask (ranked by likelihood), then a random legal move; no timeout: a slow
        # machine slows the run down instead of turning decisions into fallbacks
        "policy": {"retries": 1, "fallback": "random_legal", "timeout_s": None},
    }


def gate_rows(rdir: Path) -> list[dict[str, Any]]:
    rows = []
    for path in sorted(rdir.glob("g*/gate/units.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            rows.append(json.loads(line))
    return rows


def paired(rows: list[dict[str, Any]], a: str, b: str, seed: int) -> dict[str, Any]:
    """a − b over the gate units both played (a unit: its seed and seat)."""
    score = {c: {(r["seed"], r["seat"]): r["score"] for r in rows if r["candidate"] == c}
             for c in (a, b)}  # fmt: skip
    keys = sorted(set(score[a]) & set(score[b]))
    xa = [score[a][k] for k in keys]
    xb = [score[b][k] for k in keys]
    est = paired_difference(xa, xb, np.random.default_rng(seed))
    d = [x - y for x, y in zip(xa, xb, strict=True) if math.isfinite(x) and math.isfinite(y)]
    return {
        "a_mean": _r(float(np.nanmean(xa))) if xa else None,
        "b_mean": _r(float(np.nanmean(xb))) if xb else None,
        "delta": _r(est.value),
        "ci": [_r(est.low), _r(est.high)],
        "n": est.n,
        "sd_delta": _r(float(np.std(d, ddof=1))) if len(d) > 1 else None,
    }


def _r(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else round(x, 4)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--scale",
        choices=sorted(SCALES),
        default="full",
        help="the run's size (default: full; see above)",
    )
    ap.add_argument("--repeats", type=int, default=3, help="master seeds R (default: 3)")
    ap.add_argument("--seed", type=int, default=2026, help="the first master seed (default: 2026)")
    ap.add_argument("--out", type=Path, default=None, help="run directory (default: a temp dir)")
    ap.add_argument("--wall-s", type=float, default=None,
                    help="the run's wall-clock cap in seconds (default: the scale's; "
                         "a capped run reports the repeats it finished)")  # fmt: skip
    args = ap.parse_args(argv)
    raw = config(args.scale, args.repeats, args.seed, args.wall_s)
    cfg = parse(raw)
    alpha = cfg.gate.alpha / cfg.generations
    need = gate_units(1.0, SIGMA_ASSUMED, alpha)
    gate_n = cfg.units.gate * 2  # both seats
    print(json.dumps({"figure": "power", "scale": args.scale, "alpha": alpha,
                      "sigma_assumed": SIGMA_ASSUMED, "units_for_one_point": need,
                      "gate_units": gate_n,
                      "mde_assumed": _r(detectable(gate_n, SIGMA_ASSUMED, alpha))}), flush=True)  # fmt: skip
    root = args.out or Path(tempfile.mkdtemp(prefix="selfplay-real-"))
    t0 = time.perf_counter()
    report = asyncio.run(SelfPlay(cfg, root).run())
    wall = time.perf_counter() - t0
    lower_above_zero = 0
    for rep in report["repeats"]:
        rdir = root / f"r{rep['repeat']}"
        rows = gate_rows(rdir)
        seed_id, champ = rep["seed_candidate"], rep["champion"]
        tests = [
            {"generation": d["generation"], "challenger": d["challenger"],
             **paired(rows, d["challenger"], d["incumbent"], args.seed)}
            for d in json.loads((rdir / "result.json").read_text())["decisions"]
        ]  # fmt: skip
        gain = paired(rows, champ, seed_id, args.seed) if champ != seed_id else None
        lo = (gain or {}).get("ci", [None])[0]
        lower_above_zero += lo is not None and lo > 0
        sds = [t["sd_delta"] for t in tests if t["sd_delta"] is not None]
        line = {
            "figure": f"repeat {rep['repeat']}",
            "seed_candidate": seed_id,
            "champion": champ,
            "champion_operator": rep["champion_lineage"]["operator"],
            "baseline_gate_mean": (gain or {}).get("b_mean")
            if gain
            else (tests[0]["b_mean"] if tests else None),
            "champion_gate_mean": (gain or {}).get("a_mean"),
            "improvement": gain["delta"] if gain else 0.0,
            "improvement_ci": gain["ci"] if gain else None,
            "gate_tests": tests,
            "sd_delta_measured": _r(statistics.mean(sds)) if sds else None,
            "mde_measured": _r(detectable(gate_n, statistics.mean(sds), alpha)) if sds else None,
            "stopped": rep["stopped"],
        }
        print(json.dumps(line), flush=True)
    imp = report["improvement"]
    spent = report["budget"]["total"]
    print(json.dumps({
        "figure": "improvement over repeats",
        "mean": imp["mean"], "ci": imp["ci"], "rse": imp["rse"], "repeats": imp["n"],
        "lower_bound_above_zero": lower_above_zero, "target": "lower bound > 0 in >= 2 of 3",
        "games": spent["games"], "llm_calls": spent["llm_calls"], "wall_s": round(wall, 1),
        "stopped": report["budget"]["stopped"], "load_avg_1m": round(os.getloadavg()[0], 2),
        "run_dir": str(root),
    }), flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
