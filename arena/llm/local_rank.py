"""Ranked choice on a local model: each candidate reply scored by its total log-likelihood.

A request's ``choices`` are complete replies (``{"choice": "3"}``); each is scored as the
continuation of the request's prompt in the chat template (the assistant's turn opened), token
by token, in one forward pass over the candidates' prefix tree on top of the prompt's KV cache
(shared opening tokens computed once, the prompt's cache never copied per candidate). Requests
with the same conversation are scored together as one: a server that receives one scoring
request per candidate (:mod:`arena.llm.server`) computes exactly what the in-process backend
computes for the whole set. Each result keeps the per-token log-probabilities of every
candidate (``token_ids``/``token_logprobs``), which the server returns as ``prompt_logprobs``.
"""

from __future__ import annotations

import json
from typing import Any, Protocol

from arena.llm.kv import KVStore
from arena.llm.kv_batch import Prefilled, make_cache
from arena.llm.messages import ChatRequest, ChatResult
from arena.llm.rank_pick import pick_order


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
    choices = request.choices or []
    order = pick_order(scores, request.temperature, request.seed, request.messages, choices)
    return ChatResult(
        text=(choices or [""])[order[0]],
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
    first = torch.log_softmax(pre.logits.float(), dim=-1)
    out = []
    for i, r in enumerate(requests):
        cands = [model.tok.encode(c, add_special_tokens=False) or [model.pad_id]
                 for c in r.choices or []]  # fmt: skip
        lps = _tree_logprobs(model, pre.rows[i], first[i], cands)
        out.append((len(prompts[i]), pre.cached[i], cands, lps))
    return out


def token_tree(cands: list[list[int]]) -> tuple[list[int], list[int], list[int], list[list[int]]]:
    """The candidates' token sequences as a prefix tree: per node its token, parent (-1: the
    prompt) and depth; per candidate the nodes of its path. Candidates share their common
    prefixes (every JSON reply opens with the same tokens), so each shared token is computed
    once."""
    tokens: list[int] = []
    parent: list[int] = []
    depth: list[int] = []
    children: dict[tuple[int, int], int] = {}
    paths: list[list[int]] = []
    for c in cands:
        at, path = -1, []
        for t in c:
            node = children.get((at, t))
            if node is None:
                node = len(tokens)
                children[(at, t)] = node
                tokens.append(t)
                parent.append(at)
                depth.append(0 if at < 0 else depth[at] + 1)
            path.append(node)
            at = node
        paths.append(path)
    return tokens, parent, depth, paths


def _tree_logprobs(
    model: RankingModel, layers: Any, first: Any, cands: list[list[int]]
) -> list[list[float]]:
    """Each candidate's per-token log-probabilities after one prompt, in one forward pass over
    the candidates' prefix tree on top of the prompt's KV (``layers``, unpadded).

    Every tree node attends to the whole prompt, its ancestors and itself, at the position it
    would have in its own reply: the pass computes, per candidate, what scoring that candidate
    alone after the prompt computes, without copying the prompt's cache once per candidate
    (at ~900 prompt tokens and 30 candidates the copies cost as much as the prefill)."""
    torch = model.torch
    tokens, parent, depth, paths = token_tree(cands)
    n, plen = len(tokens), layers[0][0].shape[-2]
    allowed = torch.zeros((n, plen + n), dtype=torch.bool)
    allowed[:, :plen] = True
    lineage: list[list[int]] = []  # per node: itself and its ancestors (parents come first)
    for k in range(n):
        lineage.append([k, *(lineage[parent[k]] if parent[k] >= 0 else [])])
        allowed[k, [plen + a for a in lineage[k]]] = True
    dtype = layers[0][0].dtype
    mask = torch.zeros((1, 1, n, plen + n), dtype=dtype)
    mask.masked_fill_(~allowed, torch.finfo(dtype).min)
    ids = torch.tensor(tokens, dtype=torch.long)[None, :]
    pos = plen + torch.tensor(depth, dtype=torch.long)[None, :]
    past = make_cache(list(layers))  # a new cache: the stored rows are not appended to
    logits, _ = model._forward(
        past,
        input_ids=ids.to(model.device),
        attention_mask=mask.to(model.device),
        position_ids=pos.to(model.device),
    )
    logp = torch.log_softmax(logits[0].float(), dim=-1)
    node_lp = [
        float(first[t]) if parent[k] < 0 else float(logp[parent[k], t])
        for k, t in enumerate(tokens)
    ]
    return [[node_lp[k] for k in path] for path in paths]
