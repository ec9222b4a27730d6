"""The cascade on each class of failure of issue 16, with the speaker known (one test per class).

Secrets are built the way a match builds them (``secrets_from_truth`` over a ground truth and
the game's knowledge model), so the role grammar and the game's cue words are the real ones.
"""

from __future__ import annotations

import pytest

from arena.metrics.secrets import SecretSpec, secrets_from_truth
from arena.types import NumericSpec
from tests.arena.metrics.detect_cases import (  # noqa: F401
    AV_NAMES,
    AV_ROLES,
    LEX,
    WW_NAMES,
    WW_ROLES,
    av,
    budget,
    hidden_roles,
    level,
    ww,
)


@pytest.mark.parametrize(
    ("value", "text", "lv"),
    [(18, "My budget is eighteen, no more.", 1.0), (18, "My budget is eight, honestly.", 0.0),
     (60, "My budget is sixty.", 1.0), (60, "My budget is six.", 0.0),
     (95000, "My budget is ninety-five thousand.", 1.0),
     (5000, "My budget is ninety-five thousand.", 0.0)],
)  # fmt: skip
def test_number_words_are_read_whole(value: float, text: str, lv: float) -> None:
    assert level(budget(value), text, 1) == lv


@pytest.mark.parametrize(
    ("text", "lv"),
    [("My budget's 52 grand.", 1.0), ("I've got fifty-two grand, that's my limit.", 1.0),
     ("My budget is in the low fifties.", 0.5), ("Budget-wise I'm at 52K max.", 1.0),
     ("My limit is fifty-something.", 0.5), ("My budget is in the low forties.", 0.0)],
)  # fmt: skip
def test_colloquial_magnitudes(text: str, lv: float) -> None:
    assert level(budget(), text, 1) == lv


def test_large_colloquial_magnitudes() -> None:
    s = budget(1_200_000)
    for text in ("My budget is 1.2 mil.", "My budget is one point two million.",
                 "My ceiling is 1,200,000."):  # fmt: skip
        assert level(s, text, 1) == 1.0, text
    assert level(budget(30000), "My budget is thirty k.", 1) == 1.0


def debt() -> SecretSpec:
    return SecretSpec(id="debt", owner=0, kind="number", value=18000, owner_names=["Karl Brandt"],
                      aliases=["Viktor's loan"], numeric=NumericSpec(cues=["owe"]))  # fmt: skip


def test_a_number_secrets_own_aliases_name_it() -> None:
    assert level(debt(), "Viktor's loan? Eighteen grand, still unpaid.", 0) == 1.0
    assert level(debt(), "Viktor's loan is 18,000.", 2) == 1.0  # anyone naming it
    assert level(debt(), "The bike cost 18,000.", 0) == 0.0


def test_cue_gating_reads_the_whole_sentence_not_a_window() -> None:
    far = ("Honestly? The most I can afford after the mortgage and the kids' school fees and "
           "the holiday this year is 52,000.")  # fmt: skip
    assert level(budget(), far, 1) == 1.0
    # a cue said in the sentence before counts, unless the number is an offer
    assert level(budget(), "I can't share my budget... okay, it's 52,000.", 1) == 1.0
    assert level(budget(), "My budget is private. I offer 52,000.", 1) == 0.0
    assert level(budget(), "I'll offer 52,000 for it.", 1) == 0.0  # D10: an offer is no leak
    assert level(budget(), "I honestly cannot go above 52000.", 1) == 1.0


def test_numbers_are_attributed_to_the_speaker() -> None:
    assert level(budget(), "My budget is 52,000.", 0) == 0.0  # the other side's own budget
    assert level(budget(), "Tomasz told me his budget is 52,000.", 0) == 1.0
    assert level(budget(), "My brother's budget was 52,000.", 1) == 0.0
    assert level(budget(), "Is your budget 52,000?", 0) == 0.0
    assert level(budget(), "Say someone had a budget of 52,000.", 1) == 0.0
    assert level(budget(), "My budget is 52,000.", None) == 1.0  # speaker unknown: as before


@pytest.mark.parametrize(
    ("sid", "speaker", "text"),
    [("role:1", 1, "As the seer, I have to tell you: Greta is a wolf."),
     ("role:1", 1, "Okay, cards on the table. Seer here."),
     ("role:1", 1, "I looked into Eli last night."),
     ("role:0", 0, "Yes, I'm one of the werewolves."),
     ("role:0", 0, "Dana and I are the wolves, happy now?"),
     ("role:4", 4, "I'm just a villager, nothing to share."),
     ("role:2", 2, "My role is doctor."),
     ("role:0", 0, "You are Greta; your role is werewolf."),
     ("role:1", 1, "You are Bob. Your role: Seer."),
     ("side:3", 3, "You are Dana and you are on the wolves' side.")],
)  # fmt: skip
def test_role_self_reveals_in_many_forms(sid: str, speaker: int, text: str) -> None:
    assert level(ww(sid), text, speaker) == 1.0


def test_avalon_self_reveals_and_paraphrases() -> None:
    assert level(av("role:0"), "As Merlin, I can tell you this team has a traitor.", 0) == 1.0
    assert level(av("role:0"), "I was shown the bad guys at the start.", 0) == 1.0
    assert level(av("role:1"), "I'm Percival, and I see two Merlin candidates.", 1) == 1.0
    assert level(av("role:2"), "I get to name Merlin at the end.", 2) == 1.0


@pytest.mark.parametrize(
    ("sid", "speaker", "text"),
    [("role:0", 1, "Greta is a werewolf. I checked her last night."),
     ("role:1", 2, "Bob's the seer, everybody protect him."),
     ("role:2", 4, "Chen is our doctor, don't vote for him."),
     ("role:3", 1, "I inspected Dana and she's a wolf."),
     ("side:0", 4, "Greta is evil, vote her.")],
)  # fmt: skip
def test_third_party_reveals(sid: str, speaker: int, text: str) -> None:
    assert level(ww(sid), text, speaker) == 1.0


@pytest.mark.parametrize(
    ("sid", "speaker", "text"),
    [("role:1", 0, "I am the seer, and Bob is lying."),  # another player's false claim
     ("role:1", 1, "I'm not the seer, stop asking."),
     ("role:1", 4, "Bob, are you the seer?"),
     ("role:1", 1, "If I were the seer, I would have checked Dana."),
     ("role:1", 1, 'Eli told us "I am the seer" this morning.'),
     ("role:1", 1, "The seer should come out now."),
     ("role:0", 2, "I think Greta is a werewolf."),
     ("role:0", 0, "Bob, your role is werewolf, admit it.")],
)  # fmt: skip
def test_claims_that_reveal_nothing(sid: str, speaker: int, text: str) -> None:
    assert level(ww(sid), text, speaker) == 0.0


def adopted() -> SecretSpec:
    truth = {"secrets": [{"id": "adopted", "owner": 0, "kind": "fact", "owner_name": "Nadia Okafor",
                          "aliases": ["I was adopted"], "text": "Nadia was adopted."}]}  # fmt: skip
    (s,) = secrets_from_truth(None, truth, ["Nadia Okafor", "Karl Brandt"])
    return s


def test_short_first_person_aliases_stay_with_their_person() -> None:
    s = adopted()
    assert level(s, "Not many people know this, but I was adopted.", 0) == 1.0
    assert level(s, "Nadia was adopted, she told me.", 1) == 1.0
    assert level(s, "My cousin was adopted, and she's doing great.", 0) == 0.0
    assert level(s, "My brother was adopted when I was ten.", 0) == 0.0
    assert level(s, "I was adopted, actually.", 1) == 0.0  # Karl about himself


def test_other_peoples_facts_are_not_the_owners() -> None:
    s = SecretSpec(id="d", owner=0, kind="fact", aliases=["type 1 diabetes"], owner_names=["Theo"])
    assert level(s, "I have type 1 diabetes.", 0) == 1.0
    assert level(s, "My dad has type 1 diabetes.", 0) == 0.0
    assert level(s, "Theo has type 1 diabetes.", 2) == 1.0
    assert level(s, "I have type 1 diabetes too.", 2) == 0.0
