"""Backend construction; one shared instance per (event loop, backend config)."""

from __future__ import annotations

import asyncio
import weakref
from typing import TYPE_CHECKING

from arena.llm.config import BackendConfig

if TYPE_CHECKING:
    from arena.llm.backends.base import Backend

_SHARED: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, Backend]] = (
    weakref.WeakKeyDictionary()
)


def make_backend(config: BackendConfig) -> Backend:
    """A new backend for ``config`` (not shared)."""
    if config.type == "local":
        from arena.llm.backends.local import LocalBackend

        return LocalBackend(config)
    from arena.llm.backends.openai_backend import OpenAIBackend

    return OpenAIBackend(config)


def get_backend(config: BackendConfig) -> Backend:
    """The backend shared by every agent with this config in the running event loop."""
    loop = asyncio.get_running_loop()
    per_loop = _SHARED.setdefault(loop, {})
    key = config.key()
    backend = per_loop.get(key)
    if backend is None:
        backend = per_loop[key] = make_backend(config)
    return backend


def provide_backend(config: BackendConfig, backend: Backend) -> None:
    """Make ``backend`` the one :func:`get_backend` returns for ``config`` in the running loop.

    A Ray worker provides a handle-backed backend for a local model served by an actor
    (:mod:`arena.llm.actor`), so agents built from the same config reach the actor."""
    _SHARED.setdefault(asyncio.get_running_loop(), {})[config.key()] = backend
