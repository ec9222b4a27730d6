"""The sanity bench's counts, on rule-bot matches (no model): each figure counts what it says."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import llm_sanity  # noqa: E402
import selfplay_real  # noqa: E402


def test_random_play_counts_each_figure_with_its_own_denominator() -> None:
    rows = asyncio.run(llm_sanity.play_all("dealornodeal", "random", 12, 4))
    counts = [c for c, _, _ in rows]
    walked = sum(c["walk_away_with_better_offer"][0] for c in counts)
    turns = sum(c["walk_away_with_better_offer"][1] for c in counts)
    assert 0 <= walked <= turns and turns > 0
    assert all(c["win_rate"][1] == 1.0 for c in counts)
    est = llm_sanity.estimate(counts, "mean_score", 0)
    assert est.value is not None and est.low is not None and est.low <= est.value
    rows = asyncio.run(llm_sanity.play_all("werewolf", "random", 8, 4))
    votes = sum(c["votes_against_own_side"][1] for c, _, _ in rows)
    assert votes > 0 and all(d > 0 for _, d, _ in rows)  # the tested seat decided


def test_the_gate_is_sized_for_one_point() -> None:
    n = selfplay_real.gate_units(1.0, selfplay_real.SIGMA_ASSUMED, 0.025)
    assert n == 71  # (1.96 + 0.84)^2 * 3.0^2
    full = selfplay_real.SCALES["full"]
    assert 2 * full["units"]["gate"] >= n  # both seats of each gate deal
    mde = selfplay_real.detectable(2 * full["units"]["gate"], selfplay_real.SIGMA_ASSUMED, 0.025)
    assert mde is not None and mde <= 1.0


def test_the_wall_cap_can_be_lifted_and_defaults_to_the_scale() -> None:
    assert selfplay_real.config("full", 3, 1)["budget"]["wall_s"] == 5400
    assert selfplay_real.config("full", 3, 1, wall_s=6300.0)["budget"]["wall_s"] == 6300.0


def test_intervals_apart_are_separated_whichever_side_is_better() -> None:
    from arena.stats import Estimate

    model, rand = Estimate(2.6, 2.2, 3.0, 200), Estimate(3.8, 3.4, 4.3, 200)
    assert llm_sanity.compare("mean_score", model, rand) == {"better": False, "separated": True}
    assert llm_sanity.compare("mean_score", rand, model) == {"better": True, "separated": True}
    near = Estimate(3.5, 3.1, 3.9, 200)
    assert llm_sanity.compare("mean_score", near, rand) == {"better": False, "separated": False}


def test_every_scale_is_a_valid_config_whose_train_games_explore() -> None:
    from tournaments.selfplay.config import check, parse

    for scale in selfplay_real.SCALES:
        cfg = parse(selfplay_real.config(scale, 3, 1))
        check(cfg)
        assert cfg.units.train_temperature == selfplay_real.TRAIN_TEMPERATURE > 0
        assert cfg.base.params["backend"]["temperature"] == 0.0  # select and gate: greedy
        assert set(cfg.operators) == {"demonstrate", "reflect"}
