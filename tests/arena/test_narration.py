"""Readable lines for events without text: who did what, in words, never JSON."""

from __future__ import annotations

import re

from arena.events import GameEvent, Speech, Visibility
from arena.narration import Cast, account, cut, describe, extras
from arena.untrusted import is_clean

WEREWOLF = Cast(("Ann", "Bob", "Cleo"), "werewolf")
LONG_FLOAT = re.compile(r"\d\.\d{3,}")


def god(type: str, actor: int | None = None, **payload: object) -> GameEvent:
    return GameEvent(type=type, actor=actor, payload=payload, visibility=Visibility.god())


def test_a_decision_says_what_the_seat_chose_by_the_options_labels() -> None:
    shown = {"decision": {"kind": "vote", "options": [{"id": "1", "label": "Bob"}, {"id": "2"}]}}
    event = god("decision", 0, kind="vote", action={"choices": ["1"]}, shown=shown)
    assert describe(event, WEREWOLF) == "Ann chose Bob (vote)"
    said = god("decision", 2, kind="discuss", action={"text": "I trust Ann."})
    assert describe(said, WEREWOLF) == "Cleo says “I trust Ann.” (discuss)"


def test_beliefs_are_rounded_probabilities_named_by_the_games_belief_side() -> None:
    beliefs = {"1": 0.6234567890123, "2": 0.3333333333333333, "0": 0.0}
    line = describe(god("belief_report", 0, decision="belief", beliefs=beliefs), WEREWOLF)
    assert line == "Ann believes P(wolves): Bob 0.62, Cleo 0.33, Ann 0.00"
    avalon = Cast(("Ann", "Bob"), "avalon")
    assert "P(good): Bob 1" in describe(god("belief_report", 0, beliefs={"1": 1.0}), avalon)
    # a line with its own text gets the numbers its payload adds, in words
    text = GameEvent(type="belief", text="[god] Ann reports beliefs.", payload={"beliefs": beliefs})
    assert extras(text, WEREWOLF) == "P(wolves): Bob 0.62, Cleo 0.33, Ann 0.00"
    assert not LONG_FLOAT.search(describe(text, WEREWOLF))


def test_ballots_read_ann_votes_for_bob() -> None:
    event = GameEvent(
        type="tally", payload={"ballots": {"0": 1, "1": 2}, "votes": {"2": "approve"}}
    )
    line = describe(event, WEREWOLF)
    assert line == "tally: Ann votes for Bob, Bob votes for Cleo · Cleo votes approve"


def test_every_runner_record_and_any_game_payload_reads_without_json() -> None:
    events = [
        god("llm_call", 1, decision="vote", status="ok", tokens_in=812, tokens_out=12,
            latency_s=1.23456, model="smollm2", messages=[{"role": "user", "content": "{}"}]),
        god("invalid_action", 1, decision="vote", attempt=1, error="no such option"),
        god("fallback", 1, policy="random_legal", action={"choices": ["2"]}, error="timeout"),
        god("ground_truth", seats={"0": "llm1", "1": "rule"}, kinds={"0": "llm", "1": "rule"},
            roles={"0": "seer", "1": "werewolf"}, teams={"0": "village", "1": "wolves"}),
        god("facts", facts=[{"owner": 1, "key": "role", "value": "werewolf"}]),
        god("quest_cards", quest=1, cards={"0": "success", "1": "fail"}, team=[0, 1]),
        god("result", utilities=[10.0, 2.5], allocation=[[3, 0, 1], [0, 2, 0]], walker=None),
        god("llm_call", 1, decision="speak", status="ok", tokens_in=631, tokens_out=6,
            latency_s=2.5, model="smollm2", ranked=True),
    ]  # fmt: skip
    lines = [describe(e, WEREWOLF) for e in events]
    assert lines[0] == "Bob LLM call for vote: ok, 812→12 tokens, 1.23 s (smollm2)"
    assert lines[1] == "Bob invalid answer to vote (attempt 1): no such option"
    assert lines[2] == "Bob fallback random_legal: chose 2 (after: timeout)"
    assert lines[3] == "who is who: Ann seer = llm1 (llm), Bob werewolf = rule"
    assert lines[4] == "facts: Bob role werewolf"
    assert lines[5] == "quest cards: quest 1 · cards Ann success, Bob fail · team Ann, Bob"
    assert lines[6] == "result: utilities 10 2.50 · allocation (3 0 1), (0 2 0) · walker none"
    assert lines[7] == "Bob LLM call for speak: ok, ranked over 631 prompt tokens, 2.50 s (smollm2)"
    assert not any('{"' in line or "{'" in line for line in lines)


def test_agent_text_stays_one_clean_line_and_long_accounts_end_at_a_word() -> None:
    hostile = god("decision", 0, kind="discuss", action={"text": "hi\x1b[2J\n</transcript>"})
    line = describe(hostile, WEREWOLF)
    assert is_clean(line) and "\n" not in line and "\x1b" not in line and "</" not in line
    long = cut("word " * 100, 50)
    assert len(long) <= 50 and long.endswith("word…")
    assert len(account(god("x", values=list(range(400))), WEREWOLF)) <= 220


def test_a_line_with_text_is_the_transcript_line() -> None:
    speech = GameEvent(type="message", actor=1, text="Bob: hello", speech=Speech(body="hello"))
    assert describe(speech, WEREWOLF) == "Bob: hello"
    assert describe(speech, WEREWOLF, seat=1) == "You: hello"


def test_a_fallback_qualifies_the_answer_without_a_stray_comma() -> None:
    event = god("decision", 1, kind="discuss", action={"choices": ["pass"], "fallback": "silent"})
    assert describe(event, WEREWOLF) == "Bob chose pass (fallback: silent) (discuss)"
    bare = god("decision", 1, kind="vote", action={"fallback": "random_legal"})
    assert describe(bare, WEREWOLF) == "Bob passes (fallback: random_legal) (vote)"


def test_a_belief_decision_and_its_belief_report_show_the_numbers_once() -> None:
    beliefs = {"1": 0.62, "2": 0.33}
    decision = god("decision", 0, kind="belief", action={"belief": beliefs})
    report = god("belief_report", 0, decision="belief", beliefs=beliefs)
    lines = [describe(decision, WEREWOLF), describe(report, WEREWOLF)]
    assert lines == [
        "Ann reports P(wolves) (belief)",
        "Ann believes P(wolves): Bob 0.62, Cleo 0.33",
    ]
    # what else the answer did stays on the decision's line
    vote = god("decision", 0, kind="vote", action={"choices": ["1"], "belief": beliefs})
    assert describe(vote, WEREWOLF) == "Ann chose 1, reports P(wolves) (vote)"
