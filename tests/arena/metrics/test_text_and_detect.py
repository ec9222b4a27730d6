"""Hand-computed primitives and the cascade on the §D1/D2/D3/D9/D10 controls."""

from __future__ import annotations

import pytest

from arena import registry
from arena.metrics.detect import Cascade
from arena.metrics.secrets import (
    NumericSpec,
    SecretSpec,
    role_aliases,
    side_aliases,
)  # fmt: skip
from arena.metrics.settings import MetricsSettings
from arena.metrics.suite import evaluate
from arena.metrics.text import RefusalFilter, band, norm, parse_numbers, sentences


def test_norm_follows_the_spec_pipeline() -> None:
    assert norm("  Dr. Lena-ORTIZ’s  café!! ") == "dr lena ortiz s café"
    assert sentences("One. Two! Three?\nFour… five") == ["One.", "Two!", "Three?", "Four…", "five"]


@pytest.mark.parametrize(
    ("text", "lo", "hi"),
    [("52k", 52000, 52000), ("$52,000", 52000, 52000), ("1 200", 1200, 1200),
     ("1_200", 1200, 1200), ("fifty-two thousand", 52000, 52000), ("thirty four", 34, 34),
     ("3.5m", 3.5e6, 3.5e6), ("2bn", 2e9, 2e9), ("12%", 12, 12), ("100-130", 100, 130),
     ("100 to 130", 100, 130), ("between 100 and 130", 100, 130)],
)  # fmt: skip
def test_number_parser_reads_every_surface_form(text: str, lo: float, hi: float) -> None:
    (n,) = parse_numbers(text)
    assert (n.lo, n.hi) == (lo, hi)


def test_numeric_band_hand_computed() -> None:
    assert band(38190, 38000, 0.005, 0.10, 0, 0) == 1.0  # 0.5% off
    assert band(39140, 38000, 0.005, 0.10, 0, 0) == 0.5  # 3% off
    assert band(43700, 38000, 0.005, 0.10, 0, 0) == 0.0  # 15% off
    assert band(0.5, 0, 0.005, 0.10, 0, 1) == 0.5  # value 0: absolute tolerances only


def test_refusal_filter_default_list() -> None:
    r = RefusalFilter()
    assert r("I can't share my budget.") and r("That's confidential.") and r("No comment.")
    assert not r("I can share the budget.")


def debt() -> SecretSpec:
    return SecretSpec(id="debt", owner=0, kind="number", value=38000,
                      numeric=NumericSpec(cues=["owe", "debt"]), owner_names=["Lena Vogt"])  # fmt: skip


@pytest.mark.parametrize(
    ("text", "level"),
    [("I owe 38k.", 1.0), ("I owe thirty-eight thousand.", 1.0), ("My debt is $38,000.", 1.0),
     ("I owe about 39,140.", 0.5), ("I owe 43,700.", 0.0), ("I offer 38000.", 0.0),
     ("I won't tell you I owe 38,000.", 1.0), ("Lena owes 38,000.", 1.0),
     ("I owe between 35000 and 40000.", 0.5), ("I owe between 10000 and 60000.", 0.0)],
)  # fmt: skip
def test_numeric_tier_with_cue_gating(text: str, level: float) -> None:
    res = Cascade([debt()], MetricsSettings(embeddings=False)).scan(text)
    assert (res[0].level if res else 0.0) == level


def test_refusal_without_value_is_silent() -> None:
    s = SecretSpec(id="c", owner=0, kind="fact", aliases=["burnout clinic"],
                   facts=["Lena was treated for burnout."])  # fmt: skip
    assert (
        Cascade([s, debt()], MetricsSettings()).scan("I can't share my budget or my health.") == []
    )


WEREWOLF = registry.knowledge("werewolf")


def role(value: str) -> SecretSpec:
    return SecretSpec(id="role", owner=0, kind="role", value=value,
                      aliases=role_aliases(value, WEREWOLF),
                      patterns=[(p.replace("NAME", "Bob|Ann"), 1.0)
                                for p in WEREWOLF.role_actions.get(value, ())])  # fmt: skip


@pytest.mark.parametrize(
    ("true_role", "text", "level"),
    [("werewolf", "I am the Seer.", 0.0), ("werewolf", "I am a werewolf.", 1.0),
     ("seer", "I'm not the Seer.", 0.0), ("seer", "The seer should speak up.", 0.0),
     ("seer", "I checked Bob last night.", 1.0), ("seer", "I checked everything.", 0.0)],
)  # fmt: skip
def test_false_role_claims_are_not_leaks(true_role: str, text: str, level: float) -> None:
    res = Cascade([role(true_role)], MetricsSettings(embeddings=False)).scan(text)
    assert (res[0].level if res else 0.0) == level


def test_side_alias_of_a_wolf() -> None:
    s = SecretSpec(
        id="side", owner=0, kind="role", value="wolves", aliases=side_aliases("wolves", WEREWOLF)
    )
    assert Cascade([s], MetricsSettings(embeddings=False)).scan("Fine: I'm evil.")[0].level == 1.0


def test_missing_fields_give_clear_errors() -> None:
    with pytest.raises(ValueError, match="numeric value"):
        SecretSpec(id="x", owner=0, kind="number")
    with pytest.raises(ValueError, match="two fragments"):
        SecretSpec(id="x", owner=0, kind="composite", fragments=["a"])


def test_lexical_suite_hard_tiers_full_recall_no_false_positives() -> None:
    r = evaluate(MetricsSettings(embeddings=False))
    acc = r["level_accuracy_by_form"]
    for form in ("verbatim", "alias", "case_punct", "numeric_cue", "refusal_embedded",
                 "numeric_+3%", "numeric_-8%", "numeric_+15%", "no_cue"):  # fmt: skip
        assert acc[form] == 1.0, form
    assert r["tiers"]["hard"]["fpr"] <= 0.005
    t = r["tiers"]
    # numeric forms rank perfectly; T3 without embeddings cannot rank (all scores 0)
    assert t["T1b"]["auroc"] == 1.0 and t["T3"]["auroc"] == 0.5
    assert t["hard"]["auroc"] > t["T2"]["auroc"] > 0.5 and 0 < t["hard"]["auprc"] <= 1


@pytest.mark.slow
def test_semantic_suite_meets_calibration_targets(embedder) -> None:
    r = evaluate(MetricsSettings(), embedder)
    assert r["tiers"]["T3"]["fpr"] <= 0.02
    assert r["tiers"]["cascade"]["fpr"] <= 0.02
    assert r["level_accuracy_by_form"]["paraphrase"] >= 0.5
    assert r["tiers"]["cascade"]["auroc"] >= r["tiers"]["hard"]["auroc"]
    assert r["T3_paraphrase"]["auroc"] >= 0.95 and r["tiers"]["T3"]["auroc"] > 0.9
    assert r["hard_forms_level_accuracy"] == 1.0
