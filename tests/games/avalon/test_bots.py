"""Baseline bots: always legal, role dispatch, belief over side assignments (spec §8).

Bot games are played by the match runner (``tests/games/played.py``), strict: any refused
answer fails the test."""

from __future__ import annotations

from typing import Any

import pytest

from arena import registry
from games.avalon.bot_servant import SideBelief, best_team
from games.avalon.bots import BOTS, RandomBot, RuleBot
from games.avalon.endgame import EVIL_LABELS
from tests.games.played import Played, play


def rule_bots(rules: dict[str, Any], seed: int) -> Played:
    return play("avalon", rules, seed, lambda entry, seat: RuleBot(name="rule"))


CONFIGS: list[dict[str, Any]] = [
    {},
    {"preset": "avalonbench"},
    {"n_players": 7, "role_preset": "percival_morgana", "lady_of_the_lake": True},
    {"n_players": 10, "roles": ["merlin", "percival", "servant", "servant", "servant", "servant",
                                "assassin", "morgana", "mordred", "oberon"],
     "evil_see_roles": True, "belief_reports": "after_each_quest", "vote_reveal": "counts_only"},
]  # fmt: skip


def test_registry_exposes_random_and_rule_bots() -> None:
    bots = registry.bots("avalon")
    assert bots["random"] is RandomBot and bots["rule"] is RuleBot and bots == BOTS


@pytest.mark.parametrize("flags", CONFIGS)
@pytest.mark.parametrize("mix", ["rule", "random", "mixed"])
def test_bots_only_make_legal_moves_and_finish(flags: dict[str, Any], mix: str) -> None:
    def factory(entry: str, seat: int) -> Any:
        cls = {"rule": RuleBot, "random": RandomBot}.get(mix) or (
            RuleBot if seat % 2 else RandomBot
        )
        return cls(name=cls.kind)

    for seed in range(12):
        match = play("avalon", flags, seed, factory)  # strict: a refused answer fails
        eng = match.engine
        assert eng.is_over()
        reports = [e for e in eng.log if e.type == "belief" and e.payload["checkpoint"] == "end"]
        assert len(reports) == eng.n_seats
        for r in reports:
            assert set(r.payload["p_good"]) == {str(j) for j in range(eng.n_seats)} - {str(r.actor)}
        # a real ending, and the result names the side the label says won
        label = match.result.outcome
        assert label in {"good_win", *EVIL_LABELS}
        assert match.result.winners == ["good" if label == "good_win" else "evil"]


def test_bots_are_deterministic_given_the_seed() -> None:
    a, b = rule_bots({}, 5), rule_bots({}, 5)
    assert [e.model_dump() for e in a.engine.log] == [e.model_dump() for e in b.engine.log]
    assert [e.comparable() for e in a.events] == [e.comparable() for e in b.events]
    assert [e.comparable() for e in rule_bots({}, 6).events] != [e.comparable() for e in a.events]


def test_rule_bot_reads_its_role_and_evil_bots_never_fail_alone_on_quest_four_at_seven() -> None:
    for seed in range(30):
        match = rule_bots({"n_players": 7}, seed)
        eng, agents = match.engine, match.agents
        for e in eng.log:
            if e.type == "quest_cards" and e.payload["quest"] == 4:
                fails = [s for s, c in e.payload["cards"].items() if c == "fail"]
                assert len(fails) in (0, 2)
        for s, a in enumerate(agents):
            kind = type(a.strategy).__name__
            role = eng.role_of[s]
            want = {"merlin": "MerlinStrategy", "servant": "ServantStrategy"}.get(
                role, "EvilStrategy"
            )
            assert kind == want


def test_good_rule_bots_never_fail_a_quest_even_when_allowed() -> None:
    for seed in range(20):
        eng = rule_bots({"preset": "avalonbench"}, seed).engine
        for e in eng.log:
            if e.type == "quest_cards":
                for s, c in e.payload["cards"].items():
                    assert c == "success" or eng.side[int(s)] == "evil"


def servant_state(**over: Any) -> dict[str, Any]:
    st = {"n_players": 5, "seat": 0, "n_evil": 2, "known_evil": [], "known_good": [],
          "merlin_candidates": [], "quests": [], "proposals": []}  # fmt: skip
    st.update(over)
    return st


def test_servant_belief_keeps_only_assignments_consistent_with_fail_counts() -> None:
    st = servant_state(quests=[{"quest": 1, "team": [1, 2], "fails": 2, "result": "fail"}])
    bel = SideBelief(st)
    assert bel.p_good(1) == 0.0 and bel.p_good(2) == 0.0
    assert bel.p_good(3) == 1.0 and bel.p_good(4) == 1.0
    assert best_team(bel, st, 3) == [0, 3, 4]
    one = SideBelief(
        servant_state(quests=[{"quest": 1, "team": [1, 2], "fails": 1, "result": "fail"}])
    )
    # 6 assignments of 2 evil among 4 -> 5 contain seat 1 or 2; seat 1 is evil in 3 of them
    assert one.p_good(1) == pytest.approx(2 / 5) and one.p_good(3) == pytest.approx(3 / 5)
    assert one.p_clean([0, 3, 4]) == pytest.approx(1 / 5)


def test_percival_constraint_and_reset_when_evidence_is_impossible() -> None:
    bel = SideBelief(servant_state(merlin_candidates=[1, 2]))
    assert bel.p_good(1) == pytest.approx(0.5) and bel.p_good(2) == pytest.approx(0.5)
    assert len(bel.hyp) == 4  # exactly one of {1, 2} evil, the other evil among {3, 4}
    broken = SideBelief(
        servant_state(quests=[{"quest": 1, "team": [0], "fails": 1, "result": "fail"}])
    )
    assert broken.resets == 1 and len(broken.hyp) == 6
