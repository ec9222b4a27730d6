"""Fingerprints of the price, pie and auction games, for the bargaining split (issue 12).

A seeded random driver feeds an engine legal options, messages, hand-written allocations and
deliberately invalid answers (each refused one replaced by the engine's ``abstain`` fallback),
and hashes, per rule variant over :data:`SEEDS` seeds, five things a seat or a consumer reads:
the events, the private facts, every seat's rendered view, every seat's ``state`` with its
decision, and the outcome with the rating scores. The expected values in
``test_bargaining_golden.py`` were printed by this script over the code before the split (one
``BargainingEngine`` with a ``mode`` flag), so the three games and the old id must reproduce
them exactly.

The driver only applies answers to an engine (no agents, no observations, no seeding of seats):
it is a fingerprint, not a way to play matches (``arena.runner`` is that).

Print the current fingerprints: ``python -m tests.games.negotiation.golden``.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable
from typing import Any

from arena.engine import RulesEngine
from arena.types import Decision, InvalidAction

SEEDS = 45

#: (mode, variant name) -> rule flags of that mode (no ``mode`` key).
VARIANTS: dict[tuple[str, str], dict[str, Any]] = {
    ("price", "default"): {},
    ("price", "discount"): {"discount": 0.9},
    ("price", "outside"): {"outside_options": "private", "block_irrational_accept": True},
    ("price", "coarse"): {
        "first_mover": "random",
        "list_price": 150,
        "allow_talk": False,
        "price_step": 5,
        "max_turns": 6,
    },
    ("price", "no_walk"): {"allow_walk_away": False, "zopa_prob": 0.3, "first_mover": "buyer"},
    ("pie", "default"): {},
    ("pie", "majority5"): {"n_parties": 5, "quota": "majority"},
    ("pie", "private"): {
        "allow_private": True,
        "discussion_passes": 2,
        "discount": 0.8,
        "quota": 2,
        "max_rounds": 3,
    },
    ("pie", "silent"): {"discussion_passes": 0, "allow_talk": False, "pie": 10},
    ("auction", "default"): {},
    ("auction", "first_price"): {"format": "sealed_first"},
    ("auction", "ascending"): {"format": "ascending", "reserve_price": 10},
    ("auction", "ticks"): {
        "format": "ascending",
        "talk_each_tick": True,
        "n_bidders": 4,
        "allow_private": True,
        "increment": 20,
    },
    ("auction", "no_talk"): {"pre_bid_talk_rounds": 0, "value_range": (10, 50)},
    ("auction", "quiet"): {"allow_talk": False, "value_range": (10, 50), "reserve_price": 30},
}

PARTS = ("events", "facts", "renders", "states", "outcomes")

_MESSAGES = ("Let us find a deal.", "I can do better than that.", "Hello all.", "Fine by me.")
_INVALID: tuple[Any, ...] = ("accept", "offer:-5", "allocate: 1, 2", "bid:99999", 10_000, "")


def _answer(rng: random.Random, d: Decision, n_seats: int, pie: int) -> Any:
    """A random answer: mostly legal, sometimes a message, sometimes invalid."""
    if rng.random() < 0.08:
        return rng.choice(_INVALID)
    if d.kind == "propose_allocation" and rng.random() < 0.8:
        cuts = sorted(rng.randint(0, pie) for _ in range(n_seats - 1))
        bounds = [0, *cuts, pie]
        alloc = ", ".join(str(bounds[i + 1] - bounds[i]) for i in range(n_seats))
        tail = f"\n{rng.choice(_MESSAGES)}" if rng.random() < 0.5 else ""
        return f"allocate: {alloc}{tail}"
    ids = d.option_ids
    if d.free_text and rng.random() < 0.3:
        msg = rng.choice(_MESSAGES)
        private = [i for i in ids if i.startswith("to:")]
        if private and rng.random() < 0.5:
            return {"choice": rng.choice(private), "text": msg}
        return msg
    groups: dict[str, list[str]] = {}
    for i in ids:
        groups.setdefault(i.split(":", 1)[0], []).append(i)
    if len(groups) > 1 and "walk_away" in groups and rng.random() < 0.85:
        del groups["walk_away"]  # keep some games long
    choice = rng.choice(groups[rng.choice(sorted(groups))])
    if d.free_text and rng.random() < 0.3:
        return {"choice": choice, "text": rng.choice(_MESSAGES)}
    return choice


def _dump(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, default=str)


def play_one(engine: RulesEngine[Any], seed: int, hashes: dict[str, Any]) -> None:
    """Drive ``engine`` (already reset to ``seed``) to the end, feeding ``hashes``."""
    rng = random.Random(f"golden:{seed}")
    n = engine.n_seats
    pie = int(getattr(engine.rules, "pie", 100))
    seen = 0

    def snap() -> None:
        nonlocal seen
        for e in engine.log[seen:]:
            hashes["events"].update(_dump(e.model_dump(mode="json")).encode())
        seen = len(engine.log)
        facts = [f.model_dump(mode="json") for f in engine.private_facts()]
        hashes["facts"].update(_dump(facts).encode())
        pending = engine.pending()
        for s in range(n):
            hashes["renders"].update(engine.render(s).encode())
            st: dict[str, Any] = {"state": engine.state(s), "pending": s in pending}
            if s in pending:
                d = engine.decision(s)
                st["decision"] = [d.kind, d.describe(), d.option_ids, d.simultaneous]
            hashes["states"].update(_dump(st).encode())
        hashes["states"].update(_dump([engine.phase, engine.state(None)]).encode())

    static = [n, engine.max_options(), engine.teams(), engine.roles(), engine.names]
    hashes["outcomes"].update(_dump(static).encode())
    snap()
    for _ in range(500):
        if engine.is_over():
            break
        for seat in engine.pending():
            d = engine.decision(seat)
            try:
                engine.apply(seat, _answer(rng, d, n, pie))
            except InvalidAction as err:
                hashes["events"].update(f"invalid:{seat}:{err}".encode())
                fb = engine.fallback(seat, "abstain")
                hashes["events"].update(_dump(fb.model_dump(mode="json")).encode())
                engine.apply(seat, fb)
        snap()
    out = engine.outcome()
    hashes["outcomes"].update(_dump(out.model_dump(mode="json") if out else None).encode())
    scores = engine.scores() if out is not None and hasattr(engine, "scores") else None
    hashes["outcomes"].update(_dump(scores).encode())


Maker = Callable[[str, dict[str, Any], int], RulesEngine[Any]]


def fingerprint(make: Maker, mode: str, variant: str, seeds: int = SEEDS) -> dict[str, str]:
    """The five hashes of one variant over ``seeds`` seeds (16 hex digits each)."""
    rules = VARIANTS[(mode, variant)]
    hashes = {p: hashlib.sha256() for p in PARTS}
    for seed in range(seeds):
        play_one(make(mode, rules, seed), seed, hashes)
    return {p: h.hexdigest()[:16] for p, h in hashes.items()}


def env_fingerprint(env_id: str, rules: dict[str, Any], seeds: int = 12) -> str:
    """One hash of a PettingZoo env's observations, infos, rewards and terminations, driven
    by the same random answers (sent as text; refused ones end in the ``abstain`` fallback)."""
    import pettingzoo

    h = hashlib.sha256()
    env = pettingzoo.make("aec", env_id, fallback="abstain", **rules)
    for seed in range(seeds):
        rng = random.Random(f"golden-env:{seed}")
        env.reset(seed=seed)
        engine = env.unwrapped.engine
        pie = int(getattr(engine.rules, "pie", 100))
        for _ in range(2000):
            agent = env.agent_selection
            obs = env.observe(agent)
            h.update(obs["text"].encode() + obs["legal"].tobytes())
            h.update(_dump([agent, env.infos[agent], env.rewards, env.terminations]).encode())
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
                if not env.agents:
                    break
                continue
            seat = env.infos[agent]["seat"]
            if not engine.owes(seat):  # the env's fixed cycle: a wait turn
                env.step("wait")
                continue
            answer = _answer(rng, engine.current_decision(seat), engine.n_seats, pie)
            env.step(answer if isinstance(answer, str) and answer else _dump(answer))
        h.update(_dump(env.fallbacks).encode())
    return h.hexdigest()[:16]


def old_id(mode: str, rules: dict[str, Any], seed: int) -> RulesEngine[Any]:
    """The engine the old id ``bargaining`` builds for ``mode``."""
    from arena import registry

    return registry.engine_class("bargaining")({"mode": mode, **rules}, seed=seed)


#: mode of the old id -> (game id, env id) of the game it became
GAMES = {
    "price": ("price_bargaining", "arena/PriceBargaining-v0"),
    "pie": ("pie_division", "arena/PieDivision-v0"),
    "auction": ("auction", "arena/Auction-v0"),
}


def new_id(mode: str, rules: dict[str, Any], seed: int) -> RulesEngine[Any]:
    """The engine of the game ``mode`` became, built through the registry."""
    from arena import registry

    return registry.engine_class(GAMES[mode][0])(rules, seed=seed)


if __name__ == "__main__":
    out: dict[str, Any] = {f"{m}/{v}": fingerprint(old_id, m, v) for m, v in VARIANTS}
    for m, v in VARIANTS:
        if v in ("default", "ticks", "private"):
            rules = {"mode": m, **VARIANTS[(m, v)]}
            out[f"env/{m}/{v}"] = env_fingerprint("arena/Bargaining-v0", rules)
    print(json.dumps(out, indent=1))
