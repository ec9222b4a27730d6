"""Rate limits (token buckets for requests/min and tokens/min) and retry back-off."""

from __future__ import annotations

import asyncio
import random
import time


class TokenBucket:
    """Refills ``rate`` units per second up to ``capacity``; ``acquire`` waits for enough units.

    Requests larger than the capacity are clamped to it (they wait for a full bucket), so a
    single oversized request can never block forever. Waiters are served in arrival order.
    """

    def __init__(self, rate: float, capacity: float) -> None:
        self.rate = rate
        self.capacity = max(capacity, 1.0)
        self.level = self.capacity
        self.stamp = time.monotonic()
        self._lock = asyncio.Lock()

    def _refill(self) -> None:
        now = time.monotonic()
        self.level = min(self.capacity, self.level + (now - self.stamp) * self.rate)
        self.stamp = now

    async def acquire(self, amount: float = 1.0) -> float:
        """Take ``amount`` units; returns the seconds waited."""
        amount = min(amount, self.capacity)
        waited = 0.0
        async with self._lock:
            while True:
                self._refill()
                if self.level >= amount:
                    self.level -= amount
                    return waited
                delay = (amount - self.level) / self.rate
                waited += delay
                await asyncio.sleep(delay)

    def adjust(self, delta: float) -> None:
        """Correct a reservation afterwards (positive: more was used than reserved)."""
        self._refill()
        self.level = min(self.capacity, self.level - delta)


class RateLimiter:
    """Per-backend requests/min and tokens/min limits."""

    def __init__(
        self, requests_per_min: float | None, tokens_per_min: float | None, burst_s: float = 1.0
    ) -> None:
        self.requests = (
            TokenBucket(requests_per_min / 60.0, requests_per_min / 60.0 * burst_s)
            if requests_per_min
            else None
        )
        self.tokens = (
            TokenBucket(tokens_per_min / 60.0, tokens_per_min / 60.0 * burst_s)
            if tokens_per_min
            else None
        )

    async def acquire(self, est_tokens: int) -> float:
        waited = 0.0
        if self.requests is not None:
            waited += await self.requests.acquire(1.0)
        if self.tokens is not None:
            waited += await self.tokens.acquire(float(est_tokens))
        return waited

    def settle(self, est_tokens: int, used_tokens: int) -> None:
        if self.tokens is not None and used_tokens:
            self.tokens.adjust(float(used_tokens - est_tokens))


def backoff_delay(
    attempt: int, base: float, cap: float, rng: random.Random, retry_after: float | None = None
) -> float:
    """Exponential back-off with full jitter; a server's Retry-After is a floor."""
    exp = min(cap, base * (2**attempt))
    delay = rng.uniform(exp / 2, exp) if exp > 0 else 0.0
    if retry_after is not None:
        delay = max(delay, retry_after)
    return delay


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header (delta-seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    from email.utils import parsedate_to_datetime

    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
