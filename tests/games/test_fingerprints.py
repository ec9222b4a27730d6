"""Every registered game and variant reproduces its fingerprint (see ``fingerprints.py``).

The expected values were printed by ``python -m tests.games.fingerprints`` over the code
before the engine's hot path was made lean (issue 12, item 7): events, observations, renders
and outcomes must not change with speed work. A game or variant added later is covered once its
printed fingerprint is added to ``EXPECTED``.
"""

from __future__ import annotations

import pytest

from arena import registry
from tests.games.fingerprints import fingerprint

EXPECTED = {
    ("auction", ""): {
        "events": "560c8e5415282102",
        "observations": "16c9682a430cea7e",
        "renders": "209dc723498a260c",
        "outcomes": "c5d075a19f11062d",
    },
    ("auction", "default"): {
        "events": "560c8e5415282102",
        "observations": "16c9682a430cea7e",
        "renders": "209dc723498a260c",
        "outcomes": "c5d075a19f11062d",
    },
    ("auction", "first_price"): {
        "events": "880a6c37f322efaa",
        "observations": "6bff6d13edad079d",
        "renders": "d8e837f8de00328c",
        "outcomes": "ba54cb3161e9c7c3",
    },
    ("auction", "ascending"): {
        "events": "d98662a2c8f58c4d",
        "observations": "54fa0ebda981545b",
        "renders": "b1a3cf5f700ba320",
        "outcomes": "bf95905d3def4931",
    },
    ("avalon", ""): {
        "events": "b59069a47e3b0f37",
        "observations": "127a3ef992222656",
        "renders": "600ac7473d915046",
        "outcomes": "5606daa45ae5c71b",
    },
    ("avalon", "basic5"): {
        "events": "b59069a47e3b0f37",
        "observations": "127a3ef992222656",
        "renders": "600ac7473d915046",
        "outcomes": "5606daa45ae5c71b",
    },
    ("avalon", "basic7"): {
        "events": "ef7f8ac71d182cf9",
        "observations": "86bbe11c10e20a82",
        "renders": "53370f44f523723f",
        "outcomes": "e3ce26f2924a4177",
    },
    ("avalon", "percival7"): {
        "events": "93d4b9a3b6d494a6",
        "observations": "2849a6a086673c4b",
        "renders": "a03c7db96d90109e",
        "outcomes": "e3ce26f2924a4177",
    },
    ("avalon", "basic10"): {
        "events": "f420d0dbc2325014",
        "observations": "c69825be3dc7c16d",
        "renders": "7e899fe447f7c3df",
        "outcomes": "5eea762d6c7650d5",
    },
    ("avalon", "full10"): {
        "events": "5ee42d3204d49081",
        "observations": "c19893ba0eda5f14",
        "renders": "2503848c466905e1",
        "outcomes": "5a8e5e93c2da3a3b",
    },
    ("avalon", "avalonbench"): {
        "events": "b4d2ae6ca7757c3e",
        "observations": "792bc5b1e829d405",
        "renders": "3521f4272826d493",
        "outcomes": "d40adb73b2650f23",
    },
    ("bargaining", ""): {
        "events": "dd0d27e7471f4979",
        "observations": "3bb85fe7bb9e360f",
        "renders": "38663afc6a01a45c",
        "outcomes": "626de211aa763e2a",
    },
    ("bargaining", "default"): {
        "events": "dd0d27e7471f4979",
        "observations": "3bb85fe7bb9e360f",
        "renders": "38663afc6a01a45c",
        "outcomes": "626de211aa763e2a",
    },
    ("bargaining", "discount"): {
        "events": "88dcf2dd5f5a9de3",
        "observations": "b4ad2a9735063cfc",
        "renders": "613aab0886398392",
        "outcomes": "626de211aa763e2a",
    },
    ("bargaining", "outside_options"): {
        "events": "1be87d0bf35fe057",
        "observations": "2801b8bc7e876e96",
        "renders": "de6d8b03e25a685a",
        "outcomes": "7cad65e63cc97eb2",
    },
    ("bargaining", "pie3"): {
        "events": "789029a230d7eb79",
        "observations": "410787e45524b3ae",
        "renders": "f45e6a0c03cae220",
        "outcomes": "64678e07f86fc47d",
    },
    ("bargaining", "pie5_majority"): {
        "events": "8770cada42c6a16a",
        "observations": "468a61653365a01d",
        "renders": "3ecf89cbb1835181",
        "outcomes": "ae53b1829005a4e3",
    },
    ("bargaining", "auction"): {
        "events": "560c8e5415282102",
        "observations": "16c9682a430cea7e",
        "renders": "209dc723498a260c",
        "outcomes": "c5d075a19f11062d",
    },
    ("bargaining", "auction_first_price"): {
        "events": "880a6c37f322efaa",
        "observations": "6bff6d13edad079d",
        "renders": "d8e837f8de00328c",
        "outcomes": "ba54cb3161e9c7c3",
    },
    ("bargaining", "auction_ascending"): {
        "events": "d98662a2c8f58c4d",
        "observations": "54fa0ebda981545b",
        "renders": "b1a3cf5f700ba320",
        "outcomes": "bf95905d3def4931",
    },
    ("dealornodeal", ""): {
        "events": "78bc75771275d483",
        "observations": "d62a0b331613874f",
        "renders": "a0b55e2d6e0d6510",
        "outcomes": "0c8a81e29192eeb0",
    },
    ("dealornodeal", "default"): {
        "events": "78bc75771275d483",
        "observations": "d62a0b331613874f",
        "renders": "a0b55e2d6e0d6510",
        "outcomes": "0c8a81e29192eeb0",
    },
    ("dealornodeal", "private_batna"): {
        "events": "bcb622bc38084e2f",
        "observations": "318693fe6d5ded13",
        "renders": "41be6c3f4ea1192f",
        "outcomes": "a3c33d687148d4c8",
    },
    ("dealornodeal", "selection"): {
        "events": "fd2e91f4f6b62c63",
        "observations": "dd51cb80f5972ea2",
        "renders": "a25b0b5702607f77",
        "outcomes": "0a67e5d3d21d6f01",
    },
    ("dealornodeal", "five_items"): {
        "events": "00414052883b2da0",
        "observations": "46a949189a7d8d7d",
        "renders": "d549b3474b139679",
        "outcomes": "5bd0f8a091613cb9",
    },
    ("persona_dialogue", ""): {
        "events": "9c28630f0f61fbe1",
        "observations": "2368ee4fbf85d667",
        "renders": "a335f08e1aff0216",
        "outcomes": "9e795e63fc35f57f",
    },
    ("persona_dialogue", "round_robin"): {
        "events": "9c28630f0f61fbe1",
        "observations": "2368ee4fbf85d667",
        "renders": "a335f08e1aff0216",
        "outcomes": "9e795e63fc35f57f",
    },
    ("persona_dialogue", "free_for_all"): {
        "events": "62ee86e681a483ae",
        "observations": "57fbe42ad2c506ec",
        "renders": "8b4f8c66ca6c412c",
        "outcomes": "be4137a2d6b286a2",
    },
    ("persona_dialogue", "random_order"): {
        "events": "4c0ad12c6fe89765",
        "observations": "4bd8bc6fb0b0675d",
        "renders": "b3e86acf505b4ed7",
        "outcomes": "bd310a052bb6587c",
    },
    ("persona_dialogue", "interrogation"): {
        "events": "6cea0a0a45c72300",
        "observations": "928449bde8cb9daa",
        "renders": "447b8145034af822",
        "outcomes": "f30adfa77b2d4b50",
    },
    ("persona_dialogue", "party4"): {
        "events": "fa4669aa64490799",
        "observations": "f83cf6799441a67e",
        "renders": "55b642b1fa25db42",
        "outcomes": "4b0bc9e3b18ef653",
    },
    ("pie_division", ""): {
        "events": "789029a230d7eb79",
        "observations": "410787e45524b3ae",
        "renders": "f45e6a0c03cae220",
        "outcomes": "64678e07f86fc47d",
    },
    ("pie_division", "default"): {
        "events": "789029a230d7eb79",
        "observations": "410787e45524b3ae",
        "renders": "f45e6a0c03cae220",
        "outcomes": "64678e07f86fc47d",
    },
    ("pie_division", "five_majority"): {
        "events": "8770cada42c6a16a",
        "observations": "468a61653365a01d",
        "renders": "3ecf89cbb1835181",
        "outcomes": "ae53b1829005a4e3",
    },
    ("price_bargaining", ""): {
        "events": "dd0d27e7471f4979",
        "observations": "3bb85fe7bb9e360f",
        "renders": "38663afc6a01a45c",
        "outcomes": "626de211aa763e2a",
    },
    ("price_bargaining", "default"): {
        "events": "dd0d27e7471f4979",
        "observations": "3bb85fe7bb9e360f",
        "renders": "38663afc6a01a45c",
        "outcomes": "626de211aa763e2a",
    },
    ("price_bargaining", "discount"): {
        "events": "88dcf2dd5f5a9de3",
        "observations": "b4ad2a9735063cfc",
        "renders": "613aab0886398392",
        "outcomes": "626de211aa763e2a",
    },
    ("price_bargaining", "outside_options"): {
        "events": "1be87d0bf35fe057",
        "observations": "2801b8bc7e876e96",
        "renders": "de6d8b03e25a685a",
        "outcomes": "7cad65e63cc97eb2",
    },
    ("werewolf", ""): {
        "events": "8f68a94d54f4fd31",
        "observations": "7673f7f376bf4069",
        "renders": "6fb49e9edd1599a5",
        "outcomes": "25bbb6cba6ab9103",
    },
    ("werewolf", "classic8"): {
        "events": "8f68a94d54f4fd31",
        "observations": "7673f7f376bf4069",
        "renders": "6fb49e9edd1599a5",
        "outcomes": "25bbb6cba6ab9103",
    },
    ("werewolf", "werewolf_arena"): {
        "events": "6f1993de8aee6a59",
        "observations": "005898cac7d85705",
        "renders": "36691649033abb80",
        "outcomes": "300766894f194f57",
    },
    ("werewolf", "secret_mafia"): {
        "events": "ddf93fa62d58f371",
        "observations": "4da15113429fcff1",
        "renders": "2e53b3ec0d0d77bf",
        "outcomes": "2390f6469d00ca73",
    },
    ("werewolf", "agentscope9"): {
        "events": "44575678a93b36fe",
        "observations": "463336b190a4aedb",
        "renders": "eb514aa9204aff96",
        "outcomes": "33d4613e1e51fedf",
    },
    ("werewolf", "comm_games7"): {
        "events": "b17966b7477507d3",
        "observations": "e4786c13889a4173",
        "renders": "5d13f216ae745cb9",
        "outcomes": "0b13ff9afd27cdc9",
    },
    ("werewolf", "duskmire"): {
        "events": "6cedcc46b10a251b",
        "observations": "705a5802bc8ba4a0",
        "renders": "79921d0dcbed5618",
        "outcomes": "cf3d27ded2e51b3d",
    },
    ("werewolf", "async_day"): {
        "events": "78920abb5807bbd0",
        "observations": "433efe4a119fd454",
        "renders": "2bfda39470eac2e4",
        "outcomes": "5b27567c5b58bc98",
    },
}


@pytest.mark.parametrize(("game", "variant"), sorted(EXPECTED), ids=lambda v: v or "rules")
def test_fingerprint_unchanged(game: str, variant: str) -> None:
    info = registry.get(game)
    rules = info.variants[variant] if variant else {}
    assert fingerprint(info.env_id, rules) == EXPECTED[(game, variant)]
