"""Requests, results and errors shared by all backends."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any


class LLMError(RuntimeError):
    """A backend failure after retries (the runner treats it as a refused answer)."""

    def __init__(self, message: str, retries: int = 0) -> None:
        super().__init__(message)
        self.retries = retries


class TransportError(LLMError):
    """A retryable failure: timeout, connection error, 429, 5xx, malformed or empty body."""

    def __init__(self, message: str, retry_after: float | None = None, kind: str = "") -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.kind = kind


class CacheMiss(LLMError):
    """Replay-only cache mode and the exact request was never answered before."""


class PreflightError(LLMError):
    """A backend is unusable (unreachable, wrong model, bad key): fail before the run starts."""


@dataclass
class ChatRequest:
    """One chat completion request, backend-independent.

    ``schema`` is a JSON schema for structured output; ``choices`` (when set) lists complete
    candidate replies, which a local backend may rank by likelihood instead of sampling.
    """

    messages: list[dict[str, str]]
    max_tokens: int = 256
    temperature: float = 0.0
    top_p: float = 1.0
    seed: int | None = None
    stop: list[str] = field(default_factory=list)
    schema: dict[str, Any] | None = None
    choices: list[str] | None = None
    # which conversation this request continues (e.g. "match-id:seat"): a local backend keeps
    # that seat's KV cache between its turns. Not part of the response-cache key.
    session: str | None = None
    # (message index, characters of it): how far the conversation only grows between the
    # seat's turns. A local backend keeps the session's KV cache that far and no further (the
    # decision request after it is never reused). A hint: None caches the whole prompt.
    stable: tuple[int, int] | None = None
    # return the log-probability of each generated token (``ChatResult.token_logprobs``)
    logprobs: bool = False

    def cache_key(self, backend: str, model: str) -> str:
        data = {
            "backend": backend,
            "model": model,
            "sampling": [self.max_tokens, self.temperature, self.top_p, self.seed, self.stop],
            "schema": self.schema,
            "choices": self.choices,
            "messages": self.messages,
        }
        text = json.dumps(data, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(text.encode()).hexdigest()

    def prompt_chars(self) -> int:
        return sum(len(m.get("content") or "") for m in self.messages)


@dataclass
class CallProgress:
    """What a backend has done so far for one request, readable if the call is cancelled.

    A call cancelled by the runner's timeout (or a stop) ends with ``CancelledError``, which
    must propagate untouched; the caller passes one of these to :meth:`Backend.complete` to
    still record the retries and transport errors of the attempts made (issue 15, item 11)."""

    retries: int = 0
    errors: list[str] = field(default_factory=list)
    sent: bool = False  # an attempt reached the transport (past the gate and the limiter)
    queued_s: float = 0.0  # time waited in queues (gate, limiter) so far


@dataclass
class ChatResult:
    """A reply with its accounting."""

    text: str
    tokens_in: int = 0
    tokens_out: int = 0
    tokens_cached: int = 0  # prompt tokens a local backend reused from the seat's KV cache
    latency_s: float = 0.0
    # of latency_s, the time the request waited in queues before a model worked on it (the
    # backend's concurrency gate, its rate limiter, a local model's batch queue)
    queue_s: float = 0.0
    # a local model's own time on the call (its batch's CPU time over its threads): what the
    # decision's time limit is charged (arena.deadline.computing); 0 when not measured
    model_s: float = 0.0
    retries: int = 0
    cost_usd: float = 0.0
    model: str = ""
    cache: str = "off"  # off | miss | hit
    finish_reason: str = ""
    errors: list[str] = field(default_factory=list)
    ranked: list[int] | None = None  # candidate order (best first) when choices were ranked
    scores: list[float] | None = None
    # per candidate (ranked) or for the one reply (generated, when asked): the tokens and their
    # log-probabilities, which ``arena serve`` returns as logprobs
    token_ids: list[list[int]] | None = None
    token_logprobs: list[list[float]] | None = None
