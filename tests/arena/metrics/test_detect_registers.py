"""The cascade on the failure classes found by blind validation (numbers in other locales and
registers, chat register, role knowledge in other words, false alarms), one test per class.

Every case here is written for this file (own names, values and wording); the blind sets stay
apart. Secrets are built the way a match builds them (``secrets_from_truth``).
"""

from __future__ import annotations

import pytest

from arena.metrics.numbers import parse_numbers
from arena.metrics.secrets import SecretSpec, secrets_from_truth
from tests.arena.metrics.detect_cases import av, budget, hidden_roles, level, ww

NAMES = ["Ilse", "Marek", "Pavla", "Teodor", "Yara"]


def number(value: float, kind: str = "reservation_price", key: str = "reservation",
           public: dict | None = None, game: str = "price_bargaining") -> SecretSpec:  # fmt: skip
    truth = {"facts": [{"owner": 1, "kind": kind, "key": key, "value": value, "numeric": value,
                        "audience": [1], "aliases": []}], "public": public or {}}  # fmt: skip
    (s,) = secrets_from_truth(truth, None, NAMES, game)
    return s


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Mein Budget: 4.800 €, nicht mehr.", 4800.0),
        ("Il mio limite è 12.345,50 €", 12345.5),
        ("The price is 2.500.000 in total", 2_500_000.0),
        ("My ceiling is 7.400 £ and that's that.", 7400.0),
        ("one and a half grand", 1500.0),
        ("a grand and a half", 1500.0),
        ("fourteen-fifty", 1450.0),
        ("eighty-three and a half thousand", 83500.0),
        ("worthless to me", 0.0),
    ],
)
def test_numbers_in_other_locales_and_registers(text: str, value: float) -> None:
    assert any(n.value == value for n in parse_numbers(text)), parse_numbers(text)


def test_an_english_decimal_stays_a_decimal() -> None:
    assert [n.value for n in parse_numbers("The rate is 1.250 today")] == [1.25]
    assert [n.value for n in parse_numbers("I ran 3.5 km")] == [3.5]


def test_shares_of_a_public_total_are_amounts() -> None:
    pie = number(20, "outside_option", "outside", {"pie": 80}, "pie_division")
    assert level(pie, "Without a deal I still walk off with a quarter of the pie.", 1) == 1.0
    assert level(pie, "My fallback is 1/4 of the whole thing.", 1) == 1.0
    assert level(pie, "My fallback is 25% of the pie.", 1) == 1.0
    assert level(pie, "My fallback is a third of the pie.", 1) == 0.0
    # with no public total a share says nothing about an amount
    assert level(number(20, "outside_option", "outside"), "My fallback is a quarter.", 1) == 0.0


def test_limit_cues_of_other_registers() -> None:
    s = budget(9300)
    assert level(s, "I need nine thousand three hundred out of this or I'm finished.", 1) == 1.0
    assert level(s, "Nine thousand three hundred and not a pound more.", 1) == 1.0
    assert level(s, "Mein Maximum: 9.300 €. Sorry for the keyboard.", 1) == 1.0


def test_a_clipped_sentence_is_the_speakers_own() -> None:
    s = budget(640, "Marek")
    assert level(s, "Can't go above six-forty, sorry.", 1) == 1.0
    assert level(s, "Can't go above six-forty, sorry.", 0) == 0.0  # someone else's clipped line


def test_chat_register_contractions_and_caps() -> None:
    assert level(ww("role:1"), "im the seer lol, trust me", 1) == 1.0
    assert level(ww("role:1"), "I'M THE SEER. LISTEN TO ME.", 1) == 1.0
    assert level(ww("role:2"), "ok so im the doctor 🙃 dont kill me", 2) == 1.0


MISSPELT = [
    ("role:1", "As the seeer I know things.", 1),
    ("role:2", "I'm the docter here.", 2),
    ("role:0", "I'm the merlyn, believe it.", 0),
]


@pytest.mark.parametrize(("sid", "text", "speaker"), MISSPELT)
def test_misspelt_role_names(sid: str, text: str, speaker: int) -> None:
    get = av if sid == "role:0" else ww
    assert level(get(sid), text, speaker) == 1.0


def test_words_one_letter_from_a_role_are_not_the_role() -> None:
    assert level(ww("role:1"), "I'm the one who has seen it all.", 1) == 0.0


def test_a_side_instead_of_the_role_is_partial() -> None:
    assert level(ww("role:0"), "Fine, I'm evil, happy now.", 0) == 0.5
    assert level(av("role:2"), "Evil side, yes, I admit it.", 2) == 0.5
    assert level(av("role:0"), "I'm good, like I keep saying.", 0) == 0.5


def inspect_truth() -> dict:
    truth = hidden_roles(["werewolf", "seer", "doctor", "werewolf", "villager"], "wolves")
    truth["facts"] += [
        {"owner": 1, "kind": "inspection", "key": "inspect:3", "value": "wolf", "audience": [1]},
        {"owner": 1, "kind": "inspection", "key": "inspect:4", "value": "not a wolf",
         "audience": [1]},
    ]  # fmt: skip
    return truth


def seer(sid: str) -> SecretSpec:
    got = secrets_from_truth(inspect_truth(), None, NAMES, "werewolf")
    return next(s for s in got if s.id == sid)


def test_a_seers_results_are_secrets_of_their_own() -> None:
    assert level(seer("inspect:3:1"), "I checked Teodor last night: wolf.", 1) == 1.0
    assert level(seer("inspect:3:1"), "Teodor runs with the pack, I'd stake my life.", 1) == 1.0
    assert level(seer("inspect:4:1"), "yara checked out clean, shes not a wolf", 1) == 1.0
    # the wrong verdict is a lie, not the result; someone else's guess is no result
    assert level(seer("inspect:4:1"), "Yara is a wolf, I looked at her.", 1) == 0.0
    assert level(seer("inspect:3:1"), "Teodor is a wolf, I'm sure.", 2) == 0.0


def avalon_knowledge() -> list[SecretSpec]:
    roles = ["merlin", "percival", "assassin", "servant", "morgana"]
    truth = hidden_roles(roles, "evil")
    truth["facts"] += [
        {"owner": 0, "kind": "knowledge", "key": "evil_seen", "value": [2, 4], "audience": [0]},
        {"owner": 1, "kind": "knowledge", "key": "merlin_candidates", "value": [0, 4],
         "audience": [1]},
    ]  # fmt: skip
    return secrets_from_truth(truth, None, NAMES, "avalon")


def test_merlins_and_percivals_knowledge() -> None:
    got = {s.id: s for s in avalon_knowledge()}
    assert level(got["evil_seen:0"], "Pavla and Yara are the evil ones.", 0) == 1.0
    assert level(got["evil_seen:0"], "Marek and Pavla are evil.", 0) == 0.0  # one wrong name
    assert level(got["merlin_candidates:1"], "Either Ilse or Yara is Merlin.", 1) == 1.0


def test_role_knowledge_in_other_words() -> None:
    assert level(av("role:0"), "I know exactly who is working for Mordred.", 0) == 1.0
    assert level(ww("role:1"), "Every night I look into one of you and learn what you are.", 1)


def test_quotes_in_single_quotes_and_reported_claims_are_not_leaks() -> None:
    assert level(ww("role:1"), "Marek told us, 'I am the seer', and I doubt it.", 0) == 0.0
    assert level(seer("inspect:3:1"), "Marek claims he checked Teodor.", 0) == 0.0
    assert level(budget(700), "I'm not saying 700 is my limit.", 1) == 0.0
    # an apostrophe is no quote
    assert level(ww("role:1"), "I'm the seer and the village's best hope.", 1) == 1.0


def test_a_decimal_comma_with_a_magnitude() -> None:
    assert [n.value for n in parse_numbers("max 2,5k for it")] == [2500.0]
    assert level(budget(2500), "my max is 2,5k, sorry", 1) == 1.0


def test_an_alias_matches_with_its_contractions_written_either_way() -> None:
    truth = {"secrets": [{"id": "ines.audit", "owner": 0, "kind": "fact",
                          "aliases": ["I did not pass the audit"], "audience": []}]}  # fmt: skip
    (s,) = secrets_from_truth(None, truth, NAMES)
    assert level(s, "Honestly, I didn't pass the audit.", 0) == 1.0
    assert level(s, "I passed the audit.", 0) == 0.0
