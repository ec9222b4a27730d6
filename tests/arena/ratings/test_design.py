"""The planner's round design: matches go where they lower the risk of a wrong order most."""

from __future__ import annotations

import math

import numpy as np

from arena.ratings import design

NAMES = ["a", "b", "c", "d"]
THETA = [1.5, 0.4, 0.1, -2.0]  # logits, board order


def records(bc: tuple[float, int]) -> dict[tuple[str, str], tuple[float, int]]:
    """a far above, d far below; b and c close: ``bc`` is b's record against c, while b beats d
    far more often than c does."""
    return {("a", "b"): (16, 20), ("a", "c"): (19, 20), ("a", "d"): (20, 20), ("b", "c"): bc,
            ("b", "d"): (19, 20), ("c", "d"): (14, 20)}  # fmt: skip


def model_risk(
    rec: dict[tuple[str, str], tuple[float, int]], counts: dict[tuple[str, str], int]
) -> float:
    """The risk of the design's model with ``counts`` more matches per pair."""
    cand = [(a, b) for x, a in enumerate(NAMES) for b in NAMES[x + 1 :]]
    i = np.array([NAMES.index(a) for a, _ in cand])
    j = np.array([NAMES.index(b) for _, b in cand])
    n = np.array([rec[p][1] + counts.get(p, 0) for p in cand], dtype=float)
    th = np.array(THETA)
    p = np.array([
        (rec[(a, b)][0] + design.PRIOR_MATCHES / (1 + math.exp(-(th[x] - th[y]))))
        / (rec[(a, b)][1] + design.PRIOR_MATCHES)
        for (a, b), x, y in zip(cand, i, j, strict=True)
    ])  # fmt: skip
    return design.risk(i, j, n, p, th, [1])


def test_a_round_lowers_the_risk_more_than_the_same_matches_spread_evenly() -> None:
    rec = records((10, 20))
    chosen = design.greedy_round(NAMES, THETA, rec, unsure=[1], matches=24)
    assert sum(chosen.values()) == 24
    even = {p: 4 for p in rec}  # 24 matches over the six pairs
    assert model_risk(rec, chosen) < model_risk(rec, even) < model_risk(rec, {})


def test_an_even_head_to_head_gets_nothing_and_an_agreeing_one_gets_matches() -> None:
    split = design.greedy_round(NAMES, THETA, records((10, 20)), unsure=[1], matches=24)
    assert split.get(("b", "c"), 0) == 0  # it would shrink the very gap it should confirm
    assert split.get(("b", "d"), 0) > 0
    clear = design.greedy_round(NAMES, THETA, records((15, 20)), unsure=[1], matches=24)
    assert clear.get(("b", "c"), 0) > 0  # a head-to-head that shows the gap is the best test


def test_settled_entries_play_only_against_unsure_ones() -> None:
    chosen = design.greedy_round(NAMES, THETA, records((10, 20)), unsure=[1], matches=40)
    assert ("a", "d") not in chosen  # neither a nor d is in an unsettled pair
    assert all(b in ("b", "c") or a in ("b", "c") for a, b in chosen)


def test_nothing_to_design_without_matches_or_unsure_pairs() -> None:
    assert design.greedy_round(NAMES, THETA, records((10, 20)), unsure=[], matches=10) == {}
    assert design.greedy_round(NAMES, THETA, records((10, 20)), unsure=[1], matches=0) == {}
