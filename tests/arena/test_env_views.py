"""The env's incrementally cleaned observation text equals the engine's render, cleaned."""

from __future__ import annotations

import random

import pettingzoo
import pytest

import arena  # noqa: F401  (registers games)
from arena.env import ArenaEnv, sanitize, unicode_charset

ODD = ["plain words", "emoji \U0001f600 here", "ctrl \x00\x07 chars", "bell\r\nreturn", "\ud800"]


def _answer(rng: random.Random, info: dict) -> str:
    legal = info.get("legal") or []
    if info.get("free_text") and (not legal or rng.random() < 0.5):
        return rng.choice(ODD)
    k = max(info.get("min_choices", 1), 1)
    return ",".join(rng.sample(legal, k)) if k > 1 else rng.choice(legal)


@pytest.mark.parametrize(
    ("env_id", "rules"),
    [("arena/Toy-v0", {}), ("arena/Werewolf-v0", {}), ("arena/Avalon-v0", {"n_players": 7})],
)
def test_observation_text_is_the_cleaned_render_at_every_step(env_id: str, rules: dict) -> None:
    env: ArenaEnv = pettingzoo.make("aec", env_id, **rules)
    charset = set(unicode_charset())
    rng = random.Random(7)
    for game in range(3):
        env.reset(seed=game)
        for agent in env.agent_iter(max_iter=2000):
            obs, _rew, term, trunc, info = env.last()
            seat = env._seat[agent]
            expected = sanitize(env.engine.render(seat, error=env._errors.get(agent)), env.MAX_TEXT)
            assert obs["text"] == expected
            assert set(obs["text"]) <= charset
            if term or trunc:
                env.step(None)
                continue
            # an occasional refused answer puts an error line into the next observation
            env.step(
                f"not-an-option-{rng.randrange(9)}" if rng.random() < 0.05 else _answer(rng, info)
            )
