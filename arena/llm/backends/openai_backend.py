"""OpenAI-compatible backend on ``openai.AsyncOpenAI`` (OpenAI, vLLM, llama.cpp, Ollama, ...).

The client's own retries are off: retries, back-off, ``Retry-After`` and limits are the base
class's, so they behave the same for every server. The API key is read from the environment
variable the config names and is never logged or put in an error message.

Requests go through the client's low-level ``post`` with a body we build (the same JSON on the
wire as ``chat.completions.create``), and the reply is read as plain JSON: the SDK's typed
request transform and response model cost ~1 ms of CPU per call, which at 64 concurrent calls
was a fifth of a tournament's CPU. High concurrency is spread over several clients of at most
``POOL_SIZE`` concurrent calls each (round robin), because the HTTP pool scans every
connection on each request.

Ranked choice over HTTP: a request with ``choices`` (complete candidate replies) is answered by
ranking them by likelihood, with one scoring request per candidate in the form vLLM's chat
endpoint takes: the conversation plus the candidate as the assistant's message,
``continue_final_message: true``, ``add_generation_prompt: false``, ``prompt_logprobs: 0``,
``max_tokens: 1``. The server applies its own chat template; the candidate's score is the sum
of the log-probabilities of its tokens, the last entries of the reply's ``prompt_logprobs``.
``arena serve --engine transformers`` answers these requests the same way, and scores exactly
what the in-process backend scores. llama.cpp's server returns no prompt log-probabilities, so
an agent on it keeps ``decide: generate``.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
from typing import Any

from arena.llm.backends.base import Backend
from arena.llm.config import BackendConfig
from arena.llm.limits import parse_retry_after
from arena.llm.messages import ChatRequest, ChatResult, LLMError, PreflightError, TransportError
from arena.llm.rank_pick import pick_order

POOL_SIZE = 16  # connections per client; more clients when the backend's concurrency is higher


class OpenAIBackend(Backend):
    kind = "openai"

    def __init__(self, config: BackendConfig) -> None:
        super().__init__(config)
        import openai
        from openai import AsyncOpenAI

        self._key_missing = bool(config.api_key_env) and not os.environ.get(
            config.api_key_env or ""
        )
        api_key = os.environ.get(config.api_key_env, "") if config.api_key_env else ""
        self.clients = [
            AsyncOpenAI(
                base_url=config.base_url,
                api_key=api_key or "not-needed",
                max_retries=0,
                timeout=_timeout(openai, config.timeout_s, config.connect_timeout_s),
            )
            for _ in range(max(1, -(-config.concurrency // POOL_SIZE)))
        ]
        self.client = self.clients[0]
        self._next_client = itertools.cycle(self.clients)

    def _body(self, request: ChatRequest) -> dict[str, Any]:
        """The JSON body of a chat completion request (what ``create(**...)`` would send)."""
        body: dict[str, Any] = {
            "model": self.config.model,
            "messages": request.messages,
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
            "top_p": request.top_p,
        }
        if request.seed is not None:
            body["seed"] = request.seed
        if request.stop:
            body["stop"] = request.stop[:4]
        if request.schema is not None:
            if self.config.structured == "json_schema":
                body["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {"name": "decision", "schema": request.schema, "strict": False},
                }
            elif self.config.structured == "json_object":
                body["response_format"] = {"type": "json_object"}
        return body

    async def _attempt(self, request: ChatRequest) -> ChatResult:
        if request.choices:
            return await self._rank(request, request.choices)
        return _result(await self._post(self._body(request)), self.config.model)

    async def _rank(self, request: ChatRequest, choices: list[str]) -> ChatResult:
        """Rank complete candidate replies by their log-likelihood as the assistant's reply,
        one scoring request per candidate (module doc: "Ranked choice over HTTP")."""
        bodies = []
        for choice in choices:
            body = {
                "model": self.config.model,
                "messages": [*request.messages, {"role": "assistant", "content": choice}],
                "add_generation_prompt": False,
                "continue_final_message": True,
                "prompt_logprobs": 0,
                "max_tokens": 1,
                "temperature": 0.0,
            }
            bodies.append(body)
        replies = await asyncio.gather(*(self._post(b) for b in bodies))
        scored = [score_reply(r, c) for r, c in zip(replies, choices, strict=True)]
        scores = [s for s, _ in scored]
        # the answer: the likeliest at temperature 0, a seeded draw above it (as in process)
        order = pick_order(scores, request.temperature, request.seed, request.messages, choices)
        return ChatResult(
            text=choices[order[0]],
            tokens_in=max(n for _, n in scored),
            model=str(replies[0].get("model") or self.config.model),
            finish_reason="ranked",
            ranked=order,
            scores=scores,
        )

    async def _post(self, body: dict[str, Any]) -> dict[str, Any]:
        """One POST to /chat/completions; its JSON object, or a labelled error."""
        import openai

        try:
            resp = await next(self._next_client).post(
                "/chat/completions", body=body, cast_to=object
            )
        except openai.RateLimitError as err:
            after = parse_retry_after(err.response.headers.get("retry-after"))
            raise TransportError("HTTP 429 rate limited", retry_after=after, kind="429") from err
        except openai.APITimeoutError as err:
            raise TransportError(
                f"no reply within {self.config.timeout_s}s", kind="timeout"
            ) from err
        except openai.APIConnectionError as err:
            raise TransportError(f"connection failed: {err}", kind="connection") from err
        except openai.APIStatusError as err:
            if err.status_code >= 500 or err.status_code in (408, 409):
                after = parse_retry_after(err.response.headers.get("retry-after"))
                raise TransportError(
                    f"HTTP {err.status_code}", retry_after=after, kind=str(err.status_code)
                ) from err
            raise LLMError(
                f"HTTP {err.status_code} from {self.config.base_url}: {err.message}"
            ) from None
        except json.JSONDecodeError as err:
            kind = "empty" if not err.doc.strip() else "malformed"
            raise TransportError(f"{kind} response body: {err}", kind=kind) from err
        except (openai.APIResponseValidationError, ValueError) as err:
            raise TransportError(f"malformed response body: {err}", kind="malformed") from err
        if not isinstance(resp, dict):  # a non-JSON content type comes back as text
            raise TransportError(f"malformed response body: {str(resp)[:80]!r}", kind="malformed")
        return resp

    async def preflight(self) -> str:
        import openai

        where = f"{self.config.base_url} (model {self.config.model!r})"
        if self._key_missing:
            raise PreflightError(
                f"{where}: the API key variable {self.config.api_key_env} is not set"
            )
        client = self.client.with_options(timeout=min(self.config.timeout_s, 15.0))
        try:
            page = await client.models.list()
            ids = [m.id for m in page.data]
        except openai.AuthenticationError:
            raise PreflightError(
                f"{where}: the API key was rejected (from ${self.config.api_key_env})"
            ) from None
        except (openai.APIConnectionError, openai.APITimeoutError) as err:
            raise PreflightError(f"{where}: cannot reach the server: {err}") from None
        except openai.APIStatusError:
            ids = []  # no /models endpoint: fall through to a tiny call
        if ids and self.config.model not in ids:
            shown = ", ".join(ids[:10]) + (" ..." if len(ids) > 10 else "")
            raise PreflightError(f"{where}: model not served here; available: {shown}")
        if not ids:
            try:
                await client.chat.completions.create(
                    model=self.config.model,
                    messages=[{"role": "user", "content": "ping"}],
                    max_tokens=1,
                )
            except openai.APIError as err:
                raise PreflightError(f"{where}: a test call failed: {err}") from None
        return f"{where}: ok"

    async def close(self) -> None:
        for client in self.clients:
            await client.close()


def _timeout(openai: Any, total_s: float, connect_s: float) -> Any:
    """A timeout object of the HTTP library the installed ``openai`` is built on.

    openai 1.x and 2.x take an ``httpx.Timeout``, 3.x an ``httpx2.Timeout`` and rejects the other;
    its own default timeout is always an instance of the right class, so we build ours from that.
    """
    return type(openai.DEFAULT_TIMEOUT)(total_s, connect=connect_s)


def score_reply(resp: dict[str, Any], candidate: str) -> tuple[float, int]:
    """(log-likelihood of ``candidate``, prompt tokens) from a scoring reply's
    ``prompt_logprobs``: the sum over the last tokens, walking back until their text covers the
    candidate. A server that returns none cannot rank: a clear, non-retried error."""
    entries = resp.get("prompt_logprobs")
    if not isinstance(entries, list) or not entries:
        raise LLMError(
            "the server returned no prompt_logprobs, so it cannot rank choices (vLLM and "
            "arena serve can; llama.cpp's server cannot): give this agent decide: generate"
        )
    total, text = 0.0, ""
    for entry in reversed(entries):
        if len(text) >= len(candidate):
            break
        if not isinstance(entry, dict) or not entry:
            raise TransportError("prompt_logprobs ended before the candidate", kind="malformed")
        info = next(iter(entry.values()))
        if not isinstance(info, dict):
            raise TransportError("malformed prompt_logprobs entry", kind="malformed")
        total += float(info.get("logprob") or 0.0)
        text = str(info.get("decoded_token") or "") + text
    return total, len(entries)


def _result(resp: dict[str, Any], model: str) -> ChatResult:
    """A ``ChatResult`` from a chat completion's JSON, or a labelled ``TransportError``."""
    choices = resp.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise TransportError(f"malformed response body: {str(resp)[:80]!r}", kind="malformed")
    message = choices[0].get("message")
    text = message.get("content") if isinstance(message, dict) else None
    if not isinstance(text, str) or not text.strip():
        raise TransportError("empty reply", kind="empty")
    usage = resp.get("usage")
    usage = usage if isinstance(usage, dict) else {}
    return ChatResult(
        text=text,
        tokens_in=_count(usage.get("prompt_tokens")),
        tokens_out=_count(usage.get("completion_tokens")),
        model=str(resp.get("model") or model),
        finish_reason=str(choices[0].get("finish_reason") or ""),
    )


def _count(value: Any) -> int:
    try:
        return max(0, int(value or 0))
    except (TypeError, ValueError):
        return 0
