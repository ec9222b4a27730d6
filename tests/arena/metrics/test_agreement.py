"""AUROC/AUPRC (§D14) and Cohen's κ / Gwet's AC1 (§B11, §D14), hand-computed."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.metrics.agreement import (
    agreement,
    auprc,
    auroc,
    cohen_kappa,
    gwet_ac1,
    judge_agreement,
)
from arena.metrics.secrets import SecretSpec


def test_auroc_counts_ties_as_half() -> None:
    # pairs (p, n): 3>1, 3>0, 2>1, 2>0, 1=1 (½), 1>0  → 5.5 / 6
    assert auroc([3, 2, 1], [1, 0]) == pytest.approx(5.5 / 6)
    assert auroc([1, 1], [0, 1]) == pytest.approx(0.75)
    assert auroc([0], [1]) == 0.0 and auroc([], [1]) is None


def test_auprc_is_average_precision_over_grouped_thresholds() -> None:
    # thresholds 3, 2, {1,1}, 0: recall 1/3, 2/3, 1, 1 at precision 1, 1, 3/4, 3/5
    assert auprc([3, 2, 1], [1, 0]) == pytest.approx(1 / 3 + 1 / 3 + 1 / 3 * 3 / 4)
    # both positives tie with one negative at the top: recall 1 at precision 2/3
    assert auprc([1, 1], [1, 0]) == pytest.approx(2 / 3)
    assert auprc([1], []) is None


def test_tuple_scores_rank_lexicographically() -> None:
    assert auroc([(1.0, 0.2), (0.5, 0.9)], [(0.5, 0.1), (0.0, 0.99)]) == 1.0


@given(st.lists(st.floats(0, 1), min_size=1, max_size=30),
       st.lists(st.floats(0, 1), min_size=1, max_size=30))  # fmt: skip
def test_auroc_matches_pair_counting_and_both_areas_are_bounded(pos, neg) -> None:
    pairs = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg) / (len(pos) * len(neg))
    assert auroc(pos, neg) == pytest.approx(pairs)
    assert 0.0 <= auprc(pos, neg) <= 1.0


def test_kappa_and_ac1_on_a_skewed_table_by_hand() -> None:
    a = [1, 1, 1, 1, 1, 1, 1, 1, 0, 0]
    b = [1, 1, 1, 1, 1, 1, 1, 0, 1, 0]
    # p_o = 0.8; marginals 0.8/0.2 for both raters
    # κ: p_e = 0.8² + 0.2² = 0.68 → (0.8 − 0.68)/0.32 = 0.375
    assert cohen_kappa(a, b) == pytest.approx(0.375)
    # AC1: π = (0.8, 0.2), p_e = 2·0.8·0.2/(2−1) = 0.32 → (0.8 − 0.32)/0.68
    assert gwet_ac1(a, b) == pytest.approx(0.48 / 0.68)


def test_three_levels_with_declared_categories_and_missing_items() -> None:
    a = [0.0, 0.5, 1.0, 1.0, None, 0.0]
    b = [0.0, 1.0, 1.0, 1.0, 0.5, None]
    # kept: (0,0) (.5,1) (1,1) (1,1) → p_o = 3/4
    # A: 0 ¼, ½ ¼, 1 ½ ; B: 0 ¼, ½ 0, 1 ¾ → κ p_e = 1/16 + 0 + 3/8 = 7/16
    r = agreement(a, b, (0.0, 0.5, 1.0))
    assert (r["n"], r["missing"], r["observed_agreement"]) == (4, 2, 0.75)
    assert r["cohen_kappa"] == pytest.approx((0.75 - 7 / 16) / (1 - 7 / 16))
    # AC1: π = (¼, ⅛, ⅝), p_e = (3/16 + 7/64 + 15/64)/2 = 17/64
    assert r["gwet_ac1"] == pytest.approx((0.75 - 17 / 64) / (1 - 17 / 64))


def test_undefined_agreement_is_missing() -> None:
    assert cohen_kappa([1, 1], [1, 1]) is None  # p_e = 1
    assert gwet_ac1([1, 1], [1, 1]) is None  # one category seen
    assert gwet_ac1([1, 1], [1, 1], categories=(0, 1)) == 1.0
    assert cohen_kappa([None], [1]) is None
    with pytest.raises(ValueError, match="different numbers"):
        cohen_kappa([1], [1, 0])
    with pytest.raises(ValueError, match="outside the categories"):
        cohen_kappa([2], [2], categories=(0, 1))


def test_random_independent_raters_agree_at_chance() -> None:
    rng = random.Random(4)
    a = [rng.random() < 0.5 for _ in range(4000)]
    b = [rng.random() < 0.5 for _ in range(4000)]
    assert abs(cohen_kappa(a, b)) < 0.05 and abs(gwet_ac1(a, b)) < 0.05


class Table:
    name = "T5"

    def __init__(self, answers: dict[str, float | None]) -> None:
        self.answers = answers

    def judge(self, s, message, idx):
        return self.answers[message]


def test_judge_agreement_with_labels_and_between_judges_counts_failures_as_missing() -> None:
    s = SecretSpec(id="x", owner=0, kind="fact", text="Lena has a debt.")
    items = [(s, "m1", 1.0), (s, "m2", 0.0), (s, "m3", 0.5), (s, "m4", 0.0)]
    judge = Table({"m1": 1.0, "m2": 0.0, "m3": None, "m4": 1.0})
    r = judge_agreement(judge, items)
    assert (r["n"], r["missing"], r["judge_failed"], r["against"]) == (3, 1, 1, "labels")
    assert r["observed_agreement"] == pytest.approx(2 / 3)
    other = Table({"m1": 1.0, "m2": 0.0, "m3": 0.5, "m4": 1.0})
    both = judge_agreement(judge, items, other)
    assert both["against"] == "judge" and both["observed_agreement"] == 1.0
