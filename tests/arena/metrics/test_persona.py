"""Persona consistency formulas (hand-computed) and the D5/D6/D7 controls."""

from __future__ import annotations

import numpy as np
import pytest

from arena import registry
from arena.metrics import persona as P
from arena.metrics.claims import Matcher, conflicts, extract

CARD = P.Card([
    {"slot": "name", "value": "Lena Vogt"}, {"slot": "age", "value": 34},
    {"slot": "occupation", "value": "baker"}, {"slot": "location", "value": "Leipzig"},
    {"slot": "hobbies", "value": "rowing", "multi_valued": True},
])  # fmt: skip


def run(lines: list[str], card=CARD):
    return P.consistency([(x, False) for x in lines], card, 0.0, {"baker"})


def test_pc_and_ic_hand_computed() -> None:
    r = run(["I'm 34 years old.", "I live in Leipzig.", "I'm 36 years old.", "I don't know.",
             "I'm 34 years old."])  # fmt: skip
    assert r["PC"] == 1 - 1 / 5  # turn 3 contradicts the card
    assert r["PC_claims"] == 1 - 1 / 4
    assert r["S_coop"] == 4 / 5
    # t* = 1; turns 2..5: turn 3 conflicts, turn 5 repeats a disputed value (not re-counted)
    assert r["S_nc"] == 1 - 1 / 4
    assert r["IC"] == pytest.approx(2 * 0.8 * 0.75 / (0.8 + 0.75))
    assert min(r["S_coop"], r["S_nc"]) <= r["IC"] <= max(r["S_coop"], r["S_nc"])
    assert r["expression"] == 2 / 4


@pytest.mark.parametrize(
    ("later", "flagged"),
    [("I'm 41 years old.", True), ("I work as a pilot.", True), ("I live in Porto.", True),
     ("I'm thirty-four years old.", False), ("I'm a master baker.", False),
     ("I enjoy chess.", False), ("I live in Leipzig.", False), ("I don't enjoy rowing.", True)],
)  # fmt: skip
def test_injected_contradictions_vs_equivalent_paraphrases(later: str, flagged: bool) -> None:
    r = run(
        ["I'm 34 years old.", "I work as a baker.", "I enjoy rowing.", "I live in Leipzig.", later]
    )
    assert bool(r["per_turn"][-1]["contra_card"]) == flagged
    assert bool(r["per_turn"][-1]["contra_self"]) == flagged


def test_third_distinct_value_is_flagged_but_legacy_repeat_is_not() -> None:
    r = run(["I live in Leipzig.", "I live in Porto.", "I live in Porto.", "I live in Osaka."])
    assert [t["contra_self"] for t in r["per_turn"]] == [0, 1, 0, 1]


def test_claim_filters() -> None:
    assert extract("When I was a kid I lived in Rome.")[0].past if extract(
        "When I was a kid I lived in Rome.") else True  # fmt: skip
    assert extract("Do you live in Rome?") == []
    assert extract('She said "I live in Rome".') == []
    assert extract("If I were rich I would live in Rome.") == []
    assert extract("I'm not a teacher.")[0].polarity == -1
    m = Matcher({"New York": ["NYC"]})
    assert m.same("location", "NYC", "New York") and not m.same("age", "34", "35")
    c = extract("I'm 35 years old.")[0]
    assert conflicts(m, c, False, [("34", 1)]) and not conflicts(
        Matcher(age_tol=1), c, False, [("34", 1)]
    )


def test_harmonic_composite_and_zero_rule() -> None:
    assert P.harmonic([1.0, 0.5]) == pytest.approx(2 / 3)
    assert P.harmonic([1.0, 0.0, 0.9]) == 0.0


def test_embedding_drift_formulas_hand_computed() -> None:
    e = np.eye(4)
    mu = np.array([1.0, 0, 0, 0])
    vecs = np.stack([mu, mu, mu, mu, mu, e[1], e[1], e[1]])  # d = 0,0,0,1,1,1 after anchor
    r = P.embedding_drift(vecs, list(range(1, 9)), None, 2)
    assert r["delta"] == pytest.approx(1 - 0)  # early [0,0,0], late [1,1,1]
    assert r["cohen_d"] is None  # zero pooled variance
    assert r["beta"] == pytest.approx(P.ols_slope([0, 0.2, 0.4, 0.6, 0.8, 1], [0, 0, 0, 1, 1, 1]))
    assert P.embedding_drift(vecs[:7], list(range(7)), None, 2)["delta"] is None  # < 6 points


def test_echo_injection(embedder) -> None:
    from arena.metrics.transcript import Message

    texts = ["The new oven should arrive on Monday morning with the delivery truck.",
             "I think we should check the flour stock before the weekend rush starts.",
             "My sister is visiting from Dresden next month for the festival.",
             "The bank wants two signatures on the loan papers by Friday noon.",
             "I prefer rye bread over white bread, especially with butter and salt.",
             "Our neighbours complained about the noise from the mixer at night.",
             "The festival committee asked us for three hundred pretzels this year.",
             "Rowing on the lake early in the morning clears my head completely."]  # fmt: skip
    msgs, t = [], 0
    for _i, x in enumerate(texts):
        t += 1
        msgs.append(Message(t, t, 0, x, frozenset({1}), "public", "", "utterance"))
        words = x.split()
        words[2] = "really"
        t += 1
        msgs.append(Message(t, t, 1, " ".join(words), frozenset({0}), "public", "", "utterance"))
    vec = {i: embedder.utterance(m.text) for i, m in enumerate(msgs)}
    echoer = P.echo(msgs, vec, 1, 0, 5, 8, [])
    source = P.echo(msgs, vec, 0, 0, 5, 8, [])
    assert echoer["copy_rate"] == 1.0 and source["copy_rate"] == 0.0
    assert echoer["echo_excess"] > 0.5
    assert abs(source["echo_excess"]) < 0.25


def test_impersonation_flags() -> None:
    assert P.impersonation("Omar: yes I agree", "Lena Vogt", ["Omar Haddad"])
    assert P.impersonation("My name is Omar.", "Lena Vogt", ["Omar Haddad"])
    assert P.impersonation("Assistant: sure", "Lena Vogt", ["Omar Haddad"])
    assert not P.impersonation("Omar, you are right.", "Lena Vogt", ["Omar Haddad"])


def test_story_consistency_for_hidden_roles() -> None:
    WEREWOLF = registry.knowledge("werewolf").role_synonyms
    r = P.story_consistency(["I am the Seer.", "Trust me.", "I'm a villager actually."], WEREWOLF)
    assert r["n_claims"] == 2 and r["story_consistency"] == 0.0
    assert (
        P.story_consistency(["I am the Seer.", "As I said, I am the seer."], WEREWOLF)[
            "story_consistency"
        ]
        == 1.0
    )


def _cards_log(lines):
    from .helpers import persona_log

    facts = [
        {"owner": 0, "slot": "occupation", "value": "baker"},
        {"owner": 0, "slot": "location", "value": "Leipzig"},
        {"owner": 1, "slot": "occupation", "value": "nurse"},
        {"owner": 1, "slot": "location", "value": "Leipzig"},
        {"owner": 1, "slot": "hobbies", "value": "rowing"},
    ]
    return persona_log([(0, t, None) for t in lines] + [(1, "Hello there.", None)], [],
                       facts=facts)  # fmt: skip


def test_impersonation_slot_values_flags_claims_unique_to_another_card() -> None:
    from arena.metrics.report import score_events
    from arena.metrics.settings import MetricsSettings
    from arena.metrics.stream import MetricsSink

    lines = [
        "I'm a nurse.",  # unique to Omar's card: flagged
        "I live in Leipzig.",  # both cards: not a claim to be someone else
        "I enjoy rowing.",  # multi-valued slot: never flagged
        "I used to be a nurse, years ago.",
    ]  # past claim: not flagged
    ev = _cards_log(lines)
    on = MetricsSettings(embeddings=False, impersonation_slot_values=True)
    row = score_events(ev, on, None)["persona"]["agents"]["0"]
    assert row["impersonation_slot_flags"] == [{"t": 1, "slot": "occupation", "value": "nurse",
                                                "of": 1}]  # fmt: skip
    assert row["impersonation_rate"] == 0.25 and row["impersonation_rate_names"] == 0.0
    off = score_events(ev, MetricsSettings(embeddings=False), None)["persona"]["agents"]["0"]
    assert off["impersonation_rate"] == 0.0 and "impersonation_slot_flags" not in off
    sink = MetricsSink(on)
    for e in ev:
        sink.write(e)
    assert [m.payload["impersonation"] for m in sink.metrics if m.payload["agent"] == 0] == [
        True, False, False, False]  # fmt: skip
