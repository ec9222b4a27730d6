"""Belief reports taken by ranking: a probability per seat read from the model's likelihoods.

A belief decision asks for a probability per other player (``{"belief": {"<seat>": p}}``). A
small model asked to write that object mostly writes something else (its prompt, a sentence),
and every such answer is refused. Ranked instead, the answer is well formed by construction:
the candidates are the one-seat reports ``{"belief": {"<seat>": v}}`` for every seat and every
value ``v`` of :data:`GRID`, all scored as replies to the same prompt. Within one seat's
candidates only ``v`` differs, so the softmax of their scores is the model's distribution over
the value it would write for that seat, and the reported probability is that distribution's
mean. The question (werewolf or not, good or evil) is the decision's own prompt, so the
figures mean what the game asked for.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

#: The values a seat's probability is ranked over (the mean of the model's distribution over
#: them is reported, so any value in [0.1, 0.9] can come out).
GRID = (0.1, 0.3, 0.5, 0.7, 0.9)


def belief_candidates(keys: Sequence[str]) -> list[str]:
    """The complete replies to rank: one report per seat key and grid value."""
    return [json.dumps({"belief": {k: v}}, ensure_ascii=False) for k in keys for v in GRID]


def belief_from_scores(candidates: Sequence[str], scores: Sequence[float]) -> dict[str, float]:
    """Per seat key, the mean value under the softmax of its candidates' scores."""
    per_key: dict[str, list[tuple[float, float]]] = {}
    for text, score in zip(candidates, scores, strict=True):
        ((key, value),) = json.loads(text)["belief"].items()
        per_key.setdefault(key, []).append((float(value), score))
    out: dict[str, float] = {}
    for key, pairs in per_key.items():
        top = max(s for _, s in pairs)
        weights = [math.exp(s - top) for _, s in pairs]
        mean = sum(v * w for (v, _), w in zip(pairs, weights, strict=True)) / sum(weights)
        out[key] = round(mean, 4)
    return out
