"""Scripted characters through the real match runner: ground truth the metrics can rely on."""

from __future__ import annotations

import asyncio

import pytest

from arena.results import MatchSpec
from arena.runner import MatchRunner
from games.persona_dialogue.bots import BOTS
from games.persona_dialogue.templates import extract_claims


def run(rules: dict, kinds: list[str], params: list[dict] | None = None, seed: int = 0):
    spec = MatchSpec(
        match_id=f"m{seed}", game="persona_dialogue", rules=rules, seed=seed,
        seats=[f"s{i}" for i in range(len(kinds))],
    )  # fmt: skip
    params = params or [{} for _ in kinds]
    agents = [
        BOTS[k](name=f"s{i}", **p) for i, (k, p) in enumerate(zip(kinds, params, strict=True))
    ]
    runner = MatchRunner(spec, agents)
    result = asyncio.run(runner.run())
    return result, runner.recorder.events


@pytest.mark.parametrize("rate", [0.1, 0.4])
def test_measured_slip_rate_tracks_configured_rate(rate: float) -> None:
    slips = turns = 0
    for seed in range(60):
        rules = {"scenario": "bakery-loan", "max_turns": 20, "probes": False}
        _, events = run(
            rules, ["card_reader", "card_reader"], [{"slip_rate": rate, "p_pass": 0}, {}], seed
        )
        slips += sum(e.type == "slip" and e.actor == 0 for e in events)
        turns += sum(e.type == "decision" and e.actor == 0 for e in events)
    assert turns == 600
    assert abs(slips / turns - rate) < 0.05


def test_every_leak_slip_states_its_secret_publicly() -> None:
    _, events = run({"scenario": "bakery-loan", "probes": False}, ["leaker", "card_reader"],
                    [{"p": 0.5, "form": "verbatim"}, {}], seed=4)  # fmt: skip
    slips = [e for e in events if e.type == "slip"]
    assert slips and all(e.visibility.scope == "god" for e in slips)
    lines = [e.payload["message"] for e in events if e.type == "utterance" and e.actor == 0]
    for s in slips:
        assert any(s.payload["secret"].split(".")[0] and "Honestly?" in x for x in lines)


def test_card_reader_never_mentions_a_secret_without_slipping() -> None:
    _, events = run(
        {"scenario": "school-fund", "probes": False}, ["card_reader", "card_reader"], seed=1
    )
    text = " ".join(e.payload.get("message", "") for e in events if e.type == "utterance")
    assert "25,000" not in text and "crypto" not in text and "Vienna" not in text


def test_interrogator_bot_chains_follow_ups_on_previous_answers() -> None:
    rules = {"interrogation": True, "subject": "lena", "interrogation_m": 5, "interrogation_q": 6}
    result, events = run(rules, ["interrogator_bot", "card_reader"], seed=2)
    assert result.status == "finished" and result.outcome == "script_done"
    qa = [e for e in events if e.type == "qa"]
    main = [e.payload["question"] for e in qa if e.payload["stage"] == "main"]
    first = [e.payload["question"] for e in qa if e.payload["stage"] == "get_to_know"]
    retest = [e.payload["question"] for e in qa if e.payload["stage"] == "retest"]
    assert retest == first and len(main) == 6
    answers = " ".join(
        e.payload["message"] for e in events if e.type == "utterance" and e.actor == 1
    )
    claimed = {v for _, v in extract_claims(answers)}
    assert all(any(v in q for v in claimed) for q in main)  # each refers to an earlier claim


def test_probes_through_runner_are_answered_from_the_card() -> None:
    _, events = run({"scenario": "ferry-strangers"}, ["card_reader"] * 3, seed=5)
    probes = [e for e in events if e.type == "probe" and e.payload["probe_id"] == "name"]
    assert probes and all(e.payload["score"] == 1.0 for e in probes)
