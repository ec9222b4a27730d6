"""Forfeits are rated, and the store, the leaderboard and the docs say so (issue 15, item 14).

A forfeit is the forfeiting seat's failure (no valid answer after the retries): its team loses
and every other team wins. The results store's ``seats.result`` holds exactly the result the
leaderboard rates; errored matches (the harness failed, not an agent) stay ``none``, unrated.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from arena.agents import RandomAgent
from arena.ratings.leaderboard import leaderboard
from arena.results import InvalidActionPolicy, MatchSpec
from arena.runner import MatchRunner
from arena.store import Store
from tests.arena.toygame import StubbornAgent

ROOT = Path(__file__).resolve().parents[2]


async def played(tmp_path: Path) -> Store:
    store = Store(tmp_path / "arena.sqlite")
    store.create_run("r", "forfeits", "toy", {})
    specs = [
        MatchSpec(match_id=f"m{i}", run_id="r", game="toy", rules={"n_players": 3}, seed=i,
                  index=i, seats=["stubborn" if s == i % 3 else "random" for s in range(3)])
        for i in range(6)
    ]  # fmt: skip
    store.plan(specs)
    for spec in specs:
        agents = [
            StubbornAgent("stubborn", answer="zzz")
            if name == "stubborn"
            else RandomAgent("random", p_speak=0.5)
            for name in spec.seats
        ]
        policy = InvalidActionPolicy(retries=0, fallback="forfeit")
        store.write_result(await MatchRunner(spec, agents, [], policy).run())
    return store


async def test_the_store_records_a_forfeit_as_the_leaderboard_rates_it(tmp_path: Path) -> None:
    store = await played(tmp_path)
    results = store.results()
    assert {r.status for r in results} == {"forfeited"}
    db = sqlite3.connect(tmp_path / "arena.sqlite")
    counts: dict[tuple[str, str], int] = {}
    for agent, result in db.execute("SELECT agent, result FROM seats"):
        counts[(agent, result)] = counts.get((agent, result), 0) + 1
    assert counts == {("stubborn", "loss"): 6, ("random", "win"): 12}  # no "none" left
    rows = {r.agent: r for r in leaderboard(results)}
    for agent, row in rows.items():
        assert (row.wins, row.draws, row.losses) == (
            counts.get((agent, "win"), 0),
            counts.get((agent, "draw"), 0),
            counts.get((agent, "loss"), 0),
        )
    assert rows["random"].mu > rows["stubborn"].mu
    store.close()


def test_the_docs_say_forfeits_are_rated() -> None:
    for doc in ("docs/architecture.md", "docs/tournaments.md"):
        text = " ".join((ROOT / doc).read_text().split())
        assert "Forfeited and errored matches are not rated" not in text, doc
        assert "forfeits are rated" in text.lower(), doc
