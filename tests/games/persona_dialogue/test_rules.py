"""Rules: actions, invalid input, termination, turn modes, interrogation, scoring, snapshots."""

from __future__ import annotations

import random

import pytest

from arena.types import Action, InvalidAction
from games.persona_dialogue.rules import PersonaDialogueEngine
from tests.games.persona_dialogue.driver import play


def eng(**rules: object) -> PersonaDialogueEngine:
    return PersonaDialogueEngine({"probes": False, **rules}, seed=0)


def test_private_message_to_unknown_character_is_invalid_and_changes_nothing() -> None:
    e = eng(scenario="wedding-budget")
    before = [x.model_dump() for x in e.log]
    with pytest.raises(InvalidAction, match="no character named"):
        e.apply(0, "@Gandalf: hello")
    with pytest.raises(InvalidAction):
        e.apply(0, {"choice": ["to:gandalf"], "text": "hello"})
    assert [x.model_dump() for x in e.log] == before and e.turn == 0 and e.pending() == [0]


def test_private_message_to_departed_character_is_invalid() -> None:
    e = eng(scenario="wedding-budget")
    e.apply(0, "Hello all.")
    e.apply(1, "leave")
    e.apply(2, "Hi.")
    e.apply(3, "Hi.")
    assert "to:dev" not in e.decision(0).option_ids
    with pytest.raises(InvalidAction, match="has left"):
        e.apply(0, "@Dev: where did you go?")


def test_private_messages_refused_when_scenario_forbids_them() -> None:
    e = eng(scenario="night-helpline")
    with pytest.raises(InvalidAction, match="does not allow private"):
        e.apply(0, "@Mira: hi")


def test_overlong_message_and_agreeing_to_unknown_proposition_are_invalid() -> None:
    e = eng(scenario="bakery-loan", max_message_chars=20)
    with pytest.raises(InvalidAction):
        e.apply(0, "x" * 21)
    with pytest.raises(InvalidAction):
        e.apply(0, {"choice": "agree:moon"})


def test_conversation_ends_at_max_turns() -> None:
    e = eng(scenario="bakery-loan", max_turns=3)
    for s in (0, 1, 0):
        e.apply(s, "Hi.")
    assert e.is_over() and e.outcome().label == "max_turns"


def test_conversation_ends_when_fewer_than_two_remain() -> None:
    e = eng(scenario="allotment-water")
    e.apply(0, "leave")
    assert not e.is_over()
    e.apply(1, "leave")
    assert e.is_over() and e.outcome().label == "everyone_left"


def test_one_silent_round_is_stale() -> None:
    e = eng(scenario="allotment-water")
    e.apply(0, "Hello.")
    for s in (1, 2, 0):
        assert not e.is_over()
        e.apply(s, "pass")
    assert e.outcome().label == "stale"


def test_free_for_all_tick_is_delivered_together_after_everyone_answered() -> None:
    e = eng(scenario="bakery-loan", turn_mode="free_for_all")
    assert e.pending() == [0, 1] and e.decision(0).simultaneous
    e.apply(0, "first")
    assert not any(x.type == "utterance" for x in e.log)
    assert e.pending() == [1]
    e.apply(1, "second")
    assert sum(x.type == "utterance" for x in e.log) == 2 and e.turn == 1


def test_two_silent_ticks_end_free_for_all() -> None:
    e = eng(scenario="bakery-loan", turn_mode="free_for_all")
    for _ in range(2):
        e.apply(0, "pass")
        e.apply(1, "pass")
    assert e.outcome().label == "stale"


def test_agreement_scores_rule_goals() -> None:
    e = eng(scenario="bakery-loan", goal_scoring="rule", max_turns=2)
    e.apply(0, "Will you co-sign?")
    e.apply(1, "agree:cosign")
    out = e.outcome()
    assert out.rewards[0] == pytest.approx(1.0)  # agreed (0.7) + kept clinic secret (0.3)
    assert out.rewards[1] == 0.0  # never learned the debt


def test_learning_a_number_secret_needs_its_cue() -> None:
    e = eng(scenario="bakery-loan", goal_scoring="rule", max_turns=4)
    e.apply(0, "The oven costs 38,000 euros.")
    e.apply(1, "Hm.")
    assert e.outcome() is None
    e.apply(0, "Fine: I owe 38k to the supplier.")
    e.apply(1, "Thanks for telling me.")
    assert e.outcome().rewards[1] == 1.0


def test_judge_hook_missing_score_is_omitted_not_zero() -> None:
    e = PersonaDialogueEngine(
        {"scenario": "bakery-loan", "goal_scoring": "judge", "max_turns": 1, "probes": False,
         "judge": "tests.games.persona_dialogue.test_rules:half_judge"},
        seed=0,
    )  # fmt: skip
    e.apply(0, "Hello.")
    assert e.outcome().rewards == {0: 0.5}  # Omar's judgement is missing


def half_judge(request: object) -> float | None:
    return 0.5 if getattr(request, "seat", None) == 0 else None


def test_interrogation_runs_three_stages_then_ends() -> None:
    e = eng(interrogation=True, subject="omar", interrogation_m=3, interrogation_q=2)
    assert e.names == ["Interviewer", "Omar Haddad"] and e.cast.max_turns == 16
    stages = []
    while not e.is_over():
        seat = e.pending()[0]
        if seat == 0:
            stages.append(e.state(0)["stage"])
        e.apply(seat, f"line {len(e.log)}")
    assert stages == ["get_to_know"] * 3 + ["main"] * 2 + ["retest"] * 3
    assert e.outcome().label == "script_done"
    qa = [x for x in e.log if x.type == "qa"]
    assert [x.payload["retest_of"] for x in qa] == [None] * 5 + [0, 1, 2]
    assert all(x.visibility.scope == "god" for x in qa)
    assert "retest" not in e.render(1) and "stage" not in e.state(1)


def test_same_seed_and_actions_give_the_same_log() -> None:
    def run() -> list[dict]:
        e = PersonaDialogueEngine({"scenario": "street-festival"}, seed=11)
        play(e, random.Random(5))
        return [x.model_dump() for x in e.log]

    assert run() == run()


def test_snapshot_restore_replays_exactly() -> None:
    e = PersonaDialogueEngine({"scenario": "move-day"}, seed=2)
    rng = random.Random(2)
    for _ in range(5):
        s = e.pending()[0]
        e.apply(s, Action(text=f"hello {s}"))
    blob = e.snapshot()
    tail1 = play(e, random.Random(9))
    log1 = [x.model_dump() for x in e.log]
    e.restore(blob)
    play(e, random.Random(9))
    assert [x.model_dump() for x in e.log] == log1 and tail1
    assert rng  # the driver's own RNG is independent of the engine's


def test_slip_annotation_becomes_god_only_event() -> None:
    e = eng(scenario="bakery-loan")
    e.apply(0, Action(text="I owe 38k.", meta={"slip": {"type": "leak", "secret": "lena.debt"}}))
    slip = [x for x in e.log if x.type == "slip"]
    assert len(slip) == 1 and slip[0].visibility.scope == "god"
    assert slip[0].payload["slip_type"] == "leak" and slip[0].payload["secret"] == "lena.debt"


def test_private_facts_carry_audiences_and_kinds() -> None:
    e = eng(scenario="wedding-budget")
    facts = {(f.owner, f.kind, f.key): f for f in e.private_facts()}
    preg = facts[(0, "secret", "chiara.pregnant")]
    assert preg.audience == (0, 1) and "I'm pregnant" in preg.aliases
    debt = facts[(3, "secret", "rajesh.pension_loss")]
    assert debt.numeric == 60000.0 and debt.audience == (3,)
    partner = facts[(0, "persona_fact", "partner_name")]
    assert set(partner.audience) == {0, 1, 2, 3}  # family, romantic and acquaintance know it
    assert facts[(1, "goal", "goal")].audience == (1,)
    truth = next(x for x in e.log if x.type == "scenario_truth")
    spec = next(s for s in truth.payload["secrets"] if s["id"] == "chiara.pregnant")
    assert spec["severity"] == 4 and spec["audience"] == [1] and spec["owner"] == 0
