"""The bargaining split keeps behaviour: fingerprints of the price, pie and auction games.

:data:`EXPECTED` was printed by ``python -m tests.games.negotiation.golden`` over the code
before the split (commit 1972c69: one ``BargainingEngine`` with ``mode``). The old id and the
three games it became (``price_bargaining``, ``pie_division``, ``auction``) reproduce it. A
change that alters what the games emit or show on purpose reprints the table with the script
and says why in its commit.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from arena.results import MatchSpec
from arena.runner import run_match
from arena.sinks import MemorySink
from games.negotiation.bots import BOTS_BARGAINING
from tests.games.negotiation import golden

EXPECTED: dict[str, dict[str, str]] = {
    "price/default": {
        "events": "4c4c65eb7d801619",
        "facts": "e2861f0b41b48b36",
        "renders": "090864b27afd4eea",
        "states": "e23874deabacae5b",
        "outcomes": "54c04eee0d4635ff",
    },
    "price/discount": {
        "events": "f791182806c1900f",
        "facts": "e2861f0b41b48b36",
        "renders": "18384a698d86120f",
        "states": "e69a014c2011cf06",
        "outcomes": "588ff7766c31edce",
    },
    "price/outside": {
        "events": "e2787772178938b9",
        "facts": "65515d62275a812f",
        "renders": "8921a6e9187fff9d",
        "states": "5780177558ec939e",
        "outcomes": "1bd773108011308b",
    },
    "price/coarse": {
        "events": "a8981fe313a872fb",
        "facts": "829a52785528bacb",
        "renders": "2f7b3e3bebf5220e",
        "states": "9373e4b9f5011098",
        "outcomes": "499da2b432bc4aab",
    },
    "price/no_walk": {
        "events": "ae8d155723d7e791",
        "facts": "06ca6afac38a0db3",
        "renders": "623bafcfa6eaa3d1",
        "states": "23b3624994a5bab3",
        "outcomes": "7a09bbd7f8f69761",
    },
    "pie/default": {
        "events": "d4f139891d07f74b",
        "facts": "947619953a62fc7e",
        "renders": "447c408817688bb5",
        "states": "3a996889cf4e3920",
        "outcomes": "ee42592d5c84288c",
    },
    "pie/majority5": {
        "events": "45189f694b6fffe8",
        "facts": "8e6a167b743a1e8d",
        "renders": "4621843c189526d5",
        "states": "02aa80f192ff6090",
        "outcomes": "5c0ac211f26185f4",
    },
    "pie/private": {
        "events": "3a0635fdc83debd1",
        "facts": "8924d1b1e7395190",
        "renders": "47d45a25c9d51fed",
        "states": "fa0194e61e0e8794",
        "outcomes": "602bfa24ec333643",
    },
    "pie/silent": {
        "events": "a03bd8063ea2df59",
        "facts": "14190488b09da13a",
        "renders": "16f30d91840e166a",
        "states": "d5989e3e257ed161",
        "outcomes": "850c9bcee70ae741",
    },
    "auction/default": {
        "events": "db06faf1f12c9fc9",
        "facts": "bfbc1e8e503737cc",
        "renders": "36d2211f0626ac60",
        "states": "0d269066af2097de",
        "outcomes": "8ba745e12c30a22d",
    },
    "auction/first_price": {
        "events": "ba5b163d43ec38f0",
        "facts": "bfbc1e8e503737cc",
        "renders": "5f2a41138ec048a7",
        "states": "ba5616d56eef487f",
        "outcomes": "b34e6f8deb21946d",
    },
    "auction/ascending": {
        "events": "3b5b7525207951d0",
        "facts": "5769a75a9d02a8bf",
        "renders": "a537deb6a5c068a6",
        "states": "3794553174891c11",
        "outcomes": "eb0281153bb7cde1",
    },
    "auction/ticks": {
        "events": "f34d11da199fd6c3",
        "facts": "e4fa0f202fa65552",
        "renders": "79155c3d57a1d266",
        "states": "969f4bf3751d95fc",
        "outcomes": "705b30ba2e8227be",
    },
    "auction/no_talk": {
        "events": "50235cdb36257d6e",
        "facts": "04a66aa16fc43b09",
        "renders": "ff0fdc1feedb5dab",
        "states": "065ccf9303590e09",
        "outcomes": "0eadeaa72c147d68",
    },
    "auction/quiet": {
        "events": "d7afc0e989a81cd7",
        "facts": "04a66aa16fc43b09",
        "renders": "706e1efab7dec40c",
        "states": "c95e6dd5fb5adb71",
        "outcomes": "e7fe7c658a871acd",
    },
}
EXPECTED_ENV: dict[str, str] = {
    "price/default": "345a61d0b84265f6",
    "pie/default": "147ac0baa112efb7",
    "pie/private": "973f54c8bad5f331",
    "auction/default": "63d61e689176a8a3",
    "auction/ticks": "d5263c0a87fcd8ac",
}


@pytest.mark.parametrize(("mode", "variant"), list(golden.VARIANTS))
def test_old_id_reproduces_the_fingerprints(mode: str, variant: str) -> None:
    assert golden.fingerprint(golden.old_id, mode, variant) == EXPECTED[f"{mode}/{variant}"]


@pytest.mark.parametrize("key", list(EXPECTED_ENV))
def test_old_env_id_reproduces_the_fingerprints(key: str) -> None:
    mode, variant = key.split("/")
    rules = {"mode": mode, **golden.VARIANTS[(mode, variant)]}
    assert golden.env_fingerprint("arena/Bargaining-v0", rules) == EXPECTED_ENV[key]


@pytest.mark.parametrize(("mode", "variant"), list(golden.VARIANTS))
def test_the_three_games_reproduce_the_fingerprints(mode: str, variant: str) -> None:
    assert golden.fingerprint(golden.new_id, mode, variant) == EXPECTED[f"{mode}/{variant}"]


@pytest.mark.parametrize("key", list(EXPECTED_ENV))
def test_the_three_env_ids_reproduce_the_fingerprints(key: str) -> None:
    mode, variant = key.split("/")
    env_id = golden.GAMES[mode][1]
    assert golden.env_fingerprint(env_id, golden.VARIANTS[(mode, variant)]) == EXPECTED_ENV[key]


def _record(game: str, rules: dict[str, Any], seed: int, seats: list[str]) -> list[str]:
    """A match under the runner, as comparable text: timings dropped, the game id blanked."""
    sink = MemorySink()
    spec = MatchSpec(match_id="m", game=game, rules=rules, seed=seed, seats=seats)
    result = asyncio.run(run_match(spec, [BOTS_BARGAINING[n](n) for n in seats], [sink]))
    assert result.status == "finished"
    out = []
    for e in sink.events:
        data = e.model_dump(mode="json", exclude={"ts"})
        data["payload"].pop("elapsed_s", None)
        if data["payload"].get("game") == game:  # the runner's match start names the game
            data["payload"]["game"] = "<game>"
            data["text"] = data["text"].replace(f": {game} with", ": <game> with")
        out.append(json.dumps(data, sort_keys=True))
    return out


@pytest.mark.parametrize(
    ("mode", "seats"),
    [
        ("price", ["boulware", "greedy"]),
        ("pie", ["fair", "greedy", "random"]),
        ("auction", ["truthful", "shader", "random"]),
    ],
)
def test_the_old_id_plays_the_new_games_match_under_the_runner(mode: str, seats: list[str]) -> None:
    game = golden.GAMES[mode][0]
    for seed in range(4):
        old = _record("bargaining", {"mode": mode}, seed, seats)
        assert old == _record(game, {}, seed, seats)
        assert len(old) > 10


def test_the_driver_covers_every_ending_and_the_fallbacks() -> None:
    """The fingerprints mean something only if the driver reaches the games' branches."""
    import hashlib

    reasons: dict[str, set[str]] = {"price": set(), "pie": set(), "auction": set()}
    fallbacks = 0
    for mode, variant in golden.VARIANTS:
        for seed in range(golden.SEEDS):
            engine = golden.old_id(mode, golden.VARIANTS[(mode, variant)], seed)
            golden.play_one(engine, seed, {p: hashlib.sha256() for p in golden.PARTS})
            outcome = engine.outcome()
            assert outcome is not None
            reasons[mode].add(outcome.reason or "")
            fallbacks += sum(1 for e in engine.log if e.type == "fallback_pass")
    assert reasons["price"] == {"accepted", "walk_away", "turn_cap"}
    assert reasons["pie"] == {"passed", "rounds_exhausted"}
    assert reasons["auction"] >= {"highest_bid", "no_valid_bid", "last_bidder", "all_dropped"}
    assert fallbacks > 100
