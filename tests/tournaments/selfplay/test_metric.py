"""``arena selfplay`` selects by its own metric, on DealOrNoDeal.

The seed context "Prefer walk_away." scores 0 in every game (walking away pays nobody). To the
game a walk-away is a 0–0 draw and a paying deal that gives the bot more is a loss, so a rating
over win/draw/loss ranks the context that never scores above those that do. With
``metric: score`` the board, the survivors and the reports must follow the scores. The scripted
reflector the run uses makes no model call: the budget counts none for it.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from arena.llm.fakes.context import ContextEngine
from arena.llm.server import ServerThread
from tests.tournaments.selfplay.selfplay_setup import raw_config, seed_bank
from tournaments.selfplay.config import parse
from tournaments.selfplay.driver import SelfPlay

WALK_AWAY = "Prefer walk_away."


@pytest.fixture(scope="module")
def walked(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("sp-metric")
    bank = seed_bank(tmp / "seed.sqlite")
    with ServerThread(ContextEngine(seed=1)) as server:
        raw = raw_config(
            server.url,
            bank,
            metric="score",
            generations=2,
            seed_context={"style": WALK_AWAY, "bank": str(bank), "insights": "none"},
        )
        asyncio.run(SelfPlay(parse(raw), tmp / "sp").run())
    return tmp / "sp" / "r0"


def _select_scores(gdir: Path) -> dict[str, dict[str, float]]:
    """candidate -> unit -> score over the generation's select games (the mean over replicates)."""
    out: dict[str, dict[str, list[float]]] = {}
    for phase in ("play", "replicates"):
        path = gdir / phase / "units.jsonl"
        rows = [json.loads(x) for x in path.open()] if path.exists() else []
        for r in rows:
            if r["split"] == "select":
                out.setdefault(r["candidate"], {}).setdefault(r["key"], []).append(r["score"])
    return {c: {u: float(np.mean(v)) for u, v in units.items()} for c, units in out.items()}


def _generations(rdir: Path) -> list[tuple[Path, dict[str, Any]]]:
    return [(p.parent, json.loads(p.read_text())) for p in sorted(rdir.glob("g*/generation.json"))]


def test_a_score_run_ranks_its_candidates_in_the_order_of_their_scores(walked: Path) -> None:
    gens = _generations(walked)
    assert len(gens) == 2
    seed = json.loads((walked / "seed.json").read_text())["id"]
    played: dict[str, dict[tuple[str, str], float]] = {}  # every select unit so far
    for gdir, gen in gens:
        scores = _select_scores(gdir)
        for cid, units in scores.items():
            played.setdefault(cid, {}).update({(gdir.name, u): s for u, s in units.items()})
        board = [c["id"] for c in gen["candidates"]]
        cons = {c["id"]: c["conservative"] for c in gen["candidates"]}
        assert board == sorted(board, key=lambda i: (-cons[i], i))  # the order selection uses
        means = {c: float(np.mean(list(played[c].values()))) for c in board}
        # the case of the bug: a context that never scores, ranked with contexts that do
        assert set(played[seed].values()) == {0.0}
        assert any(means[c] > 0 for c in board)
        # whoever played the same units as another and scored more is ranked above it
        for i, above in enumerate(board):
            for below in board[i + 1 :]:
                if set(played[above]) == set(played[below]):
                    assert means[above] >= means[below], (gdir.name, above, below, means)
        # each row reports the metric on this generation's units, and mu follows the scores
        assert gen["metric"] == "score"
        for row in gen["candidates"]:
            assert row["score"] == pytest.approx(np.mean(list(scores[row["id"]].values())))
            assert row["conservative"] == pytest.approx(row["mu"] - 2.0 * row["sigma"])
    # generation 0: every candidate is new and played the same units: the board is the order
    # of the mean scores, the seed is last, and the elite that survives is the best scorer
    gdir, first = gens[0]
    rows = first["candidates"]
    assert [r["score"] for r in rows] == sorted((r["score"] for r in rows), reverse=True)
    assert rows[0]["score"] > 0 and rows[-1]["score"] == 0.0
    assert first["candidates"][-1]["mu"] <= min(r["mu"] for r in rows)
    survivors = {c["id"] for c in json.loads((walked / "g001" / "population.json").read_text())}
    best = next(r["id"] for r in rows if r["id"] != first["incumbent"])
    assert best in survivors


def test_scripted_reflection_counts_no_llm_calls(walked: Path) -> None:
    population = json.loads((walked / "g001" / "population.json").read_text())
    assert any(c["operator"] == "reflect" for c in population)  # a reflection ran
    budget = json.loads((walked.parent / "budget.json").read_text())
    reflect = budget["phases"]["reflect"]
    assert reflect["llm_calls"] == 0 and reflect["tokens_out"] == 0
    # every LLM call the budget counts is one a game's record holds
    calls = sum(
        1
        for path in walked.glob("g*/*/matches/*.jsonl")
        for line in path.open()
        if json.loads(line)["type"] == "llm_call"
    )
    assert budget["total"]["llm_calls"] == calls > 0
