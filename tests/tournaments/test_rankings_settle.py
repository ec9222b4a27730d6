"""Issue 16's ratings target: a five-level known-strength Werewolf population (the rule bot at
slip 0, .25, .5, .75, 1) is ordered exactly by the leaderboard's sort key in >= 95% of fold
orders of the same results, at <= 300 matches.

The results are played once per module (300 rule-bot matches, seconds): the example config
``werewolf_slip_ladder.yaml`` as shipped (10 pairs x 30, master seed 2026).
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest
import yaml

from arena.ratings.leaderboard import leaderboard, report
from arena.results import MatchResult
from tournaments import config as tconfig
from tournaments.executor import Tournament

EXAMPLE = Path(__file__).parents[2] / "tournaments" / "examples" / "werewolf_slip_ladder.yaml"
TRUE_ORDER = ["slip000", "slip025", "slip050", "slip075", "slip100"]
FOLD_ORDERS = 20


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> list[MatchResult]:
    tmp = tmp_path_factory.mktemp("ladder")
    raw = yaml.safe_load(EXAMPLE.read_text())
    raw["output_dir"] = str(tmp)
    cfg = tconfig.parse(raw)
    results = asyncio.run(Tournament(cfg, tmp / "ladder", "ladder").run())
    assert len(results) == 300 and all(r.status == "finished" for r in results)
    return results


def fold_orders(results: list[MatchResult], n: int) -> list[list[MatchResult]]:
    """``n`` seeded permutations of the same results: plan indices reassigned and the list
    shuffled, so TrueSkill would fold them in ``n`` different orders."""
    out = []
    for seed in range(n):
        rng = random.Random(seed)
        idx = list(range(len(results)))
        rng.shuffle(idx)
        perm = [r.model_copy(update={"index": i}) for r, i in zip(results, idx, strict=True)]
        rng.shuffle(perm)
        out.append(perm)
    return out


def test_the_sort_key_orders_the_slip_ladder_exactly_in_95_percent_of_fold_orders(
    played: list[MatchResult],
) -> None:
    boards = [leaderboard(perm) for perm in fold_orders(played, FOLD_ORDERS)]
    exact = sum([r.agent for r in rows] == TRUE_ORDER for rows in boards)
    assert exact >= 0.95 * FOLD_ORDERS, [[r.agent for r in rows] for rows in boards]
    assert all(rows == boards[0] for rows in boards)  # not one number depends on the order


def test_rank_intervals_hold_the_true_ranks_and_the_report_is_order_free(
    played: list[MatchResult],
) -> None:
    doc = report(played, seed=11, bootstrap=500)
    rows = doc["rows"]
    assert [r["agent"] for r in rows] == TRUE_ORDER
    for true_rank, row in enumerate(rows, start=1):
        assert row["rank"] == true_rank
        assert row["rank_low"] <= true_rank <= row["rank_high"]
        assert row["mu_low"] < row["mu"] < row["mu_high"]
        assert row["side_balanced_low"] <= row["side_balanced_wr"] <= row["side_balanced_high"]
        assert set(row["roles"]) == set(row["roles_ci"]) and "werewolf" in row["roles"]
    # the extremes are told apart: slip 0 is never ranked below slip 1 in any resample's 95%
    assert rows[0]["rank_high"] < rows[-1]["rank_low"]
    shuffled = fold_orders(played, 1)[0]
    assert report(shuffled, seed=11, bootstrap=500)["rows"] == rows
