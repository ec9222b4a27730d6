"""Planner-driven matchmaking against a uniform round robin: matches until the exact order.

The population is ``tournaments/examples/werewolf_slip_ladder.yaml`` (the Werewolf rule bot at
slip 0, .25, .5, .75, 1: a known strength order). Each data seed plays ``--per-pair`` matches
of every pair through ``arena run``'s executor, in plan order: one stream of matches per pair,
sides alternating. Both strategies draw from the same streams, so they see the same matches of
a pair in the same order and differ only in *which pairs* they spend matches on:

- ``uniform``: rounds of one match per pair (a round robin of growing size);
- ``planner``: one match per pair to start, then rounds of ``--batch`` matches spread by
  :func:`arena.planner.allocate` over the adjacent pairs of the batch fit whose order is least
  sure (what ``rating_driven: {by: planner}`` plans).

After every round the batch fit (the board's sort key) orders the entries. Per seed and
strategy it prints the matches at which the order first became exact (``first_exact``) and
from which it stayed exact to the end of the budget (``settled``; null: never), one JSON line
each, then a summary line. Usage::

    .venv/bin/python bench/planner.py [--seeds 4] [--per-pair 40] [--budget 200] [--batch 10]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena import planner  # noqa: E402
from arena.ratings import leaderboard  # noqa: E402
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


def curve(rounds: list[list[MatchResult]], truth: list[str]) -> dict[str, Any]:
    """Matches after each round, whether the order was exact then, first exact, settled."""
    sizes, hits = [], []
    for played in rounds:
        sizes.append(len(played))
        hits.append(exact(played, truth))
    first = next((n for n, h in zip(sizes, hits, strict=True) if h), None)
    settled = None
    for i in range(len(hits) - 1, -1, -1):
        if not hits[i]:
            break
        settled = sizes[i]
    return {"first_exact": first, "settled": settled, "budget": sizes[-1] if sizes else 0}


def uniform(pool: dict[tuple[str, str], list[MatchResult]], budget: int) -> list[list[MatchResult]]:
    rounds, played, k = [], [], 0
    while len(played) + len(pool) <= budget:
        played = played + [s[k] for s in pool.values() if k < len(s)]
        rounds.append(played)
        k += 1
    return rounds


def planned(
    pool: dict[tuple[str, str], list[MatchResult]], budget: int, batch: int, seed: int
) -> tuple[list[list[MatchResult]], int]:
    """The planner's rounds, and how often a chosen pair's stream had run out."""
    used = dict.fromkeys(pool, 1)
    played = [s[0] for s in pool.values()]
    rounds, dry = [played], 0
    while len(played) < budget:
        plan = planner.pairs(played, seed=seed, resamples=200)
        chosen = planner.allocate(plan, min(batch, budget - len(played)))
        if not chosen:
            chosen = [pair for pair in pool for _ in range(1)][:batch]  # settled: keep checking
        new = []
        for a, b in chosen:
            key = (a, b) if (a, b) in pool else (b, a)
            if used[key] >= len(pool[key]):  # the stream ran out: the next pair with matches
                dry += 1
                key = min((k for k in pool if used[k] < len(pool[k])), key=used.__getitem__)
            new.append(pool[key][used[key]])
            used[key] += 1
        played = played + new
        rounds.append(played)
    return rounds, dry


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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=4)
    ap.add_argument("--seed", type=int, default=2026, help="the first data seed")
    ap.add_argument("--per-pair", type=int, default=40, help="matches per pair in each stream")
    ap.add_argument("--budget", type=int, default=200, help="matches each strategy may play")
    ap.add_argument("--batch", type=int, default=10, help="matches per planner round")
    ap.add_argument("--cache", help="keep the played matches here (JSON) and reuse them")
    args = ap.parse_args()
    started = time.process_time()
    summary: dict[str, list[Any]] = {"uniform": [], "planner": []}
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(args.seed, args.seed + args.seeds):
            results, truth = played_matches(seed, args.per_pair, Path(tmp), args.cache)
            pool = streams(results)
            budget = min(args.budget, args.per_pair * len(pool))
            u = curve(uniform(pool, budget), truth)
            rounds, dry = planned(pool, budget, args.batch, seed)
            p = curve(rounds, truth)
            emit("matches_to_exact_order", seed=seed, strategy="uniform", **u)
            emit("matches_to_exact_order", seed=seed, strategy="planner", dry_picks=dry, **p)
            summary["uniform"].append(u)
            summary["planner"].append(p)
    for key in ("first_exact", "settled"):
        pairs = list(zip(summary["uniform"], summary["planner"], strict=True))
        fewer = sum(
            1 for u, p in pairs
            if p[key] is not None and (u[key] is None or p[key] < u[key])
        )  # fmt: skip
        emit(
            f"planner_fewer_{key}",
            seeds=len(pairs),
            planner_fewer=fewer,
            uniform=[u[key] for u, _ in pairs],
            planner=[p[key] for _, p in pairs],
        )
    emit("cpu_s", value=round(time.process_time() - started, 1))


if __name__ == "__main__":
    main()
