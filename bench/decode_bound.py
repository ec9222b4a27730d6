"""The memory-bandwidth bound of local decoding, and how close one seat's decode comes to it.

Decoding one token reads every weight of the model once, so a machine that reads B bytes/s
cannot decode faster than B / (weight bytes) tokens/s for one sequence. This measures B (the
best of several full reads of a buffer far larger than the caches), the weight bytes of the
model in each dtype, one seat's greedy decode rate (decode steps only, the prompt already
prefilled) through the fast decode steps generation uses (``arena.llm.fast_decode``) and,
beside it, through the transformers forward, and how many of the recorded prompts' outputs
(greedy text or ranked order) differ from float32's (``diverged_vs_float32``: 0 for float32
itself). For float32 also whole replies of 1, 4 and 8 seats decoded as one batch, prefill
included, each way (``reply_*``: tokens/s, and whether the replies are the same). Used by
``bench/local_multiturn.py``; one JSON line per figure. Timings need an idle machine: with
another process on a core, torch's threads wait on each other and both paths slow many-fold.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from arena.llm.messages import ChatRequest

BUFFER_MB = 512  # well past any CPU cache
DECODE_STEPS = 32


def memory_bandwidth_gbs(repeats: int = 5) -> float:
    """Read bandwidth (GB/s): the best of ``repeats`` sums over a large float32 buffer, with
    torch's threads (as the model's matmuls use them)."""
    import torch

    x = torch.ones(BUFFER_MB * 2**20 // 4, dtype=torch.float32)
    float(x.sum())  # touch every page once
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        float(x.sum())
        best = min(best, time.perf_counter() - t0)
    return x.numel() * 4 / best / 1e9


def weight_bytes(model: Any) -> int:
    """Bytes of the weights a decode step reads (tied matrices once)."""
    return sum(p.numel() * p.element_size() for p in model.model.parameters())


def decode_tokens_per_s(
    model: Any, messages: list[dict[str, str]], steps: int, fast: bool = True
) -> float:
    """One sequence's greedy decode rate: ``steps`` single-token steps on top of the prefilled
    prompt, timed alone (prefill excluded), through the path generation takes (``fast``: the
    model's :class:`arena.llm.fast_decode.FastDecoder` when it has one) or through the
    transformers forward. EOS is not a stop here: a step costs the same whatever the token."""
    from arena.llm.fast_decode import FastSteps, TransformersSteps
    from arena.llm.kv_batch import cache_layers

    torch = model.torch
    ids = torch.tensor([model.encode_chat(messages)], dtype=torch.long, device=model.device)
    with model.lock, torch.inference_mode():
        logits, past = model._forward(None, input_ids=ids)
        mask = torch.ones_like(ids)
        runner: Any = (FastSteps(model.decoder, cache_layers(past), mask, steps + 1)
                       if fast and model.decoder else TransformersSteps(model, past))  # fmt: skip
        token = int(torch.argmax(logits[0, -1]).item())
        t0 = time.perf_counter()
        for _ in range(steps):
            mask = torch.cat([mask, mask.new_ones((1, 1))], dim=-1)
            pos = torch.tensor([[mask.shape[1] - 1]], dtype=torch.long, device=model.device)
            step = torch.tensor([token], dtype=torch.long, device=model.device)
            token = int(torch.argmax(runner.step(step, mask, pos)[0]).item())
        return steps / (time.perf_counter() - t0)


def outputs(model: Any, requests: list[ChatRequest]) -> list[tuple[str, list[int] | None]]:
    """Each request's greedy reply (text, ranked order), one at a time, no KV reuse."""
    return [(r.text, r.ranked) for req in requests for r in model.run_batch([req])]


def reply_rates(
    model: Any, requests: list[ChatRequest], seats: int, max_tokens: int = 48
) -> dict[str, Any]:
    """Greedy replies of ``seats`` requests decoded as one batch (no KV reuse), fast path
    beside the transformers forward, each after a warm-up: the whole replies' tokens/s (prefill
    included), the decode steps' tokens/s (the time of the same batch with one token each
    subtracted: its prefill), and whether every reply is the same both ways."""
    batch = [ChatRequest(messages=r.messages, max_tokens=max_tokens, stop=[])
             for r in (requests * seats)[:seats]]  # fmt: skip
    first = [ChatRequest(messages=r.messages, max_tokens=1, stop=[]) for r in batch]
    whole: dict[str, float] = {}
    decode: dict[str, float] = {}
    texts: dict[str, list[str]] = {}
    decoder = model.decoder
    for path in ("transformers", "fast"):
        model.decoder = decoder if path == "fast" else None
        try:
            model.run_batch(first)  # warm-up
            t0 = time.perf_counter()
            model.run_batch(first)
            t1 = time.perf_counter()
            out = model.run_batch(batch)
            t2 = time.perf_counter()
        finally:
            model.decoder = decoder
        tokens = sum(r.tokens_out for r in out)
        whole[path] = tokens / (t2 - t1)
        decode[path] = (tokens - seats) / max(t2 - t1 - (t1 - t0), 1e-9)
        texts[path] = [r.text for r in out]
    name = f"reply_{seats}seat{'s' if seats > 1 else ''}"
    prompt = sum(len(model.encode_chat(r.messages)) for r in batch) / seats
    return {"figure": name, "max_tokens": max_tokens, "prompt_tokens_mean": round(prompt),
            "tokens_per_s": round(whole["fast"], 1),
            "transformers_tokens_per_s": round(whole["transformers"], 1),
            "decode_tokens_per_s": round(decode["fast"], 1),
            "transformers_decode_tokens_per_s": round(decode["transformers"], 1),
            "decode_speedup": round(decode["fast"] / decode["transformers"], 2),
            "same_replies": texts["fast"] == texts["transformers"]}  # fmt: skip


def figures(
    dtypes: list[str],
    requests: list[ChatRequest],
    steps: int,
    reply_seats: tuple[int, ...] = (1, 4, 8),
    reply_tokens: int = 48,
) -> Iterator[dict[str, Any]]:
    """Bandwidth, then per dtype: weight bytes, decode bound, measured rate and its share,
    divergence from float32 on ``requests``; last, the fastest dtype that does not diverge.
    Each figure as soon as it is measured (a loaded machine is slow)."""
    from arena.llm.local_model import load_model

    bandwidth = memory_bandwidth_gbs()
    yield {"figure": "memory_read_bandwidth", "value": round(bandwidth, 2), "unit": "GB/s",
           "buffer_mb": BUFFER_MB}  # fmt: skip
    reference: list[tuple[str, list[int] | None]] | None = None
    rates: dict[str, tuple[float, int]] = {}
    for dtype in ["float32", *[d for d in dtypes if d != "float32"]]:
        model = load_model(device="cpu", dtype=dtype)
        size = weight_bytes(model)
        bound = bandwidth * 1e9 / size
        # the transformers forward first: the baseline, measured in the same run
        base = decode_tokens_per_s(model, requests[0].messages, steps, fast=False)
        rate = decode_tokens_per_s(model, requests[0].messages, steps)
        got = outputs(model, requests)
        reference = reference if reference is not None else got
        diverged = sum(1 for a, b in zip(reference, got, strict=True) if a != b)
        rates[dtype] = (rate, diverged)
        yield ({"figure": f"decode_1seat_{dtype}", "weights_mb": round(size / 2**20, 1),
                    "bound_tokens_per_s": round(bound, 1), "tokens_per_s": round(rate, 1),
                    "share_of_bound": round(rate / bound, 3), "target_share": 0.5,
                    "ok": rate / bound >= 0.5, "diverged_vs_float32": diverged,
                    "prompts": len(requests), "path": "fast" if model.decoder else "transformers",
                    "transformers_tokens_per_s": round(base, 1),
                    "transformers_share_of_bound": round(base / bound, 3)})  # fmt: skip
        if dtype == "float32" and model.decoder is not None:
            for seats in reply_seats:
                yield {**reply_rates(model, requests, seats, reply_tokens), "dtype": dtype}
    safe = [d for d, (_, div) in rates.items() if div == 0]
    best = max(safe, key=lambda d: rates[d][0])
    yield {"figure": "fastest_non_diverging_dtype", "value": best,
           "tokens_per_s": {d: round(r, 1) for d, (r, _) in rates.items()}}  # fmt: skip
