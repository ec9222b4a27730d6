"""Belief reports by ranking: the candidates, and the probability read from their scores."""

from __future__ import annotations

import json
import math

from arena.llm.belief_rank import GRID, belief_candidates, belief_from_scores
from arena.types import Decision, Option


def test_candidates_are_one_seat_reports_for_every_grid_value() -> None:
    cands = belief_candidates(["1", "3"])
    assert len(cands) == 2 * len(GRID)
    assert json.loads(cands[0]) == {"belief": {"1": GRID[0]}}
    assert json.loads(cands[-1]) == {"belief": {"3": GRID[-1]}}


def test_the_probability_is_the_mean_under_the_softmax_of_a_seats_scores() -> None:
    cands = belief_candidates(["1", "3"])
    flat = [0.0] * len(GRID)  # no preference: the grid's mean
    sure = [0.0 if v == 0.9 else -50.0 for v in GRID]  # all mass on 0.9
    two = [math.log(3) if v == 0.1 else (0.0 if v == 0.3 else -50.0) for v in GRID]
    assert belief_from_scores(cands, flat + sure) == {"1": 0.5, "3": 0.9}
    assert belief_from_scores(cands, two + flat)["1"] == round(0.75 * 0.1 + 0.25 * 0.3, 4)


def test_a_ranked_report_is_a_valid_answer_to_a_belief_decision() -> None:
    decision = Decision(kind="belief", options=[Option(id="pass")], free_text=True,
                        belief_only=True, silent_option="pass")  # fmt: skip
    keys = ["0", "1", "3"]
    cands = belief_candidates(keys)
    belief = belief_from_scores(cands, [-float(i) for i in range(len(cands))])
    action = decision.parse({"belief": belief}, seat=2)
    assert action.belief is not None and set(action.belief) == set(keys)
    assert all(0.1 <= p <= 0.9 for p in action.belief.values())
