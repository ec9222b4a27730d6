"""Every registered game and variant reproduces its fingerprint (see ``fingerprints.py``).

The expected values were printed by ``python -m tests.games.fingerprints`` over the code
before the engine's hot path was made lean (issue 12, item 7): events, observations, renders
and outcomes must not change with speed work. A game or variant added later is covered once its
printed fingerprint is added to ``EXPECTED``.

Reprinted once for issue 15, item 3: the env now steps every seat in a fixed cycle (a ``wait``
turn for a seat that owes nothing), so the observations the driver reads changed, and so did
the order in which its one random stream hands answers to the seats of a simultaneous phase
(hence events and outcomes). The engines did not change: a driver that gives each seat its own
random stream produced identical event logs for every variant before and after the change,
and the runner does not go through the env.

Reprinted for issue 15, item 9 (Werewolf's observations and outcomes only): free text sent to a
belief report is an invalid answer now, re-asked with the error and then replaced by the
fallback, where it used to count as a pass. The event logs and renders did not change.

Reprinted for Deal or No Deal and Werewolf observations only: a negotiate decision states the
seat's values, what walking away gives and what a standing offer is worth to it; a vote states
the voter's name and what it privately knows of the players it may vote for. Events, renders
and outcomes did not change.

Reprinted for Werewolf observations only: a turn to speak and last words state the speaker's
name and what it privately knows, and they and the wolves' night talk offer a menu of the
game's sentences the seat could say (``Decision.menu``).
Events, renders and outcomes did not change.
"""

from __future__ import annotations

import pytest

from arena import registry
from tests.games.fingerprints import fingerprint

EXPECTED = {
    ("auction", ""): {
        "events": "3da0be45afc6d1cb",
        "observations": "93b33b658939c02e",
        "renders": "02e712c7254f8f24",
        "outcomes": "74bb045e6c191e81",
    },
    ("auction", "default"): {
        "events": "3da0be45afc6d1cb",
        "observations": "93b33b658939c02e",
        "renders": "02e712c7254f8f24",
        "outcomes": "74bb045e6c191e81",
    },
    ("auction", "first_price"): {
        "events": "b19e1321d1f85ebf",
        "observations": "e4ddd24fc9683552",
        "renders": "c6aa63ec135ce48b",
        "outcomes": "cba489c7e226f9ce",
    },
    ("auction", "ascending"): {
        "events": "aaa573bff6792be6",
        "observations": "b534f38a6f1eb0a9",
        "renders": "dc13a620de308021",
        "outcomes": "aeacc262152ea491",
    },
    ("avalon", ""): {
        "events": "b9a64996706e800d",
        "observations": "4d1c4c0c3043751a",
        "renders": "0f2aa223a57ea5e4",
        "outcomes": "d0b9b084165330a1",
    },
    ("avalon", "basic5"): {
        "events": "b9a64996706e800d",
        "observations": "4d1c4c0c3043751a",
        "renders": "0f2aa223a57ea5e4",
        "outcomes": "d0b9b084165330a1",
    },
    ("avalon", "basic7"): {
        "events": "b9db9c9f4c0e46fb",
        "observations": "ec9fa017ddcc0b9b",
        "renders": "6e23c499dc9985b3",
        "outcomes": "abb4cb3eb00c173d",
    },
    ("avalon", "percival7"): {
        "events": "e65e01afecf19f34",
        "observations": "7ab7afbb483ee495",
        "renders": "4545d11d9108a74e",
        "outcomes": "1f82c0f4c41b85c3",
    },
    ("avalon", "basic10"): {
        "events": "a7bfc7e3426f9b10",
        "observations": "b965119c576c29d4",
        "renders": "1c6f6edf487e7cb3",
        "outcomes": "1a9263a360aaa8cf",
    },
    ("avalon", "full10"): {
        "events": "1eda9f26f35d4f89",
        "observations": "58b1df2fea18261a",
        "renders": "62d5ae39ae1153f0",
        "outcomes": "51fcf3ae1c334069",
    },
    ("avalon", "avalonbench"): {
        "events": "36bb5a8a7e28ef18",
        "observations": "ab83c71916de718c",
        "renders": "9e1a53b734688f97",
        "outcomes": "d40adb73b2650f23",
    },
    ("bargaining", ""): {
        "events": "dd0d27e7471f4979",
        "observations": "ddfdfd551a824116",
        "renders": "38663afc6a01a45c",
        "outcomes": "626de211aa763e2a",
    },
    ("bargaining", "default"): {
        "events": "dd0d27e7471f4979",
        "observations": "ddfdfd551a824116",
        "renders": "38663afc6a01a45c",
        "outcomes": "626de211aa763e2a",
    },
    ("bargaining", "discount"): {
        "events": "88dcf2dd5f5a9de3",
        "observations": "1f6c602cccec9603",
        "renders": "613aab0886398392",
        "outcomes": "626de211aa763e2a",
    },
    ("bargaining", "outside_options"): {
        "events": "1be87d0bf35fe057",
        "observations": "87502eb2f309c5f2",
        "renders": "de6d8b03e25a685a",
        "outcomes": "7cad65e63cc97eb2",
    },
    ("bargaining", "pie3"): {
        "events": "789029a230d7eb79",
        "observations": "8620b8187cd0adb0",
        "renders": "f45e6a0c03cae220",
        "outcomes": "64678e07f86fc47d",
    },
    ("bargaining", "pie5_majority"): {
        "events": "8770cada42c6a16a",
        "observations": "4026d60c955f5d4d",
        "renders": "3ecf89cbb1835181",
        "outcomes": "ae53b1829005a4e3",
    },
    ("bargaining", "auction"): {
        "events": "3da0be45afc6d1cb",
        "observations": "93b33b658939c02e",
        "renders": "02e712c7254f8f24",
        "outcomes": "74bb045e6c191e81",
    },
    ("bargaining", "auction_first_price"): {
        "events": "b19e1321d1f85ebf",
        "observations": "e4ddd24fc9683552",
        "renders": "c6aa63ec135ce48b",
        "outcomes": "cba489c7e226f9ce",
    },
    ("bargaining", "auction_ascending"): {
        "events": "aaa573bff6792be6",
        "observations": "b534f38a6f1eb0a9",
        "renders": "dc13a620de308021",
        "outcomes": "aeacc262152ea491",
    },
    ("dealornodeal", ""): {
        "events": "78bc75771275d483",
        "observations": "a04f2b9073b4f57e",
        "renders": "a0b55e2d6e0d6510",
        "outcomes": "0c8a81e29192eeb0",
    },
    ("dealornodeal", "default"): {
        "events": "78bc75771275d483",
        "observations": "a04f2b9073b4f57e",
        "renders": "a0b55e2d6e0d6510",
        "outcomes": "0c8a81e29192eeb0",
    },
    ("dealornodeal", "private_batna"): {
        "events": "bcb622bc38084e2f",
        "observations": "886075c5f054a99b",
        "renders": "41be6c3f4ea1192f",
        "outcomes": "a3c33d687148d4c8",
    },
    ("dealornodeal", "selection"): {
        "events": "69fdf6648411fb19",
        "observations": "0752facfd6adeaef",
        "renders": "f17591424991cd84",
        "outcomes": "3012ef360ec0edc2",
    },
    ("dealornodeal", "five_items"): {
        "events": "00414052883b2da0",
        "observations": "74b55216740c5664",
        "renders": "d549b3474b139679",
        "outcomes": "5bd0f8a091613cb9",
    },
    ("persona_dialogue", ""): {
        "events": "9c28630f0f61fbe1",
        "observations": "dfc98954f475cbc6",
        "renders": "a335f08e1aff0216",
        "outcomes": "9e795e63fc35f57f",
    },
    ("persona_dialogue", "round_robin"): {
        "events": "9c28630f0f61fbe1",
        "observations": "dfc98954f475cbc6",
        "renders": "a335f08e1aff0216",
        "outcomes": "9e795e63fc35f57f",
    },
    ("persona_dialogue", "free_for_all"): {
        "events": "4af70fe3a6d1bcce",
        "observations": "a7f544d8b9d309ec",
        "renders": "453cd64c7e2f76fb",
        "outcomes": "201a127dba845628",
    },
    ("persona_dialogue", "random_order"): {
        "events": "4c0ad12c6fe89765",
        "observations": "473280fad161c556",
        "renders": "b3e86acf505b4ed7",
        "outcomes": "bd310a052bb6587c",
    },
    ("persona_dialogue", "interrogation"): {
        "events": "6cea0a0a45c72300",
        "observations": "b540adb8127aae2a",
        "renders": "447b8145034af822",
        "outcomes": "f30adfa77b2d4b50",
    },
    ("persona_dialogue", "party4"): {
        # issue 15, item 13: scenario_truth (god-only) counts the seats a briefing told
        "events": "5908376ce6d7d0a9",
        "observations": "a0c75d545ff403d3",
        "renders": "55b642b1fa25db42",
        "outcomes": "4b0bc9e3b18ef653",
    },
    ("pie_division", ""): {
        "events": "789029a230d7eb79",
        "observations": "8620b8187cd0adb0",
        "renders": "f45e6a0c03cae220",
        "outcomes": "64678e07f86fc47d",
    },
    ("pie_division", "default"): {
        "events": "789029a230d7eb79",
        "observations": "8620b8187cd0adb0",
        "renders": "f45e6a0c03cae220",
        "outcomes": "64678e07f86fc47d",
    },
    ("pie_division", "five_majority"): {
        "events": "8770cada42c6a16a",
        "observations": "4026d60c955f5d4d",
        "renders": "3ecf89cbb1835181",
        "outcomes": "ae53b1829005a4e3",
    },
    ("price_bargaining", ""): {
        "events": "dd0d27e7471f4979",
        "observations": "ddfdfd551a824116",
        "renders": "38663afc6a01a45c",
        "outcomes": "626de211aa763e2a",
    },
    ("price_bargaining", "default"): {
        "events": "dd0d27e7471f4979",
        "observations": "ddfdfd551a824116",
        "renders": "38663afc6a01a45c",
        "outcomes": "626de211aa763e2a",
    },
    ("price_bargaining", "discount"): {
        "events": "88dcf2dd5f5a9de3",
        "observations": "1f6c602cccec9603",
        "renders": "613aab0886398392",
        "outcomes": "626de211aa763e2a",
    },
    ("price_bargaining", "outside_options"): {
        "events": "1be87d0bf35fe057",
        "observations": "87502eb2f309c5f2",
        "renders": "de6d8b03e25a685a",
        "outcomes": "7cad65e63cc97eb2",
    },
    ("werewolf", ""): {
        "events": "cefff3bb8d7d80d8",
        "observations": "32d5a7cd0533301c",
        "renders": "753cd8567e91d688",
        "outcomes": "1ef88c75b95d07c9",
    },
    ("werewolf", "classic8"): {
        "events": "cefff3bb8d7d80d8",
        "observations": "32d5a7cd0533301c",
        "renders": "753cd8567e91d688",
        "outcomes": "1ef88c75b95d07c9",
    },
    ("werewolf", "werewolf_arena"): {
        "events": "81ab638c99f47951",
        "observations": "bf6b69cd509e76e9",
        "renders": "865cdb8c7b626a59",
        "outcomes": "83ecf7387e5971f8",
    },
    ("werewolf", "secret_mafia"): {
        "events": "c93ba8a029494430",
        "observations": "5a811d03a40743d1",
        "renders": "8e5a6b25388375d7",
        "outcomes": "53d9231ae2385d6c",
    },
    # added with the variant; the same hashes on the code before the engine step work.
    # observations reprinted when vote prompts began to state the voter's own knowledge
    ("werewolf", "secret_mafia6"): {
        "events": "97acd18df2f08c84",
        "observations": "18f484f2656ea757",
        "renders": "bcab1b1b773cfc22",
        "outcomes": "dfccdc448bd0b09f",
    },
    ("werewolf", "agentscope9"): {
        "events": "ed10de33399c7491",
        "observations": "d9eceef43d2e7cd8",
        "renders": "d7609c4e569a0537",
        "outcomes": "154c7045c709ce7a",
    },
    ("werewolf", "comm_games7"): {
        "events": "509f9e1e333020de",
        "observations": "ec28d03bc1c14dcf",
        "renders": "1ba631ef24fb2d45",
        "outcomes": "a0e5b412f713b3f0",
    },
    ("werewolf", "duskmire"): {
        "events": "7660cf08949742bb",
        "observations": "07b7b526c981b98e",
        "renders": "4cad68fb1d98378f",
        "outcomes": "05ac6a60422c4d92",
    },
    ("werewolf", "async_day"): {
        "events": "4ddf51263e34ddfa",
        "observations": "8a8ce6438a72ebf1",
        "renders": "ff8c79bc96b84d5d",
        "outcomes": "508620cf6735ec94",
    },
}


@pytest.mark.parametrize(("game", "variant"), sorted(EXPECTED), ids=lambda v: v or "rules")
def test_fingerprint_unchanged(game: str, variant: str) -> None:
    info = registry.get(game)
    rules = info.variants[variant] if variant else {}
    assert fingerprint(info.env_id, rules) == EXPECTED[(game, variant)]
