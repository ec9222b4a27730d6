"""Calibrated rule bots: parameters, concealment, hammer rule, vote evidence (spec §8.3, §8.4)."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from arena.seeding import derive_seed
from games.avalon.bot_evil import MerlinStrategy
from games.avalon.bot_servant import ServantStrategy, SideBelief, hammer_leader
from games.avalon.bots import CALIBRATED, SPEC_DEFAULTS, RuleBot
from tests.games.played import play


def vote_state(**over: Any) -> dict[str, Any]:
    st = {"n_players": 5, "seat": 0, "n_evil": 2, "known_evil": [], "known_good": [],
          "merlin_candidates": [], "quests": [], "proposals": [], "quest": 1, "attempt": 1,
          "leader": 1, "team": [1, 2], "rules": {"fifth_proposal_rule": "hammer"}}  # fmt: skip
    st.update(over)
    return st


def outcomes(games: int, **params: Any) -> Counter[str]:
    """Labels of ``games`` seeded 5-player games through the runner; good seats get
    ``params``, evil the defaults."""
    labels: Counter[str] = Counter()
    for i in range(games):

        def factory(side: str, seat: int) -> RuleBot:
            return RuleBot(name="rule", **(params if side == "good" else {}))

        match = play("avalon", {}, derive_seed("calibration-test", i), factory,
                     by_team={"good": "good", "evil": "evil"})  # fmt: skip
        labels[match.result.outcome] += 1
    return labels


def test_rule_bot_defaults_are_the_calibration_and_spec_restores_the_literal_defaults() -> None:
    assert RuleBot(name="r").settings() == CALIBRATED
    assert RuleBot(name="r", calibration="spec").settings() == SPEC_DEFAULTS
    assert RuleBot(name="r", calibration="spec", gamma=2.0).settings()["gamma"] == 2.0
    assert CALIBRATED["p_conceal"] > 0 and CALIBRATED["gamma"] > 1  # spec options switched on
    with pytest.raises(ValueError, match="unknown"):
        RuleBot(name="r", gama=2.0)
    with pytest.raises(ValueError, match="calibration"):
        RuleBot(name="r", calibration="tuned")


def test_merlin_sometimes_approves_a_one_evil_quest_one_team_only_when_concealing() -> None:
    st = vote_state(known_evil=[2], team=[1, 2])
    honest = MerlinStrategy(random.Random(1), p_conceal=0.0)
    assert {honest.vote(st) for _ in range(200)} == {"reject"}
    hiding = MerlinStrategy(random.Random(1), p_conceal=0.75)
    votes = Counter(hiding.vote(st) for _ in range(400))
    assert 0.6 < votes["approve"] / 400 < 0.9
    # concealment is limited to quest 1 and to teams with exactly one evil player it sees
    assert {hiding.vote(vote_state(known_evil=[2], quest=2)) for _ in range(100)} == {"reject"}
    two = vote_state(known_evil=[1, 2], team=[1, 2])
    assert {hiding.vote(two) for _ in range(100)} == {"reject"}
    assert hiding.vote(vote_state(known_evil=[3], team=[1, 2])) == "approve"


def test_good_bots_approve_any_fifth_proposal_under_hammer_but_not_earlier() -> None:
    failed = [{"quest": 1, "team": [1, 2], "fails": 2, "result": "fail"}]
    dirty = vote_state(quests=failed, quest=2, team=[1, 2, 3], leader=1)
    servant = ServantStrategy(random.Random(0), delta=0.15)
    merlin = MerlinStrategy(random.Random(0), p_conceal=0.75)
    for k in (1, 2, 3, 4):
        assert servant.vote({**dirty, "attempt": k}) == "reject"
    assert servant.vote({**dirty, "attempt": 5}) == "approve"  # a rejection would lose at once
    seen = {**dirty, "known_evil": [1, 2], "attempt": 5}
    assert merlin.vote(seen) == "approve" and merlin.vote({**seen, "attempt": 4}) == "reject"
    auto = {**dirty, "attempt": 5, "rules": {"fifth_proposal_rule": "auto_approve"}}
    assert servant.vote(auto) == "reject"  # no hammer: the belief rule applies


def test_hammer_aware_servant_takes_the_fourth_team_rather_than_a_suspects_fifth() -> None:
    # seat 3 failed quest 1 alone -> certainly evil; it will lead the fifth proposal
    failed = [{"quest": 1, "team": [3], "fails": 1, "result": "fail"}]
    st = vote_state(quests=failed, quest=2, attempt=4, leader=2, team=[1, 2, 4])
    assert hammer_leader(st) == 3
    bel = SideBelief(st)
    assert bel.p_good(3) == 0.0 and bel.p_clean([1, 2, 4]) == pytest.approx(0.0)
    plain = ServantStrategy(random.Random(0), delta=0.0)
    aware = ServantStrategy(random.Random(0), delta=0.0, hammer_aware=True)
    assert plain.vote(st) == "reject"  # the best team (self + two) is clean with P = 1/3
    assert aware.vote(st) == "approve"  # but every team the fifth leader can field is dirty
    assert aware.vote({**st, "attempt": 3}) == "reject"  # only the last free vote
    trusted = {**st, "attempt": 4, "leader": 4}  # fifth leader = self: keep the usual bar
    assert hammer_leader(trusted) == 0 and aware.vote(trusted) == "reject"


def test_vote_evidence_makes_approvers_of_a_failed_team_more_suspect() -> None:
    votes = {"0": "reject", "1": "approve", "2": "approve", "3": "approve", "4": "reject"}
    st = vote_state(
        quests=[{"quest": 1, "team": [1, 2], "fails": 1, "result": "fail"}],
        proposals=[{"quest": 1, "attempt": 1, "leader": 1, "team": [1, 2], "approved": True,
                    "votes": votes}],
    )  # fmt: skip
    flat, weighted = SideBelief(st), SideBelief(st, gamma=3.0)
    assert flat.p_good(3) == pytest.approx(flat.p_good(4)) == pytest.approx(3 / 5)
    assert weighted.p_good(3) == pytest.approx(1 / 3)  # {1,3},{2,3} weigh 3; {1,2},{1,4},{2,4} 1
    assert weighted.p_good(4) == pytest.approx(7 / 9)


def test_calibrated_good_beats_the_uncalibrated_spec_defaults_over_seeded_games() -> None:
    spec, calibrated = outcomes(150, calibration="spec"), outcomes(150)
    assert spec["good_win"] / 150 < 0.15
    assert 0.2 < calibrated["good_win"] / 150 < 0.55
    assert calibrated["evil_win_quests"] < spec["evil_win_quests"] / 2


def test_concealment_lowers_the_assassins_hit_rate_over_seeded_games() -> None:
    def hit_rate(labels: Counter[str]) -> float:
        return labels["evil_win_assassination"] / (
            labels["evil_win_assassination"] + labels["good_win"]
        )

    assert hit_rate(outcomes(150, p_conceal=1.0)) < hit_rate(outcomes(150, p_conceal=0.0)) - 0.1


def test_vote_evidence_cuts_evil_quest_wins_over_seeded_games() -> None:
    off, on = outcomes(150, gamma=1.0), outcomes(150, gamma=3.0)
    assert on["evil_win_quests"] < off["evil_win_quests"] / 2
