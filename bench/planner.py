"""Planner-driven matchmaking against a uniform round robin on the known-strength ladder.

The population is ``tournaments/examples/werewolf_slip_ladder.yaml`` (the Werewolf rule bot at
slip 0, .25, .5, .75, 1: a known strength order). Each data seed plays ``--per-pair`` matches
of every pair through ``arena run``'s executor. A trial draws, for every pair, a stream of
matches with replacement from that seed's played matches of the pair (so a strategy never runs
out of a pair, however it spends the budget); both strategies read the same streams in the same
order and differ only in *which pairs* they spend matches on:

- ``uniform``: rounds of one match per pair (a round robin of growing size);
- ``planner``: one match per pair, then rounds of ``--batch`` matches chosen by
  :func:`arena.ratings.planner.allocate` (what ``rating_driven: {by: planner}`` plans): a
  sequential design that sends each few matches where they most lower the expected number of
  unsure neighbours in the wrong order, and a tenth of each round to the pairs that met least.

Both stop when the whole order is settled (every adjacent pair's order right with probability
1 - (1 - ``--confidence``)/4 by the bootstrap, both entries with 10 matches or more), or at
``--budget``. Figures, one JSON line each: per trial and strategy, the matches at which it
stopped (``stopped_at``; null: not settled within the budget) and whether the order it stopped
with is the true one; per strategy, the share of trials with the exact order at each size (a
trial that stopped keeps the order it stopped with), the share settled by each size (mean, and
the lowest and highest data seed's) and the median matches to settle; and the paired
comparison: in how many trials each strategy settled first, with the two-sided sign test.
Usage::

    .venv/bin/python bench/planner.py [--seeds 8] [--per-pair 250] [--budget 1500] [--trials 5]
"""

from __future__ import annotations

import argparse
import json
import math
import random
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


def _settled_by(outs: list[dict[str, Any]], n: int) -> float:
    return sum(1 for o in outs if o["stopped_at"] is not None and o["stopped_at"] <= n) / len(outs)


def _median(outs: list[dict[str, Any]]) -> int | None:
    """The median matches to settle, a trial not settled within the budget counted as more than
    any (None: half the trials or more did not settle)."""
    stops = sorted(o["stopped_at"] if o["stopped_at"] is not None else math.inf for o in outs)
    mid = stops[(len(stops) - 1) // 2]
    return None if math.isinf(mid) else int(mid)


def summarise(strategy: str, outs: list[dict[str, Any]], budget: int) -> None:
    """The exact-order share per 50 matches (mean over trials, and its spread over data seeds:
    the lowest and highest seed's share), the share of trials settled by each size, and the
    median matches to settle."""
    sizes = sorted({n for o in outs for n in o["curve"]})
    by_seed: dict[int, list[dict[str, Any]]] = {}
    for o in outs:
        by_seed.setdefault(o["seed"], []).append(o)
    marks = [n for n in (250, 500, 750, 1000, 1250, 1500, 2000) if n <= budget]
    emit("exact_order_share", strategy=strategy, trials=len(outs), seeds=len(by_seed),
         at={n: round(_share(outs, n), 2) for n in sizes if n % 250 == 0 or n in (50, 100)},
         mean=round(sum(_share(outs, n) for n in sizes) / max(1, len(sizes)), 3))  # fmt: skip
    stops = [o["stopped_at"] for o in outs if o["stopped_at"] is not None]
    emit(
        "settled",
        strategy=strategy,
        trials=len(outs),
        settled=len(stops),
        settled_exact=sum(1 for o in outs if o["stopped_at"] is not None and o["exact"]),
        settled_by={n: round(_settled_by(outs, n), 3) for n in marks},
        settled_by_seed_low={n: round(min(_settled_by(v, n) for v in by_seed.values()), 2)
                             for n in marks},
        settled_by_seed_high={n: round(max(_settled_by(v, n) for v in by_seed.values()), 2)
                              for n in marks},
        median_matches=_median(outs),
    )  # fmt: skip


def sign_test(wins: int, losses: int) -> float:
    """Two-sided exact sign test: the probability of a split at least this uneven by chance."""
    n, k = wins + losses, min(wins, losses)
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2 * tail)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=8)
    ap.add_argument("--seed", type=int, default=2026, help="the first data seed")
    ap.add_argument("--per-pair", type=int, default=250, help="matches per pair played per seed")
    ap.add_argument("--budget", type=int, default=1500, help="matches each strategy may play")
    ap.add_argument("--batch", type=int, default=10, help="matches per planner round")
    ap.add_argument("--confidence", type=float, default=0.9)
    ap.add_argument("--trials", type=int, default=5, help="draws per data seed")
    ap.add_argument("--cache", help="keep the played matches here (JSON) and reuse them")
    args = ap.parse_args()
    started = time.process_time()
    runs: dict[str, list[dict[str, Any]]] = {"uniform": [], "planner": []}
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(args.seed, args.seed + args.seeds):
            results, truth = played_matches(seed, args.per_pair, Path(tmp), args.cache)
            base = streams(results)
            for k in range(args.trials):
                # each pair's stream: draws with replacement from this seed's played matches
                # of the pair, so no strategy runs out of a pair however it spends the budget
                rng = random.Random(f"{seed}:{k}")
                pool = {p: rng.choices(s, k=args.budget) for p, s in base.items()}
                for strategy in ("uniform", "planner"):
                    out = {**trial(pool, truth, strategy, args, seed), "seed": seed}
                    emit("trial", seed=seed, draw=k, strategy=strategy,
                         **{x: out[x] for x in ("stopped_at", "exact", "matches")})  # fmt: skip
                    runs[strategy].append(out)
    for strategy, outs in runs.items():
        summarise(strategy, outs, args.budget)
    inf = math.inf
    pairs = [
        (u["stopped_at"] or inf, p["stopped_at"] or inf)
        for u, p in zip(runs["uniform"], runs["planner"], strict=True)
    ]
    first = sum(1 for u, p in pairs if p < u)
    later = sum(1 for u, p in pairs if u < p)
    emit(
        "planner_vs_uniform",
        trials=len(pairs),
        planner_first=first,
        uniform_first=later,
        ties=len(pairs) - first - later,
        sign_test_p=float(f"{sign_test(first, later):.2g}"),
        planner_wrong_orders_settled=sum(
            1 for o in runs["planner"] if o["stopped_at"] is not None and not o["exact"]
        ),
        uniform_wrong_orders_settled=sum(
            1 for o in runs["uniform"] if o["stopped_at"] is not None and not o["exact"]
        ),
    )
    emit("cpu_s", value=round(time.process_time() - started, 1))


if __name__ == "__main__":
    main()
