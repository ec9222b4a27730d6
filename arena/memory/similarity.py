"""Near-duplicate search for the bank's updater: embedding cosine when the embedding model is
available (or asked for), word overlap (Jaccard) otherwise. Works on texts and thresholds."""

from __future__ import annotations

import re
from typing import Literal

from arena.memory.inject import embeddings_available
from arena.memory.model import Insight

Mode = Literal["auto", "embedding", "lexical"]
_WORD = re.compile(r"[a-z0-9]+")


def _jaccard(a: str, b: str) -> float:
    x, y = set(_WORD.findall(a.lower())), set(_WORD.findall(b.lower()))
    return len(x & y) / len(x | y) if x | y else 0.0


def uses_embeddings(mode: Mode) -> bool:
    return mode == "embedding" or (mode == "auto" and embeddings_available())


def nearest(
    text: str, pool: list[Insight], mode: Mode, near_duplicate: float, overlap: float
) -> tuple[Insight, float, str] | None:
    """The most similar insight of ``pool`` when it is a near-duplicate of ``text``: a cosine
    of at least ``near_duplicate`` (embeddings) or a word overlap of at least ``overlap``."""
    if not pool:
        return None
    if uses_embeddings(mode):
        from arena.metrics.embed import shared_embedder

        vecs = shared_embedder().encode([text, *[i.text for i in pool]])
        scores = [float(x) for x in vecs[1:] @ vecs[0]]
        threshold, label = near_duplicate, "embedding"
    else:
        scores = [_jaccard(text, i.text) for i in pool]
        threshold, label = overlap, "word-overlap"
    best = max(range(len(pool)), key=lambda j: (scores[j], -j))
    return (pool[best], scores[best], label) if scores[best] >= threshold else None


def warm(pool: list[Insight], texts: list[str]) -> set[str]:
    """Embed the pool's texts and ``texts`` now (the embedder caches them), so a model load or a
    long encode happens before, not inside, a write transaction. Returns the ids of the pool."""
    from arena.metrics.embed import shared_embedder

    every = [i.text for i in pool] + texts
    if every:
        shared_embedder().encode(every)
    return {i.id for i in pool}
