"""``arena serve``: an OpenAI-compatible HTTP server (``/v1/chat/completions``, ``/v1/models``).

Engines: ``scripted`` (deterministic legal replies, latency and fault injection — for tests and
benchmarks) and ``transformers`` (the local model, batched across all clients). Binds to
127.0.0.1 unless told otherwise. ``/admin/faults`` queues faults; ``/admin/stats`` counts.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from arena.llm.fakes.scripted import Fault, ScriptedEngine

if TYPE_CHECKING:
    from starlette.responses import Response

#: The reply of the ``garbage`` fault: valid JSON with none of the answer keys.
GARBAGE = '{"gibberish": "zq xv blorp"}'
#: The reply of the ``fenced`` fault around the answer the engine would have given.
FENCED = "Sure! Here is my answer:\n```json\n{answer}\n```\nGood luck to everyone."


class TransformersEngine:
    """Serves requests with the local model; concurrent requests are batched together."""

    def __init__(self, model_path: str | None = None, gguf_file: str | None = None,
                 window_s: float = 0.02, max_batch: int = 8) -> None:  # fmt: skip
        from arena.llm.config import BackendConfig

        self.config = BackendConfig(
            type="local",
            model_path=model_path,
            gguf_file=gguf_file,
            batch_window_s=window_s,
            max_batch=max_batch,
            concurrency=max(max_batch * 4, 8),
        )
        self.backend: Any = None
        self.served = 0

    async def start(self) -> None:
        from arena.llm.backends.local import LocalBackend

        self.backend = LocalBackend(self.config)
        await self.backend.load()

    async def reply(self, body: dict[str, Any]) -> tuple[str, int, int, dict[str, Any]]:
        """(content, prompt tokens, completion tokens, extra response fields).

        A request whose last message is the assistant's, with ``prompt_logprobs`` (the vLLM
        extension) and ``continue_final_message``, is a scoring request: the reply is empty
        and ``prompt_logprobs`` holds the log-probability of each token of that last message
        as the reply to the conversation before it (earlier positions: null). Generated
        replies carry ``logprobs`` when asked. The prompt is never echoed in a reply."""
        from arena.llm.messages import ChatRequest

        self.served += 1
        messages = body.get("messages") or []
        if is_scoring(body):
            request = ChatRequest(messages=messages[:-1], choices=[messages[-1]["content"]])
            result = await self.backend.complete(request)
            return "", result.tokens_in, 0, self._prompt_logprobs(result)
        schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("schema")
        props = (schema or {}).get("properties") or {}
        request = ChatRequest(
            messages=messages,
            max_tokens=int(body.get("max_tokens") or body.get("max_completion_tokens") or 256),
            temperature=float(body.get("temperature") or 0.0),
            top_p=float(body.get("top_p") or 1.0),
            seed=body.get("seed"),
            stop=[body["stop"]] if isinstance(body.get("stop"), str) else body.get("stop") or [],
            logprobs=bool(body.get("logprobs")),
        )
        multi = "choices" in props
        ids: list[str] = []
        if multi:
            ids = list((props["choices"].get("items") or {}).get("enum") or [])
        elif "choice" in props and "text" not in props and "belief" not in props:
            ids = list(props["choice"].get("enum") or [])
        if ids:
            key = "choices" if multi else "choice"
            request.choices = [json.dumps({key: [o] if multi else o}) for o in ids]
        result = await self.backend.complete(request)
        text = result.text
        if multi and result.ranked is not None:
            k = max(1, int(props["choices"].get("minItems") or 1))
            text = json.dumps({"choices": [ids[j] for j in result.ranked[:k]]})
        ranked = result.ranked is not None
        extra: dict[str, Any] = {"finish_reason": "stop" if ranked else result.finish_reason}
        if request.logprobs and not ranked and result.token_ids:
            extra["logprobs"] = {"content": self._token_entries(result)}
        return text, result.tokens_in, result.tokens_out, extra

    def _decoded(self, token: int) -> str:
        return str(self.backend.model.tok.decode([token]))

    def _prompt_logprobs(self, result: Any) -> dict[str, Any]:
        tokens, lps = result.token_ids[0], result.token_logprobs[0]
        head: list[dict[str, Any] | None] = [None] * result.tokens_in
        tail = [
            {str(t): {"logprob": lp, "decoded_token": self._decoded(t)}}
            for t, lp in zip(tokens, lps, strict=True)
        ]
        return {"prompt_logprobs": [*head, *tail], "finish_reason": "length"}

    def _token_entries(self, result: Any) -> list[dict[str, Any]]:
        out = []
        for t, lp in zip(result.token_ids[0], result.token_logprobs[0], strict=True):
            text = self._decoded(t)
            out.append({"token": text, "logprob": lp, "bytes": list(text.encode()),
                        "top_logprobs": []})  # fmt: skip
        return out


def is_scoring(body: dict[str, Any]) -> bool:
    """A request to score its last (assistant) message, the vLLM way: ``prompt_logprobs`` set
    and the final message continued rather than answered."""
    messages = body.get("messages") or []
    return (
        body.get("prompt_logprobs") is not None
        and bool(messages)
        and isinstance(messages[-1], dict)
        and messages[-1].get("role") == "assistant"
        and bool(body.get("continue_final_message") or body.get("add_generation_prompt") is False)
    )


def make_app(engine: Any, model: str = "scripted", api_key: str | None = None) -> Any:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    stats = {"requests": 0, "faults": 0}
    # a server with a capacity works on that many requests at once; the rest queue here
    capacity = int(getattr(engine, "capacity", 0) or 0)
    serving: Any = asyncio.Semaphore(capacity) if capacity > 0 else contextlib.nullcontext()

    def authorised(request: Request) -> bool:
        return api_key is None or request.headers.get("authorization") == f"Bearer {api_key}"

    async def models(request: Request) -> Response:
        if not authorised(request):
            return _error(401, "invalid API key")
        data = [{"id": model, "object": "model", "created": 0, "owned_by": "arena"}]
        return JSONResponse({"object": "list", "data": data})

    async def chat(request: Request) -> Response:
        stats["requests"] += 1
        if not authorised(request):
            return _error(401, "invalid API key")
        try:
            body = await request.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            return _error(400, "the request body is not JSON")
        refused = _refusal(body, model)
        if refused is not None:
            return refused
        with _in_flight(engine):
            async with serving:
                return await _answer(engine, model, body, stats)

    async def faults(request: Request) -> Response:
        return _queue_faults(engine, await request.json())

    async def admin_stats(request: Request) -> Response:
        return JSONResponse({**stats, "served": getattr(engine, "served", 0)})

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> Any:
        if hasattr(engine, "start"):
            await engine.start()
        yield

    return Starlette(
        routes=[
            Route("/v1/models", models, methods=["GET"]),
            Route("/v1/chat/completions", chat, methods=["POST"]),
            Route("/admin/faults", faults, methods=["POST"]),
            Route("/admin/stats", admin_stats, methods=["GET"]),
        ],
        lifespan=lifespan,
    )


@contextlib.contextmanager
def _in_flight(engine: Any) -> Iterator[None]:
    """Count the requests in flight (and their peak) of an engine that keeps ``in_flight``."""
    if not hasattr(engine, "in_flight"):
        yield
        return
    engine.in_flight += 1
    engine.max_in_flight = max(engine.max_in_flight, engine.in_flight)
    try:
        yield
    finally:
        engine.in_flight -= 1


def _refusal(body: dict[str, Any], model: str) -> Response | None:
    """Why a chat request is refused before any engine sees it (None: it is not)."""
    if body.get("model") != model:
        return _error(404, f"model {body.get('model')!r} not found; this server has {model!r}")
    if body.get("stream"):
        return _error(400, "streaming is not supported")
    return None


async def _answer(engine: Any, model: str, body: dict[str, Any], stats: dict[str, int]) -> Response:
    """The engine's reply to one chat request, after its latency and with its fault."""
    from starlette.responses import JSONResponse

    fault = engine.next_fault() if hasattr(engine, "next_fault") else None
    if hasattr(engine, "delay"):
        delay = engine.delay()
        if delay > 0:
            await asyncio.sleep(delay)
    if fault is not None:
        stats["faults"] += 1
        failed = await _transport_fault(fault, engine)
        if failed is not None:
            return failed
    reply = engine.reply(body)
    if asyncio.iscoroutine(reply):
        reply = await reply
    content, tin, tout, *more = reply
    return JSONResponse(_completion(model, content, tin, tout, more[0] if more else {}, fault))


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> Response:
    from starlette.responses import JSONResponse

    body = {"error": {"message": message, "type": "arena_error", "code": status}}
    return JSONResponse(body, status_code=status, headers=headers)


async def _transport_fault(fault: Fault, engine: Any) -> Response | None:
    """The response an injected transport fault gives instead of a reply (None: the fault is
    in the reply itself, ``garbage`` or ``fenced``)."""
    from starlette.responses import Response

    if fault.kind == "500":
        return _error(500, "injected server error")
    if fault.kind == "429":
        return _error(429, "injected rate limit", {"retry-after": f"{fault.retry_after:g}"})
    if fault.kind == "hang":
        await asyncio.sleep(getattr(engine, "hang_s", 3600.0))
        return _error(504, "hung")
    if fault.kind == "malformed":
        return Response('{"id": "x", "choices": [ {"mess', media_type="application/json")
    if fault.kind == "empty":
        return Response(b"", media_type="application/json")
    return None


def _completion(
    model: str, content: str, tin: int, tout: int, extra: dict[str, Any], fault: Fault | None
) -> dict[str, Any]:
    """The chat completion body of one reply (``extra``: the engine's finish reason and
    log-probabilities), with a reply fault applied."""
    if fault is not None and fault.kind == "garbage":
        # a well-formed completion whose answer no parser accepts: the model's fault, not
        # the transport's, so it reaches the agent and the runner refuses it
        content = GARBAGE
    elif fault is not None and fault.kind == "fenced":
        # the right answer in prose and a code fence, as chat models often write it: a
        # lenient parser reads it, a strict one refuses it (`arena reparse` tells which)
        content = FENCED.format(answer=content)
    choice: dict[str, Any] = {
        "index": 0,
        "message": {"role": "assistant", "content": content},
        "finish_reason": extra.get("finish_reason", "stop"),
    }
    if "logprobs" in extra:
        choice["logprobs"] = extra["logprobs"]
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:12]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [choice],
        **({"prompt_logprobs": extra["prompt_logprobs"]} if "prompt_logprobs" in extra else {}),
        "usage": {"prompt_tokens": tin, "completion_tokens": tout, "total_tokens": tin + tout},
    }


def _queue_faults(engine: Any, body: dict[str, Any]) -> Response:
    """``POST /admin/faults``: queue faults, set their rates or the hang time."""
    from starlette.responses import JSONResponse

    queue = getattr(engine, "queue", None)
    if queue is None:
        return _error(400, "this engine does not inject faults")
    if body.get("clear"):
        queue.clear()
    for item in body.get("queue") or []:
        if isinstance(item, str):
            item = {"kind": item}
        queue.append(Fault(str(item["kind"]), float(item.get("retry_after", 1.0))))
    if "rates" in body:
        engine.fault_rates = dict(body["rates"])
    if "hang_s" in body:
        engine.hang_s = float(body["hang_s"])
    return JSONResponse({"queued": len(queue)})


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


class ServerThread:
    """Run the server in a background thread on a free loopback port (tests, benchmarks)."""

    def __init__(self, engine: Any, model: str = "scripted", api_key: str | None = None,
                 host: str = "127.0.0.1", port: int | None = None) -> None:  # fmt: skip
        import uvicorn

        self.engine = engine
        self.host = host
        self.port = port or free_port(host)
        config = uvicorn.Config(
            make_app(engine, model, api_key),
            host=host,
            port=self.port,
            log_level="warning",
            lifespan="on",
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def start(self, timeout: float = 120.0) -> ServerThread:
        self.thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("arena serve did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)

    def __enter__(self) -> ServerThread:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def serve(engine: Any, host: str, port: int, model: str, api_key: str | None) -> None:
    import uvicorn

    uvicorn.run(make_app(engine, model, api_key), host=host, port=port, log_level="warning")


__all__ = ["ScriptedEngine", "ServerThread", "TransformersEngine", "make_app", "serve"]
