"""Which ranked candidate is the answer: the likeliest at temperature 0, a seeded draw above it.

Ranking scores every complete candidate reply by its log-likelihood (in process:
:mod:`arena.llm.local_rank`; over HTTP: the server's prompt logprobs). At temperature 0 the
answer is the likeliest candidate (ties: the earlier one). At temperature T > 0 it is drawn with
probability ∝ exp(score / T) — the candidates' own likelihoods, sharpened or flattened — so a
sampling agent that ranks its moves still explores them (self-play's train games do). The draw
is seeded by the request's seed and its messages and candidates, never by global state: the
same request draws the same move in process and over any server, run after run.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Sequence
from typing import Any

from arena.seeding import derive_seed


def pick_order(
    scores: Sequence[float],
    temperature: float,
    seed: int | None,
    messages: Sequence[dict[str, Any]],
    choices: Sequence[str],
) -> list[int]:
    """Candidate indices, the answer first; the rest by score (ties: the earlier one)."""
    order = sorted(range(len(scores)), key=lambda j: (-scores[j], j))
    if temperature <= 0 or len(order) < 2:
        return order
    top = scores[order[0]]
    weights = [math.exp((s - top) / temperature) if math.isfinite(s) else 0.0 for s in scores]
    conversation = json.dumps(list(messages), sort_keys=True, ensure_ascii=False)
    rng = random.Random(derive_seed("rank", seed, conversation, json.dumps(list(choices))))
    drawn = rng.choices(range(len(scores)), weights=weights)[0]
    return [drawn, *(j for j in order if j != drawn)]
