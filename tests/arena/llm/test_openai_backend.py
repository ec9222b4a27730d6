"""The OpenAI-compatible backend over real HTTP against ``arena serve --engine scripted``."""

from __future__ import annotations

import asyncio
import time

import pytest

from arena.llm.backends.openai_backend import OpenAIBackend
from arena.llm.fakes.scripted import parse_latency
from arena.llm.messages import CacheMiss, ChatRequest, LLMError, PreflightError
from arena.llm.server import ServerThread, free_port

SCHEMA = {
    "type": "object",
    "properties": {"choice": {"type": "string", "enum": ["a", "b", "c"]}},
    "required": ["choice"],
}


def request(text: str = "pick one", max_tokens: int = 16) -> ChatRequest:
    return ChatRequest([{"role": "user", "content": text}], max_tokens=max_tokens, schema=SCHEMA)


@pytest.mark.parametrize("fault", ["500", "429", "malformed", "empty", "hang"])
async def test_each_fault_is_retried_then_answered_legally(scripted, fault):
    scripted.faults(fault, retry_after=0.05)
    # the client must give up on a hang (the server holds it for 5 s), while the retried request
    # has ample time to be answered on a loaded machine; other faults need no short timeout
    backend = OpenAIBackend(scripted.config(**({"timeout_s": 2.5} if fault == "hang" else {})))
    result = await backend.complete(request())
    assert result.text in ('{"choice": "a"}', '{"choice": "b"}', '{"choice": "c"}')
    assert result.retries == 1
    expected = {"hang": "timeout"}.get(fault, fault)
    assert result.errors[0].startswith(expected)


async def test_retry_after_header_is_a_floor_on_the_wait(scripted):
    scripted.faults("429", retry_after=0.6)
    backend = OpenAIBackend(scripted.config())
    started = time.perf_counter()
    result = await backend.complete(request())
    assert result.retries == 1
    assert time.perf_counter() - started >= 0.6


async def test_exhausted_retries_raise_with_the_count(scripted):
    scripted.faults("500", "500", "500")
    backend = OpenAIBackend(scripted.config(max_retries=2))
    with pytest.raises(LLMError) as info:
        await backend.complete(request())
    assert info.value.retries == 2
    assert "HTTP 500" in str(info.value)


async def test_client_errors_are_not_retried(scripted):
    backend = OpenAIBackend(scripted.config(model="no-such-model"))
    served = scripted.engine.served
    with pytest.raises(LLMError, match="404"):
        await backend.complete(request())
    assert scripted.engine.served == served


async def test_requests_per_minute_limit_spaces_requests(scripted):
    backend = OpenAIBackend(scripted.config(requests_per_min=240, burst_s=0.25))
    started = time.perf_counter()
    await asyncio.gather(*(backend.complete(request(f"q{i}")) for i in range(5)))
    # capacity 1, refill 4/s: the 5th request starts no earlier than 1 s in
    assert time.perf_counter() - started >= 0.95


async def test_tokens_per_minute_limit_counts_reported_usage(scripted):
    backend = OpenAIBackend(scripted.config(tokens_per_min=60_000, burst_s=1.0))
    big = "x" * 4000  # the scripted server reports ~1000 prompt tokens
    started = time.perf_counter()
    for i in range(3):
        await backend.complete(request(big + str(i)))
    # ~1000 tokens each against 1000 tokens/s: the 2nd and 3rd wait ~0.85 s each
    assert time.perf_counter() - started >= 1.5


async def test_concurrency_limit_caps_requests_in_flight(scripted):
    scripted.engine._latency = parse_latency("const:0.2")
    backend = OpenAIBackend(scripted.config(concurrency=2))
    started = time.perf_counter()
    await asyncio.gather(*(backend.complete(request(f"c{i}")) for i in range(6)))
    assert time.perf_counter() - started >= 0.58


async def test_accounting_counts_tokens_and_cost(scripted):
    prices = {"input_per_mtok": 1_000_000.0, "output_per_mtok": 2_000_000.0}
    backend = OpenAIBackend(scripted.config(prices=prices))
    result = await backend.complete(request("y" * 400))
    assert result.tokens_in == 100
    assert result.tokens_out >= 1
    assert result.cost_usd == pytest.approx(result.tokens_in + 2 * result.tokens_out)
    assert result.latency_s > 0


async def test_cache_read_write_serves_a_hit_without_calling(scripted, tmp_path):
    cfg = scripted.config(cache={"mode": "read_write", "path": str(tmp_path / "c.sqlite")})
    backend = OpenAIBackend(cfg)
    first = await backend.complete(request("cache me"))
    served = scripted.engine.served
    second = await backend.complete(request("cache me"))
    assert (first.cache, second.cache) == ("miss", "hit")
    assert second.text == first.text and second.tokens_in == first.tokens_in
    assert scripted.engine.served == served
    other = await backend.complete(request("something else"))
    assert other.cache == "miss"


async def test_cache_replay_only_serves_hits_and_fails_on_a_miss(scripted, tmp_path):
    path = str(tmp_path / "c.sqlite")
    await OpenAIBackend(scripted.config(cache={"mode": "read_write", "path": path})).complete(
        request("recorded")
    )
    replay = OpenAIBackend(scripted.config(cache={"mode": "replay_only", "path": path}))
    assert (await replay.complete(request("recorded"))).cache == "hit"
    with pytest.raises(CacheMiss):
        await replay.complete(request("never asked"))


async def test_preflight_accepts_a_served_model(scripted):
    assert "ok" in await OpenAIBackend(scripted.config()).preflight()


async def test_preflight_names_the_available_models_for_a_wrong_model(scripted):
    with pytest.raises(PreflightError, match="available: scripted"):
        await OpenAIBackend(scripted.config(model="gpt-nothing")).preflight()


async def test_preflight_reports_an_unreachable_server(scripted):
    url = f"http://127.0.0.1:{free_port()}/v1"
    with pytest.raises(PreflightError, match="cannot reach"):
        await OpenAIBackend(scripted.config(base_url=url, connect_timeout_s=0.5)).preflight()


async def test_api_key_comes_from_env_and_is_never_shown(monkeypatch):
    from arena.llm.config import BackendConfig
    from arena.llm.fakes.scripted import ScriptedEngine

    with ServerThread(ScriptedEngine(), api_key="right-key") as server:
        cfg = BackendConfig(base_url=server.url, api_key_env="ARENA_TEST_KEY", timeout_s=30)
        monkeypatch.delenv("ARENA_TEST_KEY", raising=False)
        with pytest.raises(PreflightError, match="ARENA_TEST_KEY is not set"):
            await OpenAIBackend(cfg).preflight()
        monkeypatch.setenv("ARENA_TEST_KEY", "wrong-secret-value")
        with pytest.raises(PreflightError) as info:
            await OpenAIBackend(cfg).preflight()
        assert "rejected" in str(info.value) and "wrong-secret-value" not in str(info.value)
        monkeypatch.setenv("ARENA_TEST_KEY", "right-key")
        assert "ok" in await OpenAIBackend(cfg).preflight()
