"""Decode steps for Llama-family models without the transformers module stack.

Why: a decode step of a small model on CPU is memory-bound in its matrix products and was
spending as much again in the layers' Python and small operations and in growing the KV cache
by concatenation (measured: docs/benchmarks.md "Decode against its bound"). Here a step is the
same arithmetic written flat over the model's own weights (nothing copied) — keys and values
written into a cache allocated once for the whole reply, rotary positions from the model's own
module — so the logits are those of ``model(...)`` (bit-identical for one sequence on the
bundled model; a test holds every greedy reply equal). Prefill and ranking stay on the transformers forward,
which is compute-bound and batched already. Models of another family, or with biases or
options this does not implement, keep the transformers path (:func:`for_model` says None).
``ARENA_LOCAL_FAST_DECODE=0`` (or ``false``, ``off``, ``no``) turns it off. (Fusing the q/k/v
and gate/up products into one each was tried: no faster here, and the fused copy kept the
loaded weights' pages resident beside it, +265 MB.)
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from typing import Any

from arena.llm.kv import Layers

OFF = {"0", "false", "off", "no"}
ON = {"", "1", "true", "on", "yes"}
#: Free slots a reply's cache starts with, at most: a request's ``max_tokens`` can be far above
#: what it uses (a served client may ask for 8,192), so the cache grows by half again when full.
FIRST_ROOM = 256


@dataclass
class _Layer:
    ln1: Any
    ln2: Any
    q: Any
    k: Any
    v: Any
    o: Any
    gate: Any
    up: Any
    down: Any


@dataclass
class DecodeState:
    """A batch's keys and values per layer, [rows, kv heads, width, head dim], with room for
    the reply; ``mask`` [rows, width] says which slots a row attends (left padding is off);
    slot ``n`` is the next one written."""

    keys: list[Any]
    values: list[Any]
    mask: Any
    n: int


def supported(config: Any) -> bool:
    """Whether ``config`` is a Llama model this module computes exactly as transformers does."""
    return (
        getattr(config, "model_type", None) == "llama"
        and getattr(config, "hidden_act", None) == "silu"
        and not getattr(config, "attention_bias", False)
        and not getattr(config, "mlp_bias", False)
        and getattr(config, "pretraining_tp", 1) in (None, 1)
    )


def for_model(model: Any) -> FastDecoder | None:
    """A decoder for ``model`` (a transformers causal LM), or None where it does not apply."""
    setting = os.environ.get("ARENA_LOCAL_FAST_DECODE", "1").strip().lower()
    if setting not in OFF | ON:
        logging.getLogger(__name__).warning(
            "ARENA_LOCAL_FAST_DECODE=%r is not understood (0, false, off or no turn it off): "
            "fast decode stays on",
            setting,
        )
    off = setting in OFF
    if off or not supported(model.config):
        return None
    return FastDecoder(model)


class FastDecoder:
    """Decode steps of one loaded Llama model (see the module docstring)."""

    def __init__(self, model: Any) -> None:
        import torch
        import torch.nn.functional as F

        self.torch, self.F = torch, F
        cfg = model.config
        self.heads, self.kv_heads = cfg.num_attention_heads, cfg.num_key_value_heads
        self.dim = getattr(cfg, "head_dim", None) or cfg.hidden_size // self.heads
        self.hidden, self.inter, self.eps = cfg.hidden_size, cfg.intermediate_size, cfg.rms_norm_eps
        inner = model.model
        self.layers = []
        for layer in inner.layers:
            a, p = layer.self_attn, layer.mlp
            self.layers.append(_Layer(
                ln1=layer.input_layernorm.weight, ln2=layer.post_attention_layernorm.weight,
                q=a.q_proj.weight, k=a.k_proj.weight, v=a.v_proj.weight, o=a.o_proj.weight,
                gate=p.gate_proj.weight, up=p.up_proj.weight, down=p.down_proj.weight,
            ))  # fmt: skip
        self.embed, self.norm = inner.embed_tokens.weight, inner.norm.weight
        self.head, self.rotary = model.lm_head.weight, inner.rotary_emb
        # float32: the fused kernel equals transformers' norm bit for bit; in 16 bits
        # transformers normalises in float32 and rounds after, so that is done here too
        self.exact_norm = self.embed.dtype != torch.float32

    def _norm(self, x: Any, weight: Any) -> Any:
        if not self.exact_norm:
            return self.F.rms_norm(x, (self.hidden,), weight, self.eps)
        h = x.float()
        h = h * self.torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps)
        return weight * h.to(x.dtype)

    def start(self, layers: Layers, mask: Any, room: int) -> DecodeState:
        """A state holding ``layers`` (a left-padded batch's prompt KV, [rows, kv, T, dim]) and
        ``room`` free slots; ``mask`` [rows, T] marks the real (unpadded) slots."""
        torch = self.torch
        k0 = layers[0][0]
        rows, width = k0.shape[0], k0.shape[2]
        shape = (rows, k0.shape[1], width + room, k0.shape[3])
        keys, values = [], []
        for k, v in layers:
            keys.append(k.new_zeros(shape))
            values.append(v.new_zeros(shape))
            keys[-1][:, :, :width] = k
            values[-1][:, :, :width] = v
        full = torch.zeros((rows, width + room), dtype=torch.bool, device=k0.device)
        full[:, :width] = mask.bool()
        return DecodeState(keys, values, full, width)

    def _grow(self, state: DecodeState, extra: int) -> None:
        """``extra`` more free slots (a copy, amortised over the slots it adds)."""
        pad = self.torch.nn.functional.pad
        state.keys = [pad(k, (0, 0, 0, extra)) for k in state.keys]
        state.values = [pad(v, (0, 0, 0, extra)) for v in state.values]
        state.mask = pad(state.mask, (0, extra), value=False)

    def select(self, state: DecodeState, idx: Any) -> None:
        """Keep only the rows ``idx`` (rows whose replies ended are dropped)."""
        state.keys = [k.index_select(0, idx) for k in state.keys]
        state.values = [v.index_select(0, idx) for v in state.values]
        state.mask = state.mask.index_select(0, idx)

    def _linear(self, x: Any, w: Any) -> Any:
        # several rows: W @ xᵀ picks a far better CPU kernel than x @ Wᵀ (arena.llm.rows_linear)
        if x.shape[0] < 2:
            return self.F.linear(x, w)
        return (w @ x.t()).t()

    def _attend(self, q: Any, keys: Any, values: Any, mask: Any) -> Any:
        """One query per row over its cached keys: [rows, heads, 1, dim].

        One row without padding (one seat speaking): the fused kernel, as transformers calls
        it (bit-identical). A batch: by hand, each key/value head read in place by its group of
        query heads — the fused kernel's masked path expands the grouped keys and values and
        copies the strided cache every step (measured: 8 seats of ~1,500-token prompts decoded
        at 8.5 tokens/s that way, 43.8 this way, 28.8 through the transformers forward)."""
        F, torch = self.F, self.torch
        if mask is None:
            return F.scaled_dot_product_attention(
                q, keys, values, enable_gqa=keys.shape[1] != q.shape[1]
            )
        rows, heads, _, dim = q.shape
        kv = keys.shape[1]
        grouped = q.reshape(rows, kv, heads // kv, dim)  # query heads of one key head together
        scores = torch.matmul(grouped, keys.transpose(-1, -2)) * dim**-0.5  # [rows, kv, g, T]
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = torch.softmax(scores.float(), dim=-1).to(values.dtype)  # float32 in 16 bits
        out = torch.matmul(weights, values)  # [rows, kv, g, dim]
        return out.reshape(rows, heads, 1, dim)

    def step(self, state: DecodeState, tokens: Any, positions: Any) -> Any:
        """Logits [rows, vocab] after feeding ``tokens`` [rows] at ``positions`` [rows, 1]."""
        F, n = self.F, state.n
        if n >= state.mask.shape[1]:
            self._grow(state, max(16, n // 2))
        rows = tokens.shape[0]
        x = self.embed[tokens]  # [rows, hidden]
        cos, sin = self.rotary(x[:, None, :], positions)  # [rows, 1, dim]
        cos, sin = cos[:, None], sin[:, None]  # [rows, 1, 1, dim]: over heads
        state.mask[:, n] = True
        # one row with every slot real needs no mask (the common case: one seat speaking)
        mask = None if bool(state.mask[:, : n + 1].all()) else state.mask[:, None, None, : n + 1]
        H, KV, D = self.heads, self.kv_heads, self.dim
        for i, w in enumerate(self.layers):
            h = self._norm(x, w.ln1)
            q = _rope(self._linear(h, w.q).reshape(rows, H, 1, D), cos, sin)
            k = _rope(self._linear(h, w.k).reshape(rows, KV, 1, D), cos, sin)
            state.keys[i][:, :, n : n + 1] = k
            state.values[i][:, :, n : n + 1] = self._linear(h, w.v).reshape(rows, KV, 1, D)
            o = self._attend(q, state.keys[i][:, :, : n + 1], state.values[i][:, :, : n + 1], mask)
            x = x + self._linear(o.reshape(rows, H * D), w.o)
            h = self._norm(x, w.ln2)
            gated = F.silu(self._linear(h, w.gate)) * self._linear(h, w.up)
            x = x + self._linear(gated, w.down)
        state.n = n + 1
        return self._linear(self._norm(x, self.norm), self.head)


def _rope(x: Any, cos: Any, sin: Any) -> Any:
    """Rotary position embedding as transformers' Llama applies it (halves rotated)."""
    import torch

    half = x.shape[-1] // 2
    return x * cos + torch.cat((-x[..., half:], x[..., :half]), -1) * sin


class TransformersSteps:
    """Decode steps through the model's own forward (the path for any model)."""

    def __init__(self, model: Any, past: Any) -> None:
        self.model, self.past = model, past

    def select(self, idx: Any) -> None:
        self.past.batch_select_indices(idx)

    def step(self, tokens: Any, mask: Any, positions: Any) -> Any:
        logits, self.past = self.model._forward(
            self.past, input_ids=tokens[:, None], attention_mask=mask, position_ids=positions
        )
        return logits[:, -1, :]


class FastSteps:
    """Decode steps through a :class:`FastDecoder` (``mask`` is kept in its state)."""

    def __init__(self, decoder: FastDecoder, layers: Layers, mask: Any, room: int) -> None:
        self.decoder = decoder
        self.state = decoder.start(layers, mask, min(room, FIRST_ROOM))

    def select(self, idx: Any) -> None:
        self.decoder.select(self.state, idx)

    def step(self, tokens: Any, mask: Any, positions: Any) -> Any:
        return self.decoder.step(self.state, tokens, positions)
