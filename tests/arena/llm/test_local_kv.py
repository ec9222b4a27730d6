"""Per-seat KV prefix reuse with the real bundled SmolLM2-135M (slow: CPU inference).

Reuse must not change what the model says: every test compares against recomputing the whole
prompt (``kv=None``), token for token, at float32."""

from __future__ import annotations

import asyncio
import json

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

import torch

from arena.llm.backends.local import LocalBackend
from arena.llm.config import BackendConfig
from arena.llm.kv import KVStore
from arena.llm.local_model import bundled_gguf, load_model, resolve_device, resolve_dtype
from arena.llm.messages import ChatRequest
from arena.llm.prompt import stable_point

pytestmark = pytest.mark.slow

try:
    bundled_gguf()
except Exception as err:  # pragma: no cover - depends on the install
    pytest.skip(f"bundled model not installed: {err}", allow_module_level=True)

SYSTEM = "You are Greta (seat 2), a villager in Werewolf. Find the wolves; speak briefly."
TALK = [
    "Viktor: I saw Maya near the well last night.",
    "Maya: That is a lie, Viktor is the wolf.",
    "Hiro: Let us vote for whoever stays quiet.",
    "Elena: I trust Greta, she spoke first.",
]


def turn(lines: list[str], ask: str = "Say one sentence to the village.", **kw: object):
    user = "<transcript>\n" + "\n".join(lines) + "\n</transcript>\n\n" + ask
    msgs = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]
    return ChatRequest(msgs, **kw)  # type: ignore[arg-type]


def store() -> KVStore:
    return KVStore(1 << 30, ttl_turns=1000, ttl_s=1e9)


@pytest.fixture(scope="module")
def model():
    return load_model(device="cpu", dtype="float32")


def test_a_growing_conversation_reuses_its_prefix_and_says_the_same_tokens(model):
    kv = store()
    for n in range(1, len(TALK) + 1):
        req = turn(TALK[:n], max_tokens=6, session="m:2")
        reused = model.run_batch([req], kv=kv)[0]
        fresh = model.run_batch([req], kv=None)[0]
        assert reused.text == fresh.text and reused.tokens_in == fresh.tokens_in
        assert fresh.tokens_cached == 0
        if n > 1:  # everything up to the new line was cached
            assert 0 < reused.tokens_cached < reused.tokens_in - 10
    assert kv.stats.hits == len(TALK) - 1 and kv.stats.misses == 1
    assert len(kv) == 1 and kv.nbytes > 0


def test_the_decision_request_is_not_kept_and_the_next_turn_reuses_all_that_was(model):
    # issue 17: the prompt only grows before the transcript's closing tag; the tag and the
    # decision request after it change every turn, so the seat's cache stops before them
    kv, whole = store(), store()
    for n in range(1, len(TALK) + 1):
        req = turn(TALK[:n], max_tokens=6, session="m:2")
        req.stable = stable_point(req.messages)
        bare = turn(TALK[:n], max_tokens=6, session="m:2")  # no hint: the whole prompt kept
        got, full = model.run_batch([req], kv=kv)[0], model.run_batch([bare], kv=whole)[0]
        assert got.text == full.text == model.run_batch([req])[0].text
        if n > 1:  # the next turn reused as much as with the whole prompt kept
            assert got.tokens_cached == full.tokens_cached > 0
        entry = kv._entries["m:2"]
        kept = model.tok.decode(entry.tokens)
        assert kept.rstrip().endswith(TALK[n - 1]) and "</transcript>" not in kept
        assert all(k.shape[-2] == len(entry.tokens) for k, _ in entry.layers)
        assert entry.nbytes < whole._entries["m:2"].nbytes  # the tail's KV is not held


def test_a_prompt_changed_in_the_middle_reuses_only_the_common_prefix(model):
    kv = store()
    first = turn(TALK, max_tokens=4, session="m:2")
    model.run_batch([first], kv=kv)
    edited = turn([TALK[0], "Maya: I was asleep.", *TALK[2:]], max_tokens=4, session="m:2")
    again = model.run_batch([edited], kv=kv)[0]
    prompt = model.encode_chat(first.messages)
    assert again.tokens_cached < len(prompt) - 30  # cut at the edit, not at the old end
    assert again.text == model.run_batch([edited])[0].text
    same = model.run_batch([edited], kv=kv)[0]  # the very same prompt: all but one token
    assert same.tokens_cached == same.tokens_in - 1 and same.text == again.text


def test_cached_and_uncached_rows_in_one_batch_match_each_alone(model):
    kv = store()
    model.run_batch([turn(TALK[:2], max_tokens=1, session="m:2")], kv=kv)
    warm = turn(TALK, max_tokens=8, session="m:2")  # its prefix is cached
    cold = turn(TALK[1:], ask="Who do you suspect?", max_tokens=8, session="m:5")
    anon = turn(TALK[:1], max_tokens=5)  # no session: never cached
    batch = model.run_batch([warm, cold, anon], kv=kv)
    assert batch[0].tokens_cached > 0 and batch[1].tokens_cached == 0
    assert batch[2].tokens_cached == 0
    alone = [model.run_batch([r])[0].text for r in (warm, cold, anon)]
    assert [r.text for r in batch] == alone
    assert "m:5" in kv and len(kv) == 2  # the session-less row left nothing behind


def test_ranked_choices_with_a_cached_prefix_rank_as_recomputed(model):
    kv = store()
    ids = ["0", "1", "3"]
    choices = [json.dumps({"choice": i}) for i in ids]
    ask = 'Vote. Answer {"choice": "<id>"}. Legal ids: 0 | 1 | 3'
    model.run_batch([turn(TALK[:3], max_tokens=4, session="m:2")], kv=kv)
    req = turn(TALK, ask=ask, choices=choices, session="m:2")
    other = turn(TALK[:1], ask=ask, choices=choices, session="m:6")  # uncached, same batch
    got = model.run_batch([req, other], kv=kv)
    want = model.run_batch([req, other])
    assert got[0].tokens_cached > 0
    for g, w in zip(got, want, strict=True):
        assert g.ranked == w.ranked and g.text == w.text
        assert g.scores == pytest.approx(w.scores, abs=1e-3)


def test_a_seats_first_prompt_starts_from_another_matchs_briefing_and_says_the_same(model):
    kv = KVStore(1 << 30, ttl_turns=1000, ttl_s=1e9, min_shared=16)
    model.run_batch([turn(TALK[:2], max_tokens=4, session="m1:2")], kv=kv)
    # another match, the same briefing, another transcript: a seat with no turn yet
    req = turn(TALK[2:], max_tokens=8, session="m2:2")
    got = model.run_batch([req], kv=kv)[0]
    briefing = len(model.encode_chat([{"role": "system", "content": SYSTEM}], reply=False))
    assert briefing <= got.tokens_cached < got.tokens_in - 10
    assert got.text == model.run_batch([req])[0].text
    assert kv.stats.shared == 1 and "m1:2" in kv and "m2:2" in kv
    anon = model.run_batch([turn(TALK[2:], max_tokens=2)], kv=kv)[0]  # no seat: no reuse
    assert anon.tokens_cached == 0 and kv.stats.shared == 1
    ids = ["0", "1", "3"]
    ask = 'Vote. Answer {"choice": "<id>"}. Legal ids: 0 | 1 | 3'
    vote = turn(TALK[1:], ask=ask, choices=[json.dumps({"choice": i}) for i in ids],
                session="m3:4")  # fmt: skip
    ranked, fresh = model.run_batch([vote], kv=kv)[0], model.run_batch([vote])[0]
    assert ranked.tokens_cached >= briefing and ranked.ranked == fresh.ranked
    assert ranked.scores == pytest.approx(fresh.scores, abs=1e-3)


async def test_the_backend_keeps_one_cache_per_seat_through_the_batcher(model):
    backend = LocalBackend(BackendConfig(type="local", batch_window_s=0.2, max_batch=4))
    assert backend.kv is not None
    firsts = [turn(TALK[: 1 + s], max_tokens=3, session=f"m:{s}") for s in range(3)]
    await asyncio.gather(*(backend.complete(r) for r in firsts))
    nexts = [turn(TALK[: 2 + s], max_tokens=3, session=f"m:{s}") for s in range(3)]
    out = await asyncio.gather(*(backend.complete(r) for r in nexts))
    assert all(r.tokens_cached > 0 for r in out)
    assert max(backend.batcher.batch_sizes) >= 2 and len(backend.kv) == 3
    await backend.close()
    assert len(backend.kv) == 0


async def test_reuse_off_recomputes_every_prompt(model):
    backend = LocalBackend(BackendConfig(type="local", kv={"reuse": False}))
    assert backend.kv is None
    for n in (2, 3):
        res = await backend.complete(turn(TALK[:n], max_tokens=2, session="m:2"))
        assert res.tokens_cached == 0
    await backend.close()


def test_device_auto_is_cuda_with_bf16_when_present_else_cpu_float32():
    if torch.cuda.is_available():
        assert (resolve_device("auto"), resolve_dtype("auto", "cuda")) == ("cuda", "bfloat16")
    else:
        assert (resolve_device("auto"), resolve_dtype("auto", "cpu")) == ("cpu", "float32")
    assert resolve_device("cpu") == "cpu" and resolve_dtype("float16", "cpu") == "float16"


@pytest.mark.skipif(not torch.cuda.is_available(), reason="GPU-only path: no CUDA device")
def test_the_bundled_model_generates_on_cuda_in_bf16():  # pragma: no cover - GPU machines
    gpu = load_model(device="auto")
    assert gpu.device == "cuda" and next(gpu.model.parameters()).dtype == torch.bfloat16
    kv = store()
    a = gpu.run_batch([turn(TALK[:2], max_tokens=4, session="m:2")], kv=kv)[0]
    b = gpu.run_batch([turn(TALK, max_tokens=4, session="m:2")], kv=kv)[0]
    assert a.tokens_out > 0 and b.tokens_cached > 0
