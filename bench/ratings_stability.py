"""Rankings that settle: how many matches a known-strength population needs to be ordered exactly.

The population is ``tournaments/examples/werewolf_slip_ladder.yaml``: the Werewolf rule bot at
slip 0, .25, .5, .75, 1 (the probability of a random legal move instead of its own), every pair
head to head with sides swapped. Each data seed plays ``--per-pair`` matches per pair through
``arena run``'s executor; the first k matches of every pair (10k matches) are then ranked by

- ``batch``: the leaderboard's sort key (the batch Bradley–Terry fit, order-free);
- ``trueskill``: TrueSkill's μ − 3σ folded in ``--orders`` seeded permutations of the results;
- ``win_rate`` (per seat, as the leaderboard's column) and ``side_balanced_wr``.

Prints one JSON line per (figure, method, match count): the share of trials whose order is
exactly the true one (a trial is a data seed, times a fold order for TrueSkill), mean Kendall τ
against the true order, and, for ``batch``, how often the 95% rank interval holds the true rank
and its mean width. Usage::

    .venv/bin/python bench/ratings_stability.py [--seeds 5] [--per-pair 60] [--orders 20]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.ratings.leaderboard import leaderboard, rate  # noqa: E402
from arena.results import MatchResult  # noqa: E402
from arena.stats import kendall_tau  # noqa: E402
from tournaments import config as tconfig  # noqa: E402
from tournaments.executor import Tournament  # noqa: E402

EXAMPLE = ROOT / "tournaments" / "examples" / "werewolf_slip_ladder.yaml"


def emit(figure: str, **fields: Any) -> None:
    print(json.dumps({"bench": "ratings_stability", "figure": figure, **fields}), flush=True)


def play(seed: int, per_pair: int, root: Path) -> tuple[list[MatchResult], list[str]]:
    """The ladder's matches with master seed ``seed``; the entries in their true order."""
    raw = yaml.safe_load(EXAMPLE.read_text())
    raw.update(matches=per_pair, master_seed=seed, output_dir=str(root))
    cfg = tconfig.parse(raw)
    results = asyncio.run(Tournament(cfg, root / f"s{seed}", f"s{seed}").run())
    return results, [a.name for a in cfg.agents]  # listed strongest first (slip 0 ... 1)


def first_per_pair(results: list[MatchResult], k: int) -> list[MatchResult]:
    """The first ``k`` planned matches of every pair (what a run with ``matches: k`` plays)."""
    by_pair: dict[tuple[str, ...], list[MatchResult]] = defaultdict(list)
    for r in sorted(results, key=lambda r: r.index):
        by_pair[tuple(sorted({s.agent for s in r.seats}))].append(r)
    return [r for pair in sorted(by_pair) for r in by_pair[pair][:k]]


def fold_orders(results: list[MatchResult], n: int) -> list[list[MatchResult]]:
    out = []
    for seed in range(n):
        idx = list(range(len(results)))
        random.Random(seed).shuffle(idx)
        out.append([r.model_copy(update={"index": i}) for r, i in zip(results, idx, strict=True)])
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=5, help="independent data seeds (tournaments)")
    ap.add_argument("--seed", type=int, default=2026, help="the first data seed")
    ap.add_argument("--per-pair", type=int, default=60, help="matches per pair played")
    ap.add_argument("--counts", default="4,8,12,16,20,24,30,40,50,60", help="k per pair")
    ap.add_argument("--orders", type=int, default=20, help="fold orders per trial (TrueSkill)")
    ap.add_argument("--bootstrap", type=int, default=500, help="resamples of the rank CIs")
    args = ap.parse_args()
    counts = [k for k in (int(c) for c in args.counts.split(",")) if k <= args.per_pair]
    t0 = time.process_time()
    data = []
    with tempfile.TemporaryDirectory() as tmp:
        for s in range(args.seeds):
            data.append(play(args.seed + s, args.per_pair, Path(tmp)))
    emit("played", matches=sum(len(r) for r, _ in data), seeds=args.seeds,
         cpu_s=round(time.process_time() - t0, 1))  # fmt: skip
    for k in counts:
        tally: dict[str, list[tuple[bool, float]]] = defaultdict(list)
        covered = width = entries = 0
        n = 0
        for results, truth in data:
            sub = first_per_pair(results, k)
            n = len(sub)
            rows = leaderboard(sub, detail=True, bootstrap=args.bootstrap)
            by = {r.agent: r for r in rows}
            orders = {
                "batch": [r.agent for r in rows],
                "win_rate": sorted(truth, key=lambda a: (-by[a].win_rate, a)),
                "side_balanced_wr": sorted(
                    truth, key=lambda a: (-(by[a].side_balanced_wr or 0.0), a)
                ),
            }
            for method, order in orders.items():
                tally[method].append((order == truth, kendall_tau(order, truth) or 0.0))
            for true_rank, name in enumerate(truth, start=1):
                row = by[name]
                if row.rank_low is not None and row.rank_high is not None:
                    covered += row.rank_low <= true_rank <= row.rank_high
                    width += row.rank_high - row.rank_low
                    entries += 1
            for perm in fold_orders(sub, args.orders):
                ts = rate(perm)
                order = sorted(truth, key=lambda a: (-(ts[a].mu - 3 * ts[a].sigma), a))
                tally["trueskill"].append((order == truth, kendall_tau(order, truth) or 0.0))
                same = [r.agent for r in leaderboard(perm)] == orders["batch"]  # order-free
                tally["batch_fold_orders_agree"].append((same, 1.0 if same else 0.0))
        for method, trials in tally.items():
            emit(
                "exact_order_share",
                method=method,
                matches=n,
                value=round(sum(e for e, _ in trials) / len(trials), 3),
                tau_mean=round(sum(t for _, t in trials) / len(trials), 3),
                trials=len(trials),
            )
        if entries:
            emit("rank_ci_coverage", method="batch", matches=n, value=round(covered / entries, 3),
                 mean_width=round(width / entries, 2), entries=entries)  # fmt: skip
    emit("cpu_s", value=round(time.process_time() - t0, 1))


if __name__ == "__main__":
    main()
