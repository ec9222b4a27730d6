"""The dynamic batcher: batches by programme priority when more requests wait than fit."""

from __future__ import annotations

import asyncio

from arena.llm.batcher import Batcher
from arena.llm.messages import ChatRequest, ChatResult
from arena.priority import match_priority


def echo_batches(seen: list[list[str]]):
    def run(batch: list[ChatRequest]) -> list[ChatResult]:
        seen.append([r.messages[0]["content"] for r in batch])
        return [ChatResult(text=r.messages[0]["content"]) for r in batch]

    return run


async def ask(batcher: Batcher, text: str, priority: int | None) -> str:
    match_priority.set(priority)  # each task runs in its own context copy
    res = await batcher.submit(ChatRequest([{"role": "user", "content": text}]))
    return res.text


async def test_a_full_queue_is_served_earliest_started_match_first():
    seen: list[list[str]] = []
    batcher = Batcher(echo_batches(seen), window_s=0.05, max_batch=2)
    order = [("late", 7), ("untagged", None), ("first", 1), ("second", 2), ("third", 3)]
    out = await asyncio.gather(*(ask(batcher, t, p) for t, p in order))
    assert out == [t for t, _ in order]  # every caller gets its own reply
    assert seen == [["first", "second"], ["third", "late"], ["untagged"]]
    batcher.close()


async def test_equal_priorities_keep_arrival_order():
    seen: list[list[str]] = []
    batcher = Batcher(echo_batches(seen), window_s=0.05, max_batch=3)
    await asyncio.gather(*(ask(batcher, f"r{i}", 4) for i in range(5)))
    assert seen == [["r0", "r1", "r2"], ["r3", "r4"]]
    batcher.close()
