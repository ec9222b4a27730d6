"""Prefill for a batch whose rows may have cached prefixes, and the batched cache for decoding.

Why this shape (measured in bench/local_multiturn.py, docs/llm.md "KV reuse"): prefill is
compute-bound, so batching prefills saves little on CPU, while decode steps are memory-bound and
gain most from batching. So rows with a cached prefix prefill their uncached tail one row at a
time (no padding between a row's prefix and its tail, which a left-padded batch cannot express),
rows without one prefill together left-padded as before, and then every row's key/value tensors
are copied into one left-padded cache and all rows decode as one batch. (Ranking reads each
row's KV where it lies: :mod:`arena.llm.local_rank` scores a row's candidates on top of it.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arena.llm.kv import KVStore, Layers, common_prefix


@dataclass
class Prefilled:
    """Per row: logits of the last prompt position and the KV for the prompt."""

    logits: Any  # [rows, vocab], float32
    rows: list[Layers]  # per row, per layer (keys, values) of shape [1, heads, tokens, dim]
    cached: list[int]  # prompt tokens served from a cache, per row
    group: tuple[Any, Any] | None  # (cache, mask) when every row came from one padded prefill


def cache_layers(cache: Any) -> Layers:
    """(keys, values) per layer of a transformers ``DynamicCache``."""
    return [(layer.keys, layer.values) for layer in cache.layers]


def make_cache(layers: Layers) -> Any:
    from transformers import DynamicCache

    return DynamicCache(ddp_cache_data=layers)


def assemble(torch: Any, rows: list[Layers], device: str) -> tuple[Any, Any]:
    """One left-padded batch cache from per-row caches, and its attention mask.

    Padded slots hold zeros and are masked out: a masked slot contributes exactly nothing to
    attention, so a row decodes as it would alone in a batch of the same width."""
    lengths = [r[0][0].shape[-2] for r in rows]
    width = max(lengths)
    batch: Layers = []
    for layer in range(len(rows[0])):
        k0, v0 = rows[0][layer]
        keys = k0.new_zeros((len(rows), k0.shape[1], width, k0.shape[3]))
        values = v0.new_zeros((len(rows), v0.shape[1], width, v0.shape[3]))
        for b, row in enumerate(rows):
            k, v = row[layer]
            keys[b, :, width - lengths[b] :, :] = k[0]
            values[b, :, width - lengths[b] :, :] = v[0]
        batch.append((keys, values))
    mask = torch.zeros((len(rows), width), dtype=torch.long, device=device)
    for b, n in enumerate(lengths):
        mask[b, width - n :] = 1
    return make_cache(batch), mask


def prefill(
    model: Any,
    prompts: list[list[int]],
    sessions: list[str | None],
    store: KVStore | None,
    keep: list[int | None] | None = None,
) -> Prefilled:
    """Prefill every prompt, reusing each session's longest common cached prefix.

    ``model`` is a :class:`arena.llm.local_model.LocalModel`. With a store, every session's
    new prompt KV is stored back (the tensors are not touched by later decoding): its first
    ``keep[i]`` tokens when given (the part that only grows between turns), else all."""
    n = len(prompts)
    logits: list[Any] = [None] * n
    rows: list[Layers] = [[] for _ in range(n)]
    cached = [0] * n
    misses: list[int] = []
    for i, (prompt, session) in enumerate(zip(prompts, sessions, strict=True)):
        entry = store.take(session) if store is not None and session else None
        # at least the last prompt token is computed: its logits start the reply
        common = min(common_prefix(entry.tokens, prompt), len(prompt) - 1) if entry else 0
        if common <= 0 and store is not None and session:
            # a seat with no turn of its own to go on: another seat's prompt with the same
            # start (a request without a seat reads nothing, as it stores nothing)
            found = store.shared(prompt)
            if found is not None:
                entry, common = found[0], min(found[1], len(prompt) - 1)
        if entry is None or common <= 0:
            misses.append(i)
            continue
        logits[i], rows[i] = _extend(model, prompt, entry.layers, common)
        cached[i] = common
    group: tuple[Any, Any] | None = None
    if misses:
        outs, group = _prefill_fresh(model, [prompts[i] for i in misses])
        for i, (row_logits, row) in zip(misses, outs, strict=True):
            logits[i], rows[i] = row_logits, row
        if len(misses) < n:
            group = None  # a padded batch of only some rows is no batch of all of them
    if store is not None:
        _store_back(store, prompts, sessions, rows, keep, misses)
        store.stats.hits += n - len(misses)
        store.stats.misses += sum(1 for i in misses if sessions[i])
        store.stats.reused_tokens += sum(cached)
        store.stats.computed_tokens += sum(len(p) for p in prompts) - sum(cached)
    return Prefilled(model.torch.stack(logits), rows, cached, group)


def _extend(model: Any, prompt: list[int], layers: Layers, common: int) -> tuple[Any, Layers]:
    """(last-position logits, the prompt's KV rows) computing only the tokens after the first
    ``common``, whose KV ``layers`` holds."""
    torch = model.torch
    past = make_cache([(k[..., :common, :], v[..., :common, :]) for k, v in layers])
    tail = torch.tensor(prompt[common:], dtype=torch.long, device=model.device)[None, :]
    pos = torch.arange(common, len(prompt), device=model.device)[None, :]
    mask = torch.ones((1, len(prompt)), dtype=torch.long, device=model.device)
    out, past = model._forward(
        past, input_ids=tail, attention_mask=mask, position_ids=pos, logits_to_keep=1
    )
    return out[0, -1, :].float(), cache_layers(past)


def _prefill_fresh(
    model: Any, prompts: list[list[int]]
) -> tuple[list[tuple[Any, Layers]], tuple[Any, Any]]:
    """Prompts with nothing cached, as one left-padded batch: per prompt (last-position logits,
    its KV rows), and the batch's (cache, mask)."""
    ids, mask = model._left_pad(prompts)
    pos = (mask.cumsum(-1) - 1).clamp(min=0)
    # Only the last position's logits are needed: skipping the LM head elsewhere saves
    # about a fifth of the prefill FLOPs on a small model with a large vocabulary.
    out, past = model._forward(
        input_ids=ids, attention_mask=mask, position_ids=pos, logits_to_keep=1
    )
    width = ids.shape[1]
    layers = cache_layers(past)
    rows = []
    for row, prompt in enumerate(prompts):
        start = width - len(prompt)
        kv = [(k[row : row + 1, :, start:, :], v[row : row + 1, :, start:, :]) for k, v in layers]
        rows.append((out[row, -1, :].float(), kv))
    return rows, (past, mask)


def _store_back(
    store: KVStore,
    prompts: list[list[int]],
    sessions: list[str | None],
    rows: list[Layers],
    keep: list[int | None] | None,
    misses: list[int],
) -> None:
    """Each session's new prompt KV into the store: its first ``keep[i]`` tokens, else all."""
    for i, session in enumerate(sessions):
        if not session:
            continue
        size = len(prompts[i]) if keep is None or keep[i] is None else keep[i]
        size = max(1, min(int(size or 0), len(prompts[i])))
        if size < len(prompts[i]) or i in misses:
            # a cut, and rows of a padded prefill, are views of larger tensors: copy
            # them, or those would stay alive (and the byte count would lie)
            own = [(k[..., :size, :].clone(), v[..., :size, :].clone()) for k, v in rows[i]]
        else:
            own = rows[i]
        store.put(session, list(prompts[i][:size]), own)
