"""Fingerprints of every registered game and variant through the PettingZoo env (issue 12).

Guards the engine's hot-path work: a seeded driver plays each variant over :data:`SEEDS`
seeds through ``pettingzoo.make("aec", env_id, **rules)`` with mostly legal random answers,
some free text and some invalid answers (re-asked, then replaced by the env's fallback), and
hashes, per variant, four things a consumer reads: every event of the log (with its audience),
every observation (text and action mask) and info the selected agent read, every seat's final
render and state, and the outcome with the rewards. The expected values in
``test_fingerprints.py`` were printed by this module over the code before the speed work, so
a faster engine must reproduce them exactly.

Print the current fingerprints: ``python -m tests.games.fingerprints``.
"""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

import pettingzoo

from arena import registry

SEEDS = 30
PARTS = ("events", "observations", "renders", "outcomes")

_INVALID: tuple[Any, ...] = ("not an option", 10_000, "", '{"choice": "nobody"}')
_MESSAGES = ("I have nothing to add yet.", "I suspect someone.", "Let us find a deal.")


def variants() -> list[tuple[str, str, str, dict[str, Any]]]:
    """(game, variant, env id, rules) of every registered game, its default rules first."""
    out = []
    for game, info in sorted(registry.games().items()):
        out.append((game, "", info.env_id, {}))
        out.extend((game, name, info.env_id, rules) for name, rules in info.variants.items())
    return out


def _answer(rng: random.Random, info: dict[str, Any]) -> Any:
    if info.get("decision") == "wait":  # a turn of the env's fixed cycle with nothing owed:
        return "wait"  # no draw, so the real decisions get the same random answers as before
    legal = info.get("legal") or []
    roll = rng.random()
    if roll < 0.05:
        return rng.choice(_INVALID)
    if info.get("free_text") and (not legal or roll < 0.3):
        return rng.choice(_MESSAGES)
    if not legal:
        return rng.choice(_MESSAGES)
    k = info.get("max_choices", 1)
    if k > 1:
        n = rng.randint(max(info.get("min_choices", 1), 1), min(k, len(legal)))
        return ",".join(rng.sample(legal, n))
    if roll < 0.4:  # an option index now and then
        return legal.index(rng.choice(legal))
    return rng.choice(legal)


def _json(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, default=str)


def fingerprint(env_id: str, rules: dict[str, Any], seeds: int = SEEDS) -> dict[str, str]:
    hashes = {part: hashlib.sha256() for part in PARTS}
    env = pettingzoo.make("aec", env_id, **rules)
    for seed in range(seeds):
        rng = random.Random(seed)
        env.reset(seed=seed)
        for agent in env.agent_iter(max_iter=5000):
            obs, reward, term, trunc, info = env.last()
            hashes["observations"].update(
                _json(
                    [agent, obs["text"], obs["legal"].tolist(), reward, term, trunc, info]
                ).encode()
            )
            env.step(None if term or trunc else _answer(rng, info))
        engine = env.unwrapped.engine
        for e in engine.log:
            hashes["events"].update(_json(e.model_dump(mode="json")).encode())
        for seat in range(engine.n_seats):
            hashes["renders"].update(engine.render(seat).encode())
            hashes["renders"].update(_json(engine.state(seat)).encode())
        outcome = engine.outcome()
        hashes["outcomes"].update(
            _json([outcome.model_dump(mode="json") if outcome else None, env.fallbacks]).encode()
        )
    return {part: h.hexdigest()[:16] for part, h in hashes.items()}


def main() -> None:
    print("EXPECTED = {")
    for game, variant, env_id, rules in variants():
        print(f"    ({game!r}, {variant!r}): {fingerprint(env_id, rules)!r},")
    print("}")


if __name__ == "__main__":
    main()
