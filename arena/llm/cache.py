"""SQLite response cache keyed by backend, model, sampling parameters and the exact messages.

Modes: ``off``; ``read_write`` (hits are served, misses are stored after the call);
``replay_only`` (hits are served, a miss raises :class:`CacheMiss` — re-running a logged match
then reproduces it exactly or fails loudly).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from arena.llm.messages import ChatResult

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    backend TEXT NOT NULL,
    model TEXT NOT NULL,
    request TEXT NOT NULL,
    text TEXT NOT NULL,
    tokens_in INTEGER NOT NULL,
    tokens_out INTEGER NOT NULL,
    cost_usd REAL NOT NULL,
    created REAL NOT NULL
)
"""


class ResponseCache:
    """A thread-safe SQLite store of replies (WAL, one connection guarded by a lock)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path).expanduser()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(self.path), check_same_thread=False, timeout=30)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(_SCHEMA)
        self._db.commit()
        self.hits = 0
        self.misses = 0

    def get(self, key: str) -> ChatResult | None:
        with self._lock:
            row = self._db.execute(
                "SELECT text, tokens_in, tokens_out, cost_usd, model FROM responses WHERE key=?",
                (key,),
            ).fetchone()
        if row is None:
            self.misses += 1
            return None
        self.hits += 1
        text, tin, tout, cost, model = row
        return ChatResult(
            text=text, tokens_in=tin, tokens_out=tout, cost_usd=cost, model=model, cache="hit"
        )

    def put(self, key: str, backend: str, request: dict[str, Any], result: ChatResult) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO responses"
                " (key, backend, model, request, text, tokens_in, tokens_out, cost_usd, created)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    key,
                    backend,
                    result.model,
                    json.dumps(request, ensure_ascii=False),
                    result.text,
                    result.tokens_in,
                    result.tokens_out,
                    result.cost_usd,
                    time.time(),
                ),
            )
            self._db.commit()

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()


_OPEN: dict[str, ResponseCache] = {}
_OPEN_LOCK = threading.Lock()


def open_cache(path: str | Path) -> ResponseCache:
    """One shared cache object per file in this process."""
    key = str(Path(path).expanduser().resolve())
    with _OPEN_LOCK:
        cache = _OPEN.get(key)
        if cache is None:
            cache = _OPEN[key] = ResponseCache(key)
        return cache
