"""Negotiation baseline bots against each other: one JSON line per figure.

    python bench/negotiation_baselines.py [--games 1000] [--only dealornodeal,price,pie,...]

For every pairing of random / greedy / boulware / conceder (and ``fair`` in the pie division)
it plays ``--games`` seeded games through the match runner ``arena run`` uses
(``MatchRunner.play``: same observations, private facts and agent seeds; seed i = game i; seats
swap every game so first-mover and role advantages cancel; every answer must be legal) and prints the agreement rate, mean utility and mean normalised score of each
side with 95% bootstrap CIs (seeded), plus Pareto-optimal / efficient-outcome rates. The auctions
(``auction_second``, ``auction_first``, ``auction_ascending``: 3 bidders, seats alternate a/b)
pair random / greedy / truthful / shader and report the sale rate, revenue, allocative
efficiency, collusion rate and each side's win rate, bid shading and truthful-bid rate.
"""

from __future__ import annotations

import argparse
import itertools
import json
import time
from typing import Any

from arena import registry
from arena.results import InvalidActionPolicy, MatchSpec
from arena.runner import MatchRunner
from games.negotiation.measures import aggregate, match_measures, per_agent

BOTS = ["random", "greedy", "boulware", "conceder"]
AUCTION_BOTS = ["random", "greedy", "truthful", "shader"]
# figure name -> (registered game, rules, bots paired)
GAMES: dict[str, tuple[str, dict[str, Any], list[str]]] = {
    "dealornodeal": ("dealornodeal", {}, BOTS),
    "price": ("price_bargaining", {}, BOTS),
    "pie": ("pie_division", {}, [*BOTS, "fair"]),
    "auction_second": ("auction", {}, AUCTION_BOTS),
    "auction_first": ("auction", {"format": "sealed_first"}, AUCTION_BOTS),
    "auction_ascending": ("auction", {"format": "ascending"}, AUCTION_BOTS),
}
STRICT = InvalidActionPolicy(retries=0, timeout_s=None)


def seats_for(a: str, b: str, n: int, i: int) -> list[str]:
    """Alternate a/b over the seats, shifted by the game index (seat swap)."""
    return [a if (s + i) % 2 == 0 else b for s in range(n)]


def run_pairing(game: str, a: str, b: str, n_games: int, n_boot: int) -> dict[str, Any]:
    game_id, rules, _ = GAMES[game]
    bots = registry.bots(game_id)
    n_seats = registry.engine_class(game_id)(rules, seed=0).n_seats
    ms = []
    t0 = time.perf_counter()
    for i in range(n_games):
        seats = seats_for(a, b, n_seats, i)
        spec = MatchSpec(match_id=f"{game}-{i}", game=game_id, rules=rules, seed=i, seats=seats)
        runner = MatchRunner(spec, lambda name, seat: bots[name](name), policy=STRICT)
        result = runner.play()
        refused = [s.seat for s in result.seats if s.invalid or s.fallbacks]
        if result.status != "finished" or refused:
            raise RuntimeError(f"{game} {i}: {result.status} {result.reason}, refused {refused}")
        ms.append(match_measures(runner.engine.log, seats))
    elapsed = time.perf_counter() - t0
    agg = aggregate(ms, seed=0, n_boot=n_boot)
    entries = per_agent(ms, seed=0, n_boot=n_boot)

    def r(x: dict[str, Any] | None) -> list[float | None] | None:
        # arena.stats gives no interval from a single match: lo/hi are None then
        return (
            None
            if x is None
            else [None if x[k] is None else round(x[k], 4) for k in ("mean", "lo", "hi")]
        )

    fig: dict[str, Any] = {
        "figure": f"{game}: {a} vs {b}",
        "game": game,
        "a": a,
        "b": b,
        "games": n_games,
        "agreement_rate": r(agg["agreement_rate"]),
        "walk_away_rate": r(agg["walk_away_rate"]),
        "pareto_optimal_rate": r(agg["pareto_optimal_rate"]),
        "efficient_outcome_rate": r(agg["efficient_outcome_rate"]),
        "nash_efficiency": r(agg["nash_efficiency"]),
        "games_per_s": round(n_games / elapsed, 1),
        "driver": "arena.runner",
        "ci": "mean, 2.5%, 97.5% (bootstrap over matches, seed 0)",
    }
    if game.startswith("auction"):
        for key in ("revenue", "allocative_efficiency", "collusion_rate"):
            fig[key] = r(agg[key])
    for side, name in (("a", a), ("b", b)):
        row = entries[name]
        if game.startswith("auction"):
            for key in ("win_rate", "bid_shading", "truthful_bid_rate"):
                fig[f"{key}_{side}"] = r(row[key])
        fig[f"utility_{side}"] = r(row["score_all"])
        fig[f"utility_agreed_{side}"] = r(row["score_agreed"])
        fig[f"norm_{side}"] = r(row["norm"])
        if game == "price":
            fig[f"surplus_share_{side}"] = r(row["surplus_share_clipped"])
    return fig


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--boot", type=int, default=1000, help="bootstrap resamples")
    parser.add_argument("--only", default=",".join(GAMES), help="comma-separated subset")
    args = parser.parse_args()
    for game in args.only.split(","):
        bots = GAMES[game][2]
        for a, b in itertools.combinations_with_replacement(bots, 2):
            print(json.dumps(run_pairing(game, a, b, args.games, args.boot)), flush=True)


if __name__ == "__main__":
    main()
