"""Rating-driven matchmaking by the planner: a round robin to place everyone, then the entries
whose places are unsure play (and a share of every round explores the pairs that met least),
within the budget, until every adjacent order is settled."""

from __future__ import annotations

import asyncio
import json
import math
from pathlib import Path

from arena.ratings import planner
from tests.builders import planner_run
from tournaments import config as tconfig
from tournaments.executor import Tournament


def test_planner_matchmaking_places_everyone_then_spends_on_unsure_entries(tmp_path: Path) -> None:
    cfg = tconfig.parse({**planner_run(budget=30), "output_dir": str(tmp_path)})
    results = asyncio.run(Tournament(cfg, tmp_path / "p", "p").run())
    assert 6 < len(results) <= 30
    ordered = sorted(results, key=lambda r: r.index)
    first = {tuple(sorted({s.agent for s in r.seats})) for r in ordered[:6]}
    assert len(first) == 6  # every pair once before the planner chooses
    # every later round went to pairs with an entry whose place was unsure at the time, but
    # for the exploration share (the pairs that met least)
    explore = math.ceil(planner.EXPLORE * 6)
    for k in range(6, len(ordered), 6):
        plan = planner.pairs(ordered[:k], confidence=0.9, seed=0, resamples=200)
        unsure = {e for p in plan if not p["settled"] for e in (p["above"], p["below"])}
        round_ = ordered[k : k + 6]
        assert (
            sum(1 for r in round_ if {s.agent for s in r.seats} & unsure) >= len(round_) - explore
        )
    # why it stopped is kept for the run's summary: settled before the budget, or the budget
    lines = [json.loads(x) for x in (tmp_path / "p" / "matchmaking.jsonl").read_text().splitlines()]
    stop = lines[-1]
    assert stop["matches"] == len(results)
    # every planned round is logged with what the planner saw and what it chose
    rounds = [x["round"] for x in lines if "round" in x]
    assert sum(len(r["chosen"]) for r in rounds) == len(results) - 6
    assert all(len(r["pairs"]) == 3 and all("p_order" in p for p in r["pairs"]) for r in rounds)
    assert stop["reason"] == ("settled" if len(results) < 30 else "budget")
