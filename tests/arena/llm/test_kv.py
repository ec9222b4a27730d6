"""The per-seat KV store's bookkeeping: common prefixes, the memory cap (LRU), the TTLs."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

import torch

from arena.llm.config import BackendConfig, KVConfig
from arena.llm.kv import KVStore, common_prefix, layers_nbytes, store_for


def layers(tokens: int, n_layers: int = 2) -> list[tuple[object, object]]:
    """Real tensors shaped like a model's per-layer KV: [1, heads, tokens, head_dim]."""
    return [(torch.zeros(1, 2, tokens, 4), torch.zeros(1, 2, tokens, 4)) for _ in range(n_layers)]


ONE = layers_nbytes(layers(10))  # 2 layers x (k, v) x 2 heads x 10 tokens x 4 dims x 4 bytes


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_common_prefix_is_the_longest_shared_start():
    assert common_prefix([1, 2, 3, 4], [1, 2, 9, 4]) == 2
    assert common_prefix([1, 2], [1, 2, 3]) == 2
    assert common_prefix([], [1]) == 0
    assert common_prefix([5], [6]) == 0


def test_an_entry_taken_is_gone_until_put_back():
    store = KVStore(10 * ONE, ttl_turns=100, ttl_s=100)
    store.put("m:0", list(range(10)), layers(10))
    assert store.nbytes == ONE == 1280
    entry = store.take("m:0")
    assert entry is not None and entry.tokens == list(range(10))
    assert store.take("m:0") is None and store.nbytes == 0


def test_a_seat_without_an_entry_reads_another_seats_longest_shared_prefix():
    store = KVStore(10 * ONE, ttl_turns=100, ttl_s=100, min_shared=4)
    store.put("a:0", list(range(10)), layers(10))
    store.put("b:0", [0, 1, 2, 3, 4, 9, 9, 9, 9, 9], layers(10))
    found = store.shared([0, 1, 2, 3, 4, 5, 6, 0])
    assert found is not None
    entry, n = found
    assert n == 7 and entry.tokens == list(range(10))
    assert "a:0" in store and len(store) == 2  # read, not taken
    assert store.shared([0, 1, 2, 7]) is None  # 3 tokens in common: below min_shared
    assert store.shared([5, 1, 2, 3, 4]) is None
    assert store.stats.shared == 1
    off = KVStore(10 * ONE, ttl_turns=100, ttl_s=100)  # the store alone shares nothing
    off.put("a:0", list(range(10)), layers(10))
    assert off.shared(list(range(10))) is None


def test_a_prefix_in_use_by_other_seats_is_evicted_last():
    store = KVStore(2 * ONE, ttl_turns=100, ttl_s=100, min_shared=2)
    store.put("a:0", list(range(10)), layers(10))
    store.put("b:0", [7] * 10, layers(10))
    assert store.shared([0, 1, 2]) is not None  # a:0 serves another seat's first turn
    store.put("c:0", [8] * 10, layers(10))
    assert "a:0" in store and "b:0" not in store and store.stats.evicted_lru == 1


def test_the_memory_cap_evicts_the_least_recently_used_seat():
    store = KVStore(3 * ONE, ttl_turns=100, ttl_s=100)
    for seat in range(3):
        store.put(f"m:{seat}", [seat], layers(10))
    taken = store.take("m:0")  # seat 0 used again: now the most recent
    assert taken is not None
    store.put("m:0", [0, 1], layers(10))
    store.put("m:3", [3], layers(10))
    assert "m:1" not in store
    assert all(k in store for k in ("m:0", "m:2", "m:3"))
    assert store.nbytes == 3 * ONE and store.stats.evicted_lru == 1


def test_an_entry_larger_than_the_cap_is_not_stored():
    store = KVStore(ONE - 1, ttl_turns=100, ttl_s=100)
    assert store.put("m:0", [1], layers(10)) is False
    assert len(store) == 0 and store.nbytes == 0 and store.stats.not_stored == 1


def test_a_seat_idle_for_more_than_ttl_turns_is_dropped():
    store = KVStore(10 * ONE, ttl_turns=3, ttl_s=1e9)
    store.put("m:0", [1], layers(10))
    store.put("m:1", [1], layers(10))
    store.tick(2)
    assert store.take("m:1") is not None  # used at turn 2: its clock restarts
    store.put("m:1", [1, 2], layers(10))
    store.tick(2)  # turn 4: seat 0 idle 4 > 3 turns, seat 1 idle 2
    assert "m:0" not in store and "m:1" in store
    assert store.stats.expired == 1 and store.nbytes == ONE


def test_a_seat_idle_for_more_than_ttl_seconds_is_dropped():
    clock = Clock()
    store = KVStore(10 * ONE, ttl_turns=1000, ttl_s=30, clock=clock)
    store.put("m:0", [1], layers(10))
    clock.now = 29
    store.put("m:1", [1], layers(10))
    clock.now = 31
    assert store.take("m:0") is None  # expired on the way in
    assert store.take("m:1") is not None


def test_the_kv_config_is_on_by_default_and_bounded():
    cfg = BackendConfig(type="local")
    assert cfg.kv == KVConfig(reuse=True, max_mb=512.0, ttl_turns=256, ttl_s=600.0)
    assert cfg.device == "auto" and cfg.dtype == "auto"
    off = BackendConfig.model_validate({"type": "local", "kv": {"reuse": False}})
    assert off.kv.reuse is False and off.key() != cfg.key()
    with pytest.raises(ValueError):
        BackendConfig.model_validate({"type": "local", "kv": {"ttl_turns": -1}})
    with pytest.raises(ValueError):
        BackendConfig.model_validate({"type": "local", "dtype": "int4"})
    assert store_for(cfg.kv).min_shared == 64  # a seat's first prompt may use another's
    assert store_for(off.kv) is None
    alone = BackendConfig.model_validate({"type": "local", "kv": {"share_min_tokens": 0}})
    assert store_for(alone.kv).min_shared == 0
