"""A local model served by a Ray actor, and the backend LLM agents use to reach it.

One :class:`ModelServer` per device holds the model and its dynamic batcher
(:mod:`arena.llm.batcher`): concurrent calls from matches on any node arrive at the actor and
run as batches there, exactly as concurrent agents of one process batch on a
:class:`~arena.llm.backends.local.LocalBackend`. :class:`ActorBackend` is what a worker's
agents get from :func:`arena.llm.backends.get_backend`: it sends each request to one of the
actors (sticky per match, so a match's calls meet one model instance) and re-asks a call whose
actor died — Ray restarts the actor, and a reply is a pure function of the request, so asking
again is safe. ``ray`` is imported only when this is used (the ``ray`` extra).
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import os
import zlib
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from arena import priority
from arena.llm.backends.base import Backend
from arena.llm.batcher import Batcher
from arena.llm.config import BackendConfig
from arena.llm.kv import KVStore, store_for
from arena.llm.messages import ChatRequest, ChatResult, LLMError, PreflightError, TransportError

# The match whose agents are calling (set by the executor per match): the routing key.
current_match: ContextVar[str | None] = ContextVar("arena_current_match", default=None)

Loader = Callable[[BackendConfig], Any]  # -> has run_batch(requests, rank=..., kv=...)


def load_local(config: BackendConfig) -> Any:
    """The model a ``type: local`` backend config names (the bundled one by default)."""
    from arena.llm.local_model import load_model

    return load_model(
        config.model_path, config.gguf_file, config.device, config.threads, config.dtype
    )


class ModelServer:
    """The body of a model actor: one loaded model and its batcher on the actor's loop."""

    def __init__(self, config: BackendConfig, loader: Loader | None = None) -> None:
        self.config = config
        self.model = (loader or load_local)(config)
        self.batcher: Batcher | None = None  # made on the actor's event loop, at first call
        # a seat's prompt prefix stays here between its turns (calls are sticky per match;
        # sessions are match id + seat): the same reuse as an in-process local backend
        self.kv: KVStore | None = store_for(config.kv)
        self.pending = 0
        self.served = 0

    async def complete(self, request: ChatRequest, start: int | None = None) -> ChatResult:
        """``start``: the caller's match priority (its start order), which the batcher takes
        waiting requests by, as in the caller's own process."""
        if start is not None:
            priority.match_priority.set(start)  # this call's own context (one task per call)
        if self.batcher is None:
            run = functools.partial(self.model.run_batch, rank=self.config.rank_choices, kv=self.kv)
            self.batcher = Batcher(run, self.config.batch_window_s, self.config.max_batch)
        self.pending += 1
        try:
            result = await self.batcher.submit(request)
        finally:
            self.pending -= 1
        self.served += 1
        return result

    async def stats(self) -> dict[str, Any]:
        """What the actor did since it (re)started; ``pid`` tells a restarted one apart."""
        sizes = self.batcher.batch_sizes if self.batcher is not None else []
        return {
            "pid": os.getpid(),
            "pending": self.pending,
            "served": self.served,
            "batches": len(sizes),
            "mean_batch": sum(sizes) / len(sizes) if sizes else 0.0,
        }


def start_model_actors(
    config: BackendConfig,
    devices: list[str],
    loader: Loader | None = None,
    num_cpus: float = 1.0,
    max_restarts: int = 4,
) -> list[Any]:
    """One model actor per device (``cuda:N`` reserves a GPU), restarted when it dies.

    Calls are not retried by Ray (an actor call may have run before it failed): the
    :class:`ActorBackend` re-asks them itself."""
    import ray

    remote = ray.remote(ModelServer)
    handles = []
    for device in devices:
        on_gpu = device.startswith("cuda")
        options: dict[str, Any] = {
            "max_restarts": max_restarts,
            "max_task_retries": 0,
            "max_concurrency": 1024,  # the batcher wants every waiting call on its loop
            "num_cpus": 0 if on_gpu else num_cpus,
            "num_gpus": 1 if on_gpu else 0,
        }
        # Ray gives a GPU actor its own device as cuda:0 (CUDA_VISIBLE_DEVICES)
        per_device = config.model_copy(update={"device": "cuda" if on_gpu else device})
        handles.append(remote.options(**options).remote(per_device, loader))
    return handles


class ActorBackend(Backend):
    """A backend whose replies come from model actors (the base class keeps the cache,
    the concurrency gate of this process and the accounting)."""

    kind = "local"  # the same cache keys as the in-process local backend

    def __init__(self, config: BackendConfig, handles: list[Any], reasks: int = 4) -> None:
        super().__init__(config)
        if not handles:
            raise ValueError("an actor backend needs at least one model actor")
        self.handles = handles
        self.reasks = reasks
        self.n_reasked = 0
        self._turn = itertools.cycle(range(len(handles)))

    @property
    def model_name(self) -> str:
        return self.config.model_path or "bundled:SmolLM2-135M-Instruct"

    def _route(self) -> Any:
        match = current_match.get()
        if match is None:
            return self.handles[next(self._turn)]
        return self.handles[zlib.crc32(match.encode()) % len(self.handles)]

    async def _attempt(self, request: ChatRequest) -> ChatResult:
        from ray.exceptions import RayActorError

        handle = self._route()
        for asked in range(self.reasks + 1):
            try:
                start = priority.match_priority.get()
                result: ChatResult = await handle.complete.remote(request, start)
                return result
            except RayActorError as err:  # died mid-call: restarted by Ray, ask again
                if asked == self.reasks:
                    raise TransportError(f"model actor unavailable: {err}") from err
                self.n_reasked += 1
                await asyncio.sleep(min(0.2 * 2**asked, 5.0))
        raise LLMError("unreachable")  # pragma: no cover - the loop returns or raises

    async def preflight(self) -> str:
        try:
            stats = [await h.stats.remote() for h in self.handles]
        except Exception as err:
            raise PreflightError(f"model actors for {self.config.describe()}: {err}") from None
        return f"local model {self.model_name}: {len(stats)} Ray actor(s)"
