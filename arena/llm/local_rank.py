"""Ranked choice on a local model: each candidate reply scored by its total log-likelihood.

A request's ``choices`` are complete replies (``{"choice": "3"}``); each is scored as the
continuation of the request's prompt in the chat template (the assistant's turn opened), token
by token, in one forward pass over all candidates on top of the prompt's KV cache. Requests
with the same conversation are scored together as one: a server that receives one scoring
request per candidate (:mod:`arena.llm.server`) computes exactly what the in-process backend
computes for the whole set. Each result keeps the per-token log-probabilities of every
candidate (``token_ids``/``token_logprobs``), which the server returns as ``prompt_logprobs``.
"""

from __future__ import annotations

import json
from typing import Any, Protocol

from arena.llm.kv import KVStore
from arena.llm.kv_batch import Prefilled, assemble
from arena.llm.messages import ChatRequest, ChatResult


class RankingModel(Protocol):
    """What ranking needs of a loaded local model (:class:`arena.llm.local_model.LocalModel`)."""

    @property
    def torch(self) -> Any: ...
    @property
    def tok(self) -> Any: ...
    @property
    def name(self) -> str: ...
    @property
    def device(self) -> str: ...
    @property
    def pad_id(self) -> int: ...

    def _prefill(
        self, requests: list[ChatRequest], kv: KVStore | None
    ) -> tuple[list[list[int]], Prefilled]: ...

    def _forward(self, past: Any = None, **kwargs: Any) -> tuple[Any, Any]: ...


def rank_choices(
    model: RankingModel, requests: list[ChatRequest], kv: KVStore | None
) -> list[ChatResult]:
    """One ranked result per request, best candidate first (ties: the earlier candidate)."""
    groups: dict[str, list[int]] = {}
    for i, r in enumerate(requests):
        key = json.dumps([r.messages, r.session], sort_keys=True, ensure_ascii=False)
        groups.setdefault(key, []).append(i)
    merged = [
        ChatRequest(
            messages=requests[idx[0]].messages,
            choices=[c for i in idx for c in requests[i].choices or []],
            session=requests[idx[0]].session,
            stable=requests[idx[0]].stable,
        )
        for idx in groups.values()
    ]
    scored = _score(model, merged, kv)
    results: list[ChatResult | None] = [None] * len(requests)
    for (prompt_len, cached, cands, lps), idx in zip(scored, groups.values(), strict=True):
        k = 0
        for i in idx:
            n = len(requests[i].choices or [])
            results[i] = _result(model, requests[i], prompt_len, cached, cands[k : k + n],
                                 lps[k : k + n])  # fmt: skip
            k += n
    return [r for r in results if r is not None]


def _result(
    model: RankingModel,
    request: ChatRequest,
    prompt_len: int,
    cached: int,
    cands: list[list[int]],
    lps: list[list[float]],
) -> ChatResult:
    scores = [sum(lp) for lp in lps]
    order = sorted(range(len(scores)), key=lambda j: (-scores[j], j))
    return ChatResult(
        text=(request.choices or [""])[order[0]],
        tokens_in=prompt_len,
        tokens_out=len(cands[order[0]]),
        tokens_cached=cached,
        model=model.name,
        finish_reason="ranked",
        ranked=order,
        scores=scores,
        token_ids=cands,
        token_logprobs=lps,
    )


def _score(
    model: RankingModel, requests: list[ChatRequest], kv: KVStore | None
) -> list[tuple[int, int, list[list[int]], list[list[float]]]]:
    """Per request: prompt tokens, cached tokens, each candidate's token ids and their
    log-probabilities as the reply to the prompt."""
    torch = model.torch
    prompts, pre = model._prefill(requests, kv)
    first = torch.log_softmax(pre.logits, dim=-1)
    cands = [
        [model.tok.encode(c, add_special_tokens=False) or [model.pad_id] for c in r.choices or []]
        for r in requests
    ]
    owner = [i for i, cs in enumerate(cands) for _ in cs]
    flat = [c for cs in cands for c in cs]
    width = max(len(c) for c in flat)
    if pre.group is not None:
        past, mask = pre.group
        idx = torch.tensor(owner, dtype=torch.long, device=model.device)
        past.batch_select_indices(idx)
        mask = mask[idx]
    else:  # one copy of the row's cache per candidate
        past, mask = assemble(torch, [pre.rows[i] for i in owner], model.device)
    body = torch.full((len(flat), width), model.pad_id, dtype=torch.long)
    for j, c in enumerate(flat):
        body[j, : len(c)] = torch.tensor(c, dtype=torch.long)
    body = body.to(model.device)
    mask2 = torch.cat([mask, mask.new_ones((len(flat), width))], dim=-1)
    start = mask.sum(-1, keepdim=True)
    pos2 = start + torch.arange(width, device=model.device)[None, :]
    logits2, _ = model._forward(past, input_ids=body, attention_mask=mask2, position_ids=pos2)
    logp = torch.log_softmax(logits2.float(), dim=-1)
    per_token: list[list[float]] = []
    for j, c in enumerate(flat):
        lp = [float(first[owner[j], c[0]])]
        lp += [float(logp[j, t - 1, c[t]]) for t in range(1, len(c))]
        per_token.append(lp)
    out = []
    k = 0
    for i, cs in enumerate(cands):
        out.append((len(prompts[i]), pre.cached[i], cs, per_token[k : k + len(cs)]))
        k += len(cs)
    return out
