"""The backend base: cache, concurrency, rate limits, retries with back-off, accounting.

Subclasses implement one attempt (``_attempt``) raising :class:`TransportError` for anything
worth retrying, and ``preflight``. Backends with equal configs are shared per event loop, so
limits hold across every agent of a run.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator

from arena.deadline import current_clock, queued
from arena.llm.admission import Admission
from arena.llm.cache import ResponseCache, open_cache
from arena.llm.config import BackendConfig
from arena.llm.limits import RateLimiter, backoff_delay
from arena.llm.messages import (
    CacheMiss,
    CallProgress,
    ChatRequest,
    ChatResult,
    LLMError,
    TransportError,
)
from arena.priority import PriorityGate


class Backend(ABC):
    kind = "backend"

    def __init__(self, config: BackendConfig) -> None:
        self.config = config
        # A priority gate instead of a plain semaphore: when a slot frees, the earliest-started
        # match gets it, so matches in progress finish before new ones start their calls.
        self.gate = PriorityGate(config.concurrency)
        self.admission = Admission(self.gate, config.concurrency)
        self.limiter = RateLimiter(config.requests_per_min, config.tokens_per_min, config.burst_s)
        self.rng = random.Random(f"backoff:{config.key()}")
        self.cache: ResponseCache | None = (
            open_cache(config.cache.path) if config.cache.mode != "off" else None
        )
        self.n_calls = 0

    @property
    def model_name(self) -> str:
        return self.config.model

    def estimate_tokens(self, request: ChatRequest) -> int:
        return int(request.prompt_chars() / 3.5) + request.max_tokens

    async def complete(
        self, request: ChatRequest, progress: CallProgress | None = None
    ) -> ChatResult:
        """One reply (from the cache, or the backend with retries); raises LLMError on failure.

        ``progress`` (when given) is kept up to date with the retries and transport errors,
        so a caller whose call is cancelled can still record them."""
        progress = progress if progress is not None else CallProgress()
        started = time.perf_counter()
        key: str | None = None
        if self.cache is not None:
            key = request.cache_key(self.kind, self.model_name)
            hit = self.cache.get(key)
            if hit is not None:
                hit.latency_s = time.perf_counter() - started
                return hit
            if self.config.cache.mode == "replay_only":
                raise CacheMiss(
                    f"replay-only cache {self.config.cache.path}: no stored reply for this "
                    f"request to {self.config.describe()} (key {key[:12]})"
                )
        retries = 0
        errors = progress.errors
        while True:
            try:
                result = await self._admitted(request, progress)
                break
            except TransportError as err:
                errors.append(f"{err.kind or 'transport'}: {err}")
                if retries >= self.config.max_retries:
                    raise LLMError(
                        f"{self.config.describe()} failed after {retries} retries: {err}",
                        retries=retries,
                    ) from err
                retry_after = (
                    min(err.retry_after, self.config.retry_after_max_s)
                    if err.retry_after is not None
                    else None
                )
                delay = backoff_delay(
                    retries,
                    self.config.backoff_base_s,
                    self.config.backoff_max_s,
                    self.rng,
                    retry_after,
                )
                retries += 1
                progress.retries = retries
                await asyncio.sleep(delay)
        self.n_calls += 1
        result.retries = retries
        result.errors = list(errors)
        result.latency_s = time.perf_counter() - started
        result.cost_usd = self.config.prices.cost(result.tokens_in, result.tokens_out)
        result.model = result.model or self.model_name
        if self.cache is not None and key is not None:
            result.cache = "miss"
            self.cache.put(key, self.kind, _request_record(request), result)
        return result

    async def _admitted(self, request: ChatRequest, progress: CallProgress) -> ChatResult:
        """One attempt past the gate and the limiter. Their waits are queue time: they do not
        count against the decision's time limit (:mod:`arena.deadline`) and are recorded."""
        loop = asyncio.get_running_loop()
        with _waiting(progress, loop):
            await self.gate.acquire()
        try:
            est = self.estimate_tokens(request)
            with _waiting(progress, loop):
                await self.limiter.acquire(est)
            sent = loop.time()
            progress.sent = True
            admitted = self.admission.admitted()
            result = await self._attempt(request)
            # the model's own time: a local batch queue inside the attempt is not service, and
            # a local model's measured time is what its decisions are charged
            service = result.model_s or (loop.time() - sent - result.queue_s)
            self.admission.observe(admitted, service, self._budget())
            self.limiter.settle(est, result.tokens_in + result.tokens_out)
        finally:
            self.gate.release()
        result.queue_s += progress.queued_s
        return result

    def _budget(self) -> float | None:
        """The seconds a call may take: the decision's limit (when a runner set one), never
        more than the transport's own timeout."""
        clock = current_clock.get()
        limit = clock.limit_s if clock is not None else None
        return min(self.config.timeout_s, limit) if limit is not None else self.config.timeout_s

    @abstractmethod
    async def _attempt(self, request: ChatRequest) -> ChatResult:
        """One try; raise TransportError for retryable failures, LLMError for fatal ones."""

    @abstractmethod
    async def preflight(self) -> str:
        """Check the backend is usable; returns a one-line description or raises PreflightError."""

    async def close(self) -> None:
        return None


@contextlib.contextmanager
def _waiting(progress: CallProgress, loop: asyncio.AbstractEventLoop) -> Iterator[None]:
    """A queue wait: off the decision's clock, and added to the call's recorded queue time
    (also when the wait is cut short)."""
    began = loop.time()
    with queued():
        try:
            yield
        finally:
            progress.queued_s += loop.time() - began


def _request_record(request: ChatRequest) -> dict[str, object]:
    return {
        "messages": request.messages,
        "max_tokens": request.max_tokens,
        "temperature": request.temperature,
        "schema": request.schema,
        "choices": request.choices,
    }
