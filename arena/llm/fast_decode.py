"""Decode steps for Llama-family models without the transformers module stack.

Why: a decode step of a small model on CPU is memory-bound in its matrix products and was
spending as much again in the layers' Python and small operations and in growing the KV cache
by concatenation (measured: docs/benchmarks.md "Decode against its bound"). Here a step is the
same arithmetic written flat — the attention's q/k/v products and the MLP's gate/up products
each one product over weights stored side by side, keys and values written into a cache
allocated once for the whole reply, rotary positions from the model's own module — so the
logits are those of ``model(...)`` (bit-identical for one sequence on the bundled model; a
test holds every greedy reply equal). Prefill and ranking stay on the transformers forward,
which is compute-bound and batched already. Models of another family, or with biases or
options this does not implement, keep the transformers path (:func:`for_model` says None).
``ARENA_LOCAL_FAST_DECODE=0`` turns it off.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from arena.llm.kv import Layers


@dataclass
class _Layer:
    ln1: Any
    ln2: Any
    qkv: Any  # [(H + 2 KV) * D, hidden]: q, k and v rows side by side
    o: Any
    gate_up: Any  # [2 * inter, hidden]
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
    if os.environ.get("ARENA_LOCAL_FAST_DECODE", "1") == "0" or not supported(model.config):
        return None
    return FastDecoder(model)


def _fuse(torch: Any, modules: list[Any]) -> Any:
    """One matrix holding the modules' weights one after another; each module's weight becomes
    a view into it, so nothing is stored twice and the transformers path still reads them."""
    fused = torch.cat([m.weight.data for m in modules], 0).contiguous()
    start = 0
    for m in modules:
        rows = m.weight.shape[0]
        m.weight.data = fused[start : start + rows]
        start += rows
    return fused


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
                qkv=_fuse(torch, [a.q_proj, a.k_proj, a.v_proj]), o=a.o_proj.weight,
                gate_up=_fuse(torch, [p.gate_proj, p.up_proj]), down=p.down_proj.weight,
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

    def step(self, state: DecodeState, tokens: Any, positions: Any) -> Any:
        """Logits [rows, vocab] after feeding ``tokens`` [rows] at ``positions`` [rows, 1]."""
        F, n = self.F, state.n
        if n >= state.mask.shape[1]:
            raise ValueError("decode state is full: start it with more room")
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
            qkv = self._linear(h, w.qkv)
            q = _rope(qkv[:, : H * D].view(rows, H, 1, D), cos, sin)
            k = _rope(qkv[:, H * D : (H + KV) * D].view(rows, KV, 1, D), cos, sin)
            state.keys[i][:, :, n : n + 1] = k
            state.values[i][:, :, n : n + 1] = qkv[:, (H + KV) * D :].view(rows, KV, 1, D)
            o = F.scaled_dot_product_attention(
                q, state.keys[i][:, :, : n + 1], state.values[i][:, :, : n + 1],
                attn_mask=mask, enable_gqa=KV != H,
            )  # fmt: skip
            x = x + self._linear(o.reshape(rows, H * D), w.o)
            h = self._norm(x, w.ln2)
            gu = self._linear(h, w.gate_up)
            x = x + self._linear(F.silu(gu[:, : self.inter]) * gu[:, self.inter :], w.down)
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
        self.state = decoder.start(layers, mask, room)

    def select(self, idx: Any) -> None:
        self.decoder.select(self.state, idx)

    def step(self, tokens: Any, mask: Any, positions: Any) -> Any:
        return self.decoder.step(self.state, tokens, positions)
