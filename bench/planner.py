"""Planner-driven matchmaking against a uniform round robin on the known-strength ladder.

The population is ``tournaments/examples/werewolf_slip_ladder.yaml`` (the Werewolf rule bot at
slip 0, .25, .5, .75, 1: a known strength order). Each data seed plays ``--per-pair`` matches
of every pair through ``arena run``'s executor: one stream of matches per pair. Both strategies
draw from the same streams, so they see the same matches of a pair in the same order and differ
only in *which pairs* they spend matches on:

- ``uniform``: rounds of one match per pair (a round robin of growing size);
- ``planner``: one match per pair, then rounds of ``--batch`` matches chosen by
  :func:`arena.ratings.planner.allocate` (what ``rating_driven: {by: planner}`` plans): the
  comparisons that tell unsure neighbours apart (their head-to-head, or both against a common
  opponent), weighted by what a match adds to the squared z of their order on the records so
  far, and a fifth of each round to the pairs that met least.

Both stop when the whole order is settled (every adjacent pair's order right with probability
1 - (1 - ``--confidence``)/4 by the bootstrap, both entries with 10 matches or more), or at
``--budget``. Figures, one JSON line each: per trial and strategy, the matches at which it
stopped (``stopped_at``; null: not settled within the budget) and whether the order it stopped
with is the true one; the share of trials with the exact order after every 50 matches (a trial
that stopped keeps the order it stopped with), its lowest and highest share over the data
seeds, and its mean from 100 matches on; the settled trials; and the paired comparison. A trial
is a data seed, or (``--shuffles K``) one of K random orders of each pair's stream of that seed.
Give ``--per-pair`` well above ``--budget``/10, or the planner runs out of a pair's matches
and falls back to the least used pair. Usage::

    .venv/bin/python bench/planner.py [--seeds 6] [--per-pair 80] [--budget 400] [--shuffles 4]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.ratings import planner  # noqa: E402
from arena.ratings.leaderboard import leaderboard  # noqa: E402
from arena.results import MatchResult  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
from ratings_stability import play  # noqa: E402


def emit(figure: str, **fields: Any) -> None:
    print(json.dumps({"bench": "planner", "figure": figure, **fields}), flush=True)


def streams(results: list[MatchResult]) -> dict[tuple[str, str], list[MatchResult]]:
    out: dict[tuple[str, str], list[MatchResult]] = {}
    for r in sorted(results, key=lambda r: r.index):
        a, b = sorted({s.agent for s in r.seats})
        out.setdefault((a, b), []).append(r)
    return out


def exact(results: list[MatchResult], truth: list[str]) -> bool:
    return [row.agent for row in leaderboard(results)] == truth


def trial(
    pool: dict[tuple[str, str], list[MatchResult]],
    truth: list[str],
    strategy: str,
    args: argparse.Namespace,
    seed: int,
) -> dict[str, Any]:
    """Play ``strategy`` on the streams until settled or the budget; the exact order's curve."""
    used = dict.fromkeys(pool, 1)
    played = [s[0] for s in pool.values()]
    curve: dict[int, bool] = {}
    stopped = None
    while True:
        for n in range(len(played) - len(played) % 50, len(played) + 1, 50):
            if n and n not in curve and n <= len(played):
                curve[n] = exact(played, truth)
        plan = planner.pairs(played, confidence=args.confidence, seed=seed, resamples=200)
        if all(p["settled"] for p in plan):
            stopped = len(played)
            break
        room = args.budget - len(played)
        if room <= 0:
            break
        chosen = list(pool) if strategy == "uniform" else planner.allocate(plan, played, args.batch)
        for a, b in chosen[:room]:
            key = (a, b) if (a, b) in pool else (b, a)
            if used[key] >= len(pool[key]):  # the stream ran out: the least used pair instead
                key = min((k for k in pool if used[k] < len(pool[k])), key=used.__getitem__)
            played.append(pool[key][used[key]])
            used[key] += 1
    return {"stopped_at": stopped, "exact": exact(played, truth), "matches": len(played),
            "curve": curve}  # fmt: skip


def played_matches(
    seed: int, per_pair: int, tmp: Path, cache: str | None
) -> tuple[list[MatchResult], list[str]]:
    """The ladder's matches of one data seed (kept in ``cache`` to try strategies quickly)."""
    path = Path(cache) / f"ladder-{seed}-{per_pair}.json" if cache else None
    if path is not None and path.exists():
        doc = json.loads(path.read_text())
        return [MatchResult.model_validate(r) for r in doc["results"]], doc["truth"]
    results, truth = play(seed, per_pair, tmp)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        data = {"results": [r.model_dump(mode="json") for r in results], "truth": truth}
        path.write_text(json.dumps(data))
    return results, truth


def _share(outs: list[dict[str, Any]], n: int) -> float:
    """The share of trials with the exact order at ``n`` matches (a trial that stopped keeps the
    order it stopped with: what it would publish)."""
    return sum(bool(o["curve"].get(n, o["exact"])) for o in outs) / len(outs)


def summarise(strategy: str, outs: list[dict[str, Any]]) -> None:
    """The exact-order share per 50 matches (mean over trials, and its spread over data seeds:
    the lowest and highest seed's share) and the settled trials."""
    sizes = sorted({n for o in outs for n in o["curve"]})
    by_seed: dict[int, list[dict[str, Any]]] = {}
    for o in outs:
        by_seed.setdefault(o["seed"], []).append(o)
    emit("exact_order_share", strategy=strategy, trials=len(outs), seeds=len(by_seed),
         at={n: round(_share(outs, n), 2) for n in sizes},
         seed_low={n: round(min(_share(v, n) for v in by_seed.values()), 2) for n in sizes},
         seed_high={n: round(max(_share(v, n) for v in by_seed.values()), 2) for n in sizes},
         mean_from_100=round(sum(_share(outs, n) for n in sizes if n >= 100)
                             / max(1, sum(1 for n in sizes if n >= 100)), 3))  # fmt: skip
    stops = [o["stopped_at"] for o in outs if o["stopped_at"] is not None]
    emit(
        "settled",
        strategy=strategy,
        trials=len(outs),
        settled=len(stops),
        settled_exact=sum(1 for o in outs if o["stopped_at"] is not None and o["exact"]),
        mean_matches=round(sum(stops) / len(stops), 1) if stops else None,
        sd_matches=round(statistics.pstdev(stops), 1) if len(stops) > 1 else None,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=6)
    ap.add_argument("--seed", type=int, default=2026, help="the first data seed")
    ap.add_argument("--per-pair", type=int, default=80, help="matches per pair in each stream")
    ap.add_argument("--budget", type=int, default=400, help="matches each strategy may play")
    ap.add_argument("--batch", type=int, default=10, help="matches per planner round")
    ap.add_argument("--confidence", type=float, default=0.9)
    ap.add_argument("--shuffles", type=int, default=4, help="stream orders per seed (0: as played)")
    ap.add_argument("--cache", help="keep the played matches here (JSON) and reuse them")
    args = ap.parse_args()
    started = time.process_time()
    runs: dict[str, list[dict[str, Any]]] = {"uniform": [], "planner": []}
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(args.seed, args.seed + args.seeds):
            results, truth = played_matches(seed, args.per_pair, Path(tmp), args.cache)
            base = streams(results)
            for k in range(max(1, args.shuffles + (args.shuffles == 0))):
                rng = random.Random(f"{seed}:{k}")
                pool = base if args.shuffles == 0 else {
                    p: rng.sample(s, len(s)) for p, s in base.items()
                }  # fmt: skip
                for strategy in ("uniform", "planner"):
                    out = {**trial(pool, truth, strategy, args, seed), "seed": seed}
                    emit("trial", seed=seed, order=k, strategy=strategy,
                         **{x: out[x] for x in ("stopped_at", "exact", "matches")})  # fmt: skip
                    runs[strategy].append(out)
    for strategy, outs in runs.items():
        summarise(strategy, outs)
    pairs = list(zip(runs["uniform"], runs["planner"], strict=True))
    both = [(u, p) for u, p in pairs if u["stopped_at"] and p["stopped_at"]]
    emit(
        "planner_vs_uniform",
        trials=len(pairs),
        both_settled=len(both),
        planner_fewer=sum(1 for u, p in both if p["stopped_at"] < u["stopped_at"]),
        planner_only=sum(1 for u, p in pairs if p["stopped_at"] and not u["stopped_at"]),
        uniform_only=sum(1 for u, p in pairs if u["stopped_at"] and not p["stopped_at"]),
    )
    emit("cpu_s", value=round(time.process_time() - started, 1))


if __name__ == "__main__":
    main()
