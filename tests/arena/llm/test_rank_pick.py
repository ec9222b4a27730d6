"""Which ranked candidate answers: the likeliest at temperature 0, a seeded draw above it."""

from __future__ import annotations

import math
from collections import Counter

from arena.llm.rank_pick import pick_order

MESSAGES = [{"role": "user", "content": "Pick one."}]
CHOICES = ["a", "b", "c"]


def test_at_temperature_zero_the_likeliest_answers_and_ties_keep_the_earlier():
    assert pick_order([-3.0, -1.0, -1.0], 0.0, 7, MESSAGES, CHOICES) == [1, 2, 0]


def test_a_draw_is_the_same_for_the_same_request_and_the_rest_follow_by_score():
    orders = {tuple(pick_order([-1.0, -1.2, -1.1], 1.0, 7, MESSAGES, CHOICES)) for _ in range(5)}
    assert len(orders) == 1
    first, *rest = orders.pop()
    assert rest == sorted(rest, key=lambda j: -[-1.0, -1.2, -1.1][j])


def test_draws_follow_the_likelihoods_over_seeds():
    scores = [math.log(0.6), math.log(0.3), math.log(0.1)]
    n = 3000
    counts = Counter(pick_order(scores, 1.0, s, MESSAGES, CHOICES)[0] for s in range(n))
    for j, p in enumerate((0.6, 0.3, 0.1)):
        sd = math.sqrt(p * (1 - p) / n)
        assert abs(counts[j] / n - p) < 5 * sd  # 5 sd: this never fails by chance in practice


def test_a_low_temperature_sharpens_and_a_high_one_flattens():
    scores = [math.log(0.6), math.log(0.3), math.log(0.1)]
    cold = Counter(pick_order(scores, 0.2, s, MESSAGES, CHOICES)[0] for s in range(500))
    hot = Counter(pick_order(scores, 2.0, s, MESSAGES, CHOICES)[0] for s in range(500))
    assert cold[0] > 450 and hot[2] > cold[2]  # P(first) is 0.97 at 0.2, 0.47 at 2.0


def test_a_candidate_with_no_likelihood_is_never_drawn():
    scores = [-math.inf, -0.5, -0.7]
    assert all(pick_order(scores, 1.5, s, MESSAGES, CHOICES)[0] != 0 for s in range(300))


def test_the_draw_depends_on_the_seed_and_the_request():
    scores = [-1.0, -1.0, -1.0]
    firsts = {pick_order(scores, 1.0, s, MESSAGES, CHOICES)[0] for s in range(40)}
    assert firsts == {0, 1, 2}
    other = [{"role": "user", "content": "Pick another."}]
    assert any(
        pick_order(scores, 1.0, s, MESSAGES, CHOICES) != pick_order(scores, 1.0, s, other, CHOICES)
        for s in range(20)
    )
