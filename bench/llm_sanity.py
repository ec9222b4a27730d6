"""Sanity of the bundled model's play against the random bot's, per game: one JSON line per figure.

    python bench/llm_sanity.py [--matches 200] [--games werewolf,dealornodeal] [--concurrency 4]
                               [--speech auto|menu|free]

For each game, the same ``--matches`` seeded matches are played twice: once with the bundled
model (SmolLM2-135M-Instruct, the local backend, ranked choice) in the tested seat, once with
the ``random`` bot there; every other seat is the game's ``rule`` bot. The tested seat moves
round the table (seed i plays seat i mod n), so each role is tested in turn. Answers go through
the runner ``arena run`` uses, with one re-ask and then a random legal fallback, no timeout; the
share of the model's decisions that fell back is printed beside its figures. ``--speech``: how the
model speaks on a turn that offers a menu of the game's sentences (Werewolf's ``speak``;
``auto``, the bundled model's default, says the likeliest of them; ``free`` writes its words).

Figures (lower is better unless said), each with a 95% interval (matches are the clusters:
cluster bootstrap of the ratio, Wilson for a win rate):

* Werewolf — ``votes_against_own_side``: the seat's ballots for a player it knows is on its side
  (itself, a fellow wolf, a player its own inspection cleared), over its ballots;
  ``self_accusations``: its messages that accuse itself by name ("I suspect Sana." said by Sana),
  over its messages; ``win_rate`` (higher is better).
* Deal or No Deal — ``walk_away_with_better_offer``: its turns on which an offer stood that gave
  it more than walking away and it walked away, over such turns; ``accept_below_walk_away``: its
  accepts of an offer worth less to it than walking away, over its accepts; ``mean_score`` (its
  reward; higher is better) and ``win_rate``.

Each line: ``{"figure", "game", "model": {value, low, high, n}, "random": {...}, "better"}``;
``better`` compares the point estimates (None where either is undefined), ``separated`` says
whether the two intervals do not overlap. The machine's load (``os.getloadavg``) is printed with
every line: on a loaded 2-core machine the model decides slowly, not differently (no timeouts).

Full size (≥ 200 matches per game; measured on an idle 2-core CPU: 570 s of model play for
Deal or No Deal, 1,119 s for Werewolf): ``python bench/llm_sanity.py --matches 200``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from arena import registry
from arena.agents.factory import build
from arena.events import Event
from arena.results import InvalidActionPolicy, MatchResult, MatchSpec
from arena.runner import MatchRunner
from arena.stats import Estimate, mean_estimate, ratio_estimate
from games.negotiation.split_rules import utility

MODEL_PARAMS: dict[str, Any] = {
    "backend": {"type": "local", "max_tokens": 16, "temperature": 0.0},
    "max_prompt_tokens": 600,
}
POLICY = InvalidActionPolicy(retries=1, fallback="random_legal", timeout_s=None)
TESTED = "tested"
Counts = dict[str, tuple[float, float]]  # figure -> (numerator, denominator) of one match

_ACCUSE = re.compile(r"\b(suspect|vote|exile|accuse|eliminate|wolf|werewolf|lying|liar)\b", re.I)


# -- counting, one match at a time -------------------------------------------------------------
def werewolf_counts(events: Sequence[Event], result: MatchResult, seat: int) -> Counts:
    roles = {s.seat: s.role for s in result.seats}
    me = result.seats[seat]
    wolves = {s for s, r in roles.items() if r == "werewolf"}
    cleared: set[int] = set()  # players the seat's own inspections showed on its side
    bad = votes = accusing = messages = 0.0
    for e in events:
        p = e.payload
        if e.type == "seer_result" and roles.get(seat) == "seer":
            target, found = int(p["target"]), str(p.get("result"))
            if (found in ("wolf", "werewolf")) == (me.team == "wolves"):
                cleared.add(target)
        elif e.type == "ballot" and p.get("voter") == seat and p.get("target") != "abstain":
            votes += 1
            target = int(p["target"])
            own_side = target == seat or target in cleared
            own_side |= me.team == "wolves" and target in wolves
            bad += own_side
        elif e.type == "message" and p.get("seat") == seat:
            messages += 1
            text = str(p.get("text", ""))
            named = re.search(rf"\b{re.escape(me.name)}\b", text, re.I)
            accusing += bool(named and _ACCUSE.search(text))
    return {
        "votes_against_own_side": (bad, votes),
        "self_accusations": (accusing, messages),
        "win_rate": (float(me.result == "win"), 1.0),
    }


def dealornodeal_counts(events: Sequence[Event], result: MatchResult, seat: int) -> Counts:
    values: list[int] = []
    batna = 0.0
    offer: list[int] | None = None  # what the other player's standing proposal leaves the seat
    walked = better_turns = accepts = below = 0.0
    for e in events:
        p = e.payload
        if e.type == "scenario":
            values, batna = list(p["values"][seat]), float(p["disagreement"][seat])
            continue
        mine = e.actor == seat
        if mine and e.type in ("proposal", "accept", "reject", "walk_away", "pass",
                               "fallback_pass"):  # fmt: skip
            worth = utility(tuple(values), tuple(offer)) if offer is not None else None
            if worth is not None and worth > batna:
                better_turns += 1
                walked += e.type == "walk_away"
            if e.type == "accept" and worth is not None:
                accepts += 1
                below += worth < batna
        if e.type == "proposal":
            offer = None if mine else list(p["keep"][str(seat)])
        elif e.type == "reject" and mine:
            offer = None
    me = result.seats[seat]
    return {
        "walk_away_with_better_offer": (walked, better_turns),
        "accept_below_walk_away": (below, accepts),
        "mean_score": (float(me.reward), 1.0),
        "win_rate": (float(me.result == "win"), 1.0),
    }


COUNTERS: dict[str, Callable[[Sequence[Event], MatchResult, int], Counts]] = {
    "werewolf": werewolf_counts,
    "dealornodeal": dealornodeal_counts,
}
HIGHER_IS_BETTER = {"win_rate", "mean_score"}


# -- playing -----------------------------------------------------------------------------------
async def play_one(
    game: str, tested: str, i: int, params: dict[str, Any] | None = None
) -> tuple[Counts, int, int]:
    """Match ``i`` of ``game`` with ``tested`` (``llm`` or ``random``) in seat i mod n: its
    counts, the tested seat's decisions and how many of them fell back."""
    n = registry.engine_class(game)({}, seed=0).n_seats
    seat = i % n
    seats = ["rule"] * n
    seats[seat] = TESTED
    spec = MatchSpec(match_id=f"{game}-{tested}-{i}", game=game, rules={}, seed=i, seats=seats)

    def make(name: str, s: int) -> Any:
        if name != TESTED:
            return build(name, "rule", game, {})
        return build(name, tested, game, (params or MODEL_PARAMS) if tested == "llm" else {})

    runner = MatchRunner(spec, make, policy=POLICY)
    result = await runner.run()
    me = result.seats[seat]
    decided = sum(1 for e in runner.recorder.events if e.type == "decision" and e.actor == seat)
    return COUNTERS[game](runner.recorder.events, result, seat), decided, me.fallbacks


async def play_all(
    game: str, tested: str, matches: int, concurrency: int, params: dict[str, Any] | None = None
) -> list[Any]:
    sem = asyncio.Semaphore(concurrency)
    done = [0]
    t0 = time.perf_counter()

    async def one(i: int) -> Any:
        async with sem:
            out = await play_one(game, tested, i, params)
        done[0] += 1
        if done[0] % 10 == 0 or done[0] == matches:  # progress on stderr, the figures on stdout
            print(f"{game} {tested}: {done[0]}/{matches} matches, "
                  f"{time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)  # fmt: skip
        return out

    return list(await asyncio.gather(*(one(i) for i in range(matches))))


def estimate(rows: Sequence[Counts], figure: str, seed: int) -> Estimate:
    rng = np.random.default_rng(seed)
    num = [r[figure][0] for r in rows]
    den = [r[figure][1] for r in rows]
    if figure == "mean_score":
        return mean_estimate(num, rng)
    return ratio_estimate(num, den, rng, binary=figure == "win_rate")


def compare(figure: str, model: Estimate, rand: Estimate) -> dict[str, Any]:
    if model.value is None or rand.value is None:
        return {"better": None, "separated": None}
    up = figure in HIGHER_IS_BETTER
    better = model.value > rand.value if up else model.value < rand.value
    separated = None
    if None not in (model.low, model.high, rand.low, rand.high):
        assert model.low is not None and model.high is not None
        assert rand.low is not None and rand.high is not None
        # either way: `better` gives the direction (a worse model apart is apart too)
        separated = model.low > rand.high or model.high < rand.low
    return {"better": better, "separated": separated}


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


def _est(e: Estimate) -> dict[str, Any]:
    return {"value": _r(e.value), "low": _r(e.low), "high": _r(e.high), "n": e.n}


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--matches", type=int, default=200,
                    help="seeded matches per game, each played by the model and by the random bot "
                    "(default: 200, the full size)")  # fmt: skip
    ap.add_argument("--games", default="werewolf,dealornodeal",
                    help="comma-separated: werewolf, dealornodeal (default: both)")  # fmt: skip
    ap.add_argument("--concurrency", type=int, default=4, help="matches at once (default: 4)")
    ap.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    ap.add_argument(
        "--speech",
        choices=("auto", "menu", "free"),
        default="auto",
        help="the model's speech on a turn with a menu (default: auto, the menu)",
    )
    args = ap.parse_args(argv)
    params = {**MODEL_PARAMS, "speech": args.speech}
    for game in [g.strip() for g in args.games.split(",") if g.strip()]:
        if game not in COUNTERS:
            ap.error(f"--games: {game!r} is not one of {sorted(COUNTERS)}")
        t0 = time.perf_counter()
        rand = asyncio.run(play_all(game, "random", args.matches, args.concurrency))
        t1 = time.perf_counter()
        model = asyncio.run(play_all(game, "llm", args.matches, args.concurrency, params))
        t2 = time.perf_counter()
        decided = sum(d for _, d, _ in model)
        fell = sum(f for _, _, f in model)
        for figure in rand[0][0]:
            m = estimate([c for c, _, _ in model], figure, args.seed)
            r = estimate([c for c, _, _ in rand], figure, args.seed)
            line = {
                "figure": f"{game} {figure}",
                "game": game,
                "matches": args.matches,
                "speech": args.speech,
                "model": _est(m),
                "random": _est(r),
                **compare(figure, m, r),
                "model_decisions": decided,
                "model_fallback_share": round(fell / decided, 4) if decided else None,
                "model_wall_s": round(t2 - t1, 1),
                "random_wall_s": round(t1 - t0, 2),
                "load_avg_1m": round(os.getloadavg()[0], 2),
            }
            print(json.dumps(line), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
