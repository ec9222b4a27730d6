"""The local transformers backend with the real bundled SmolLM2-135M (slow: CPU inference)."""

from __future__ import annotations

import asyncio
import json

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from arena.llm.backends.local import LocalBackend
from arena.llm.config import BackendConfig
from arena.llm.local_model import LocalModel, bundled_gguf, load_model
from arena.llm.messages import ChatRequest

pytestmark = pytest.mark.slow

try:
    bundled_gguf()
except Exception as err:  # pragma: no cover - depends on the install
    pytest.skip(f"bundled model not installed: {err}", allow_module_level=True)


def msgs(q: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": "You play a game."}, {"role": "user", "content": q}]


@pytest.fixture(scope="module")
def model() -> LocalModel:
    return load_model()


def test_converted_weights_are_cached_so_a_second_load_is_fast(
    model: LocalModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    import arena.llm.local_model as lm

    def no_conversion(*args: object) -> None:
        raise AssertionError("the second load converted the GGUF again")

    monkeypatch.setattr(lm, "_convert", no_conversion)  # the cache, not the clock, decides
    lm._MODELS.clear()
    again = load_model()
    assert again.name == model.name


def test_a_batch_of_requests_generates_per_request_lengths(model: LocalModel) -> None:
    reqs = [ChatRequest(msgs(f"Say a word about {w}."), max_tokens=n) for w, n in
            (("cats", 3), ("rain", 6), ("bread", 9))]  # fmt: skip
    out = model.run_batch(reqs)
    assert [r.tokens_out <= n for r, n in zip(out, (3, 6, 9), strict=True)] == [True] * 3
    assert all(r.tokens_in > 10 for r in out)
    assert any(r.text.strip() for r in out)


def test_batched_and_single_greedy_generation_agree(model: LocalModel) -> None:
    req = ChatRequest(msgs("Name a colour."), max_tokens=5)
    other = ChatRequest(
        msgs("Tell me a long story about a very old lighthouse keeper."), max_tokens=5
    )
    alone = model.run_batch([req])[0].text
    batched = model.run_batch([other, req])[1].text
    assert alone == batched


def test_ranking_always_returns_one_of_the_legal_options(model: LocalModel) -> None:
    ids = ["3", "5", "6"]
    req = ChatRequest(
        msgs('Vote for a player. Answer {"choice": "<id>"}. Legal ids: 3 | 5 | 6'),
        choices=[json.dumps({"choice": i}) for i in ids],
    )
    res = model.run_batch([req, req])
    for r in res:
        assert json.loads(r.text)["choice"] in ids
        assert r.ranked is not None and r.scores is not None
        assert sorted(r.ranked) == [0, 1, 2] and len(r.scores) == 3


def test_ranked_scores_equal_each_candidate_scored_alone_after_its_prompt(
    model: LocalModel,
) -> None:
    """The prefix-tree pass scores every candidate as a plain forward pass over prompt +
    candidate does (candidates share their opening tokens; some are prefixes of others)."""
    import torch

    ids = ["accept", "reject", "propose:0-1-2", "propose:0-1-3", "propose:1-1-2", "pass"]
    choices = [json.dumps({"choice": i}) for i in ids] + ['{"choice": "pass"']
    messages = msgs("You hold 2 books. Choose one of: " + ", ".join(ids))
    got = model.run_batch([ChatRequest(messages, choices=choices)])[0]
    prompt = model.encode_chat(messages)
    assert got.scores is not None
    with torch.inference_mode():
        for c, score in zip(choices, got.scores, strict=True):
            toks = model.tok.encode(c, add_special_tokens=False)
            logits, _ = model._forward(input_ids=torch.tensor([prompt + toks]))
            lp = torch.log_softmax(logits[0].float(), dim=-1)
            alone = sum(float(lp[len(prompt) - 1 + t, toks[t]]) for t in range(len(toks)))
            assert score == pytest.approx(alone, abs=1e-3)


def test_the_token_tree_shares_prefixes_and_keeps_each_path() -> None:
    from arena.llm.local_rank import token_tree

    tokens, parent, depth, paths = token_tree([[1, 2, 3], [1, 2, 4], [1, 5], [1, 2]])
    assert tokens == [1, 2, 3, 4, 5]
    assert parent == [-1, 0, 1, 1, 0] and depth == [0, 1, 2, 2, 1]
    assert paths == [[0, 1, 2], [0, 1, 3], [0, 4], [0, 1]]


async def test_concurrent_requests_are_batched_by_the_backend(model: LocalModel) -> None:
    backend = LocalBackend(BackendConfig(type="local", batch_window_s=0.2, max_batch=4))
    reqs = [
        ChatRequest(msgs(f"Pick {i}"), choices=['{"choice": "a"}', '{"choice": "b"}'])
        for i in range(4)
    ]
    out = await asyncio.gather(*(backend.complete(r) for r in reqs))
    assert all(json.loads(r.text)["choice"] in ("a", "b") for r in out)
    assert backend.batcher is not None and max(backend.batcher.batch_sizes) >= 2
    await backend.close()


async def test_preflight_loads_and_warms_the_model_before_any_decision(model: LocalModel) -> None:
    """Load and warm-up happen at preflight and are reported as figures of their own; the
    first decision's call is then charged only its own model time (``model_s``), which a
    local batch always measures."""
    from arena.llm.local_model import start_up_lines

    backend = LocalBackend(BackendConfig(type="local"))
    line = await backend.preflight()
    assert backend.model is not None and backend.model.warm_s is not None
    assert "loaded in" in line and "warm-up" in line and "neither counted" in line
    assert any(backend.model.name in s and "warm-up" in s for s in start_up_lines())
    out = await backend.complete(ChatRequest(msgs("Name a colour."), max_tokens=2))
    assert out.model_s > 0
    await backend.close()
