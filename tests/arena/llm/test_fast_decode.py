"""Fast decode steps give the replies the transformers forward gives (the real bundled model)."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from arena.llm import fast_decode
from arena.llm.kv import KVStore
from arena.llm.local_model import LocalModel, bundled_gguf, load_model
from arena.llm.messages import ChatRequest, ChatResult

pytestmark = pytest.mark.slow

try:
    bundled_gguf()
except Exception as err:  # pragma: no cover - depends on the install
    pytest.skip(f"bundled model not installed: {err}", allow_module_level=True)

QUESTIONS = [
    "Name three colours and say which you like best.",
    "You keep 2 books and the other player keeps the hats. Say whether you accept.",
    "Day 2. Chloe: I suspect Ines. Ines: I suspect Chloe. Who do you suspect, and why?",
]


def msgs(q: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": "You play a game."}, {"role": "user", "content": q}]


@pytest.fixture(scope="module")
def model() -> Iterator[LocalModel]:
    m = load_model()
    assert m.decoder is not None  # the bundled model is a Llama: the fast path is its default
    yield m


def both(model: LocalModel, reqs: list[ChatRequest], **kw: object) -> tuple[list[ChatResult], ...]:
    fast = model.run_batch(reqs, **kw)  # type: ignore[arg-type]
    decoder, model.decoder = model.decoder, None
    try:
        slow = model.run_batch(reqs, **kw)  # type: ignore[arg-type]
    finally:
        model.decoder = decoder
    return fast, slow


def assert_same(fast: list[ChatResult], slow: list[ChatResult]) -> None:
    assert [r.text for r in fast] == [r.text for r in slow]
    assert [r.token_ids for r in fast] == [r.token_ids for r in slow]
    for a, b in zip(fast, slow, strict=True):
        assert a.token_logprobs is not None and b.token_logprobs is not None
        for x, y in zip(a.token_logprobs[0], b.token_logprobs[0], strict=True):
            assert abs(x - y) < 1e-3


def test_one_sequence_decodes_as_the_transformers_forward(model: LocalModel) -> None:
    for q in QUESTIONS:
        fast, slow = both(model, [ChatRequest(msgs(q), max_tokens=24, logprobs=True)])
        assert_same(fast, slow)
        assert fast[0].tokens_out > 3


def test_a_padded_batch_whose_rows_end_apart_decodes_as_the_transformers_forward(
    model: LocalModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fast_decode, "FIRST_ROOM", 2)  # the cache grows several times
    # prompts of different lengths (left padding) and limits (rows leave the batch mid-way)
    reqs = [ChatRequest(msgs(q), max_tokens=n, logprobs=True)
            for q, n in zip(QUESTIONS, (5, 20, 12), strict=True)]  # fmt: skip
    fast, slow = both(model, reqs)
    assert_same(fast, slow)
    assert [r.tokens_out for r in fast] != [fast[0].tokens_out] * 3
    # rows of one length: a batch without padding
    same = [ChatRequest(msgs(QUESTIONS[1]), max_tokens=n, logprobs=True) for n in (6, 14)]
    assert_same(*both(model, same))


def test_sampled_replies_and_replies_on_a_reused_prefix_are_the_same(model: LocalModel) -> None:
    sampled = [ChatRequest(msgs(q), max_tokens=16, temperature=1.0, seed=7, logprobs=True)
               for q in QUESTIONS[:2]]  # fmt: skip
    assert_same(*both(model, sampled))
    first = ChatRequest(msgs(QUESTIONS[2]), max_tokens=8, logprobs=True, session="s")
    turn = ChatRequest(
        [*msgs(QUESTIONS[2]), {"role": "assistant", "content": "Chloe."},
         {"role": "user", "content": "Ines: I am the Seer. Now who?"}],
        max_tokens=12, logprobs=True, session="s",
    )  # fmt: skip
    store_fast, store_slow = (KVStore(2**30, 100, 3600.0) for _ in range(2))
    fast = [model.run_batch([r], kv=store_fast)[0] for r in (first, turn)]
    decoder, model.decoder = model.decoder, None
    try:
        slow = [model.run_batch([r], kv=store_slow)[0] for r in (first, turn)]
    finally:
        model.decoder = decoder
    assert fast[1].tokens_cached > 0  # the second turn read its prefix from the store
    assert_same(fast, slow)


def test_models_it_does_not_compute_exactly_keep_the_transformers_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    llama = {"model_type": "llama", "hidden_act": "silu", "attention_bias": False}
    assert fast_decode.supported(SimpleNamespace(**llama))
    for change in ({"model_type": "qwen2"}, {"attention_bias": True}, {"mlp_bias": True},
                   {"hidden_act": "gelu"}, {"pretraining_tp": 2}):  # fmt: skip
        assert not fast_decode.supported(SimpleNamespace(**{**llama, **change}))
    for off in ("0", "false", "Off", "no"):
        monkeypatch.setenv("ARENA_LOCAL_FAST_DECODE", off)
        assert fast_decode.for_model(SimpleNamespace(config=SimpleNamespace(**llama))) is None


def test_the_fast_path_keeps_no_second_copy_of_the_weights(model: LocalModel) -> None:
    assert model.decoder is not None
    layer, module = model.decoder.layers[0], model.model.model.layers[0]
    assert layer.q.data_ptr() == module.self_attn.q_proj.weight.data_ptr()
    assert layer.up.data_ptr() == module.mlp.up_proj.weight.data_ptr()
