"""Per-seat KV caches of the local backend, kept between a seat's turns (prefix reuse).

A seat's conversation grows turn by turn; re-prefilling the whole prompt each turn is most of a
local call's cost on CPU. :class:`KVStore` keeps, per session key (match id + seat, carried by
``ChatRequest.session``), the token ids of the seat's last prompt and the key/value tensors the
model computed for them. On the next request the model reuses the longest common token prefix
(the cache is cropped to it, whatever the prompt layout) and prefills only the rest.

Bounded three ways: a memory cap (least recently used entries go first), a time-to-live in
turns (requests the store has served since the entry was last used) and one in seconds. Tensors
are opaque here (anything with ``numel()`` and ``element_size()``), so the bookkeeping is
testable without a model.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from arena.llm.config import KVConfig


class _Tensor(Protocol):
    def numel(self) -> int: ...

    def element_size(self) -> int: ...


Layers = list[tuple[Any, Any]]  # per layer: (keys, values), each [1, heads, tokens, head_dim]


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    """Length of the longest common prefix of two token id sequences."""
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def layers_nbytes(layers: Layers) -> int:
    return sum(k.numel() * k.element_size() + v.numel() * v.element_size() for k, v in layers)


@dataclass
class KVEntry:
    """One seat's cached prompt: its token ids and the KV tensors computed for exactly them."""

    tokens: list[int]
    layers: Layers
    nbytes: int
    last_turn: int
    last_s: float


@dataclass
class KVStats:
    """Counters since the store was made (read by benchmarks and the demo summary)."""

    hits: int = 0
    misses: int = 0
    reused_tokens: int = 0  # prompt tokens served from a cache
    computed_tokens: int = 0  # prompt tokens prefilled
    evicted_lru: int = 0
    expired: int = 0
    not_stored: int = 0  # larger than the whole cap
    shared: int = 0  # first turns that started from another session's prefix (among hits)

    def as_dict(self) -> dict[str, int]:
        return {
            "hits": self.hits,
            "misses": self.misses,
            "reused_tokens": self.reused_tokens,
            "computed_tokens": self.computed_tokens,
            "evicted_lru": self.evicted_lru,
            "expired": self.expired,
            "not_stored": self.not_stored,
            "shared": self.shared,
        }


class KVStore:
    """Session key -> :class:`KVEntry`, LRU-ordered, within ``max_bytes`` and the TTLs.

    ``take`` removes the entry it returns: the caller extends (or crops) those tensors and
    ``put``s the new prompt's entry back, so one entry never serves two requests at once.
    """

    def __init__(
        self,
        max_bytes: int,
        ttl_turns: int,
        ttl_s: float,
        clock: Callable[[], float] = time.monotonic,
        min_shared: int = 0,
    ) -> None:
        self.max_bytes = max_bytes
        self.min_shared = min_shared  # 0: no sharing between sessions
        self.ttl_turns = ttl_turns
        self.ttl_s = ttl_s
        self.clock = clock
        self.turn = 0
        self.nbytes = 0
        self.stats = KVStats()
        self._entries: OrderedDict[str, KVEntry] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, session: str) -> bool:
        return session in self._entries

    def tick(self, requests: int = 1) -> None:
        """Count served requests (the turn clock) and drop what outlived a TTL."""
        with self._lock:
            self.turn += requests
            self._expire()

    def take(self, session: str) -> KVEntry | None:
        """The session's entry (removed from the store), or None."""
        with self._lock:
            self._expire()
            entry = self._entries.pop(session, None)
            if entry is not None:
                self.nbytes -= entry.nbytes
            return entry

    def shared(self, tokens: Sequence[int]) -> tuple[KVEntry, int] | None:
        """Another session's entry sharing the longest token prefix with ``tokens``, and that
        length, if at least ``min_shared`` (the entry stays stored: read it, never write it)."""
        if self.min_shared <= 0:
            return None
        with self._lock:
            self._expire()
            best: tuple[str, int] | None = None
            head = list(tokens[: self.min_shared])
            for key, entry in self._entries.items():
                if entry.tokens[: self.min_shared] != head:
                    continue  # most entries part early: skip the token-by-token walk
                n = common_prefix(entry.tokens, tokens)
                if best is None or n > best[1]:
                    best = (key, n)
            if best is None or best[1] < self.min_shared:
                return None
            # a prefix in use is live: it moves to the back of the eviction queue
            self._entries.move_to_end(best[0])
            donor = self._entries[best[0]]
            donor.last_turn, donor.last_s = self.turn, self.clock()
            self.stats.shared += 1
            return donor, best[1]

    def put(self, session: str, tokens: list[int], layers: Layers) -> bool:
        """Keep ``layers`` (computed for ``tokens``) as the session's entry; False if too big."""
        nbytes = layers_nbytes(layers)
        with self._lock:
            old = self._entries.pop(session, None)
            if old is not None:
                self.nbytes -= old.nbytes
            if nbytes > self.max_bytes:
                self.stats.not_stored += 1
                return False
            while self._entries and self.nbytes + nbytes > self.max_bytes:
                _, lru = self._entries.popitem(last=False)
                self.nbytes -= lru.nbytes
                self.stats.evicted_lru += 1
            self._entries[session] = KVEntry(tokens, layers, nbytes, self.turn, self.clock())
            self.nbytes += nbytes
            return True

    def drop(self, session: str) -> None:
        with self._lock:
            entry = self._entries.pop(session, None)
            if entry is not None:
                self.nbytes -= entry.nbytes

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.nbytes = 0

    def _expire(self) -> None:
        now = self.clock()
        for key in [
            k
            for k, e in self._entries.items()
            if self.turn - e.last_turn > self.ttl_turns or now - e.last_s > self.ttl_s
        ]:
            self.nbytes -= self._entries.pop(key).nbytes
            self.stats.expired += 1


def store_for(kv: KVConfig) -> KVStore | None:
    """The store a backend's ``kv`` settings ask for (None: reuse is off)."""
    if not kv.reuse:
        return None
    return KVStore(int(kv.max_mb * 2**20), kv.ttl_turns, kv.ttl_s, min_shared=kv.share_min_tokens)
