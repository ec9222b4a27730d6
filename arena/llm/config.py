"""Configuration of LLM backends and of the prompt (validated at the config boundary).

The ``params`` of an ``llm`` agent entry (backend + prompt options + memory) are the agent's:
:class:`arena.agents.llm_agent.LLMAgentParams`; this wing knows no memory bank."""

from __future__ import annotations

import hashlib
import json
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator

from arena.llm.examples import Example


class PriceTable(BaseModel):
    """USD per million tokens; the cost of a call is in·price_in + out·price_out."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    input_per_mtok: float = Field(0.0, ge=0)
    output_per_mtok: float = Field(0.0, ge=0)

    def cost(self, tokens_in: int, tokens_out: int) -> float:
        return (tokens_in * self.input_per_mtok + tokens_out * self.output_per_mtok) / 1e6


class CacheConfig(BaseModel):
    """Response cache: ``off``, ``read_write`` or ``replay_only`` (a miss is an error)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    mode: Literal["off", "read_write", "replay_only"] = "off"
    path: str = "~/.cache/llm-arena/responses.sqlite"

    @field_validator("mode", mode="before")
    @classmethod
    def _off_is_not_false(cls, v: Any) -> Any:
        return "off" if v is False else v  # YAML 1.1 reads an unquoted ``mode: off`` as false


class KVConfig(BaseModel):
    """Local backend: per-seat KV prefix reuse between a seat's turns (docs/llm.md, "KV reuse").

    ``reuse: false`` recomputes every prompt from scratch: the exact-reproduction switch (with
    greedy decoding at float32 reuse measured no divergence, but at 16-bit it can change an
    answer). The cache is bounded by ``max_mb`` (least recently used seats evicted first) and
    dropped for a seat idle for ``ttl_turns`` requests of this backend or ``ttl_s`` seconds.
    A seat's first prompt starts from another seat's cached prompt when the two share at least
    ``share_min_tokens`` tokens (the same briefing start); 0 turns that off."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    reuse: bool = True
    max_mb: float = Field(512.0, ge=0)
    ttl_turns: int = Field(256, ge=0)
    ttl_s: float = Field(600.0, ge=0)
    share_min_tokens: int = Field(64, ge=0)


class BackendConfig(BaseModel):
    """One LLM backend. Agents whose backend configs are equal share one backend instance,
    so concurrency and rate limits hold per backend across all agents of a run."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    type: Literal["openai", "local"] = "openai"
    # -- openai: any OpenAI-compatible server
    base_url: str = "http://127.0.0.1:8000/v1"
    model: str = "scripted"
    api_key_env: str | None = None  # name of the environment variable holding the key
    structured: Literal["json_schema", "json_object", "none"] = "json_schema"
    # -- local: a GGUF file or HF model directory; default: the bundled SmolLM2-135M
    model_path: str | None = None
    gguf_file: str | None = None
    # auto: CUDA when available, else CPU; dtype auto: bfloat16 on CUDA, float32 on CPU
    device: str = "auto"
    dtype: Literal["auto", "float32", "bfloat16", "float16"] = "auto"
    kv: KVConfig = Field(default_factory=KVConfig)
    batch_window_s: float = Field(0.02, ge=0, le=5)
    max_batch: int = Field(8, ge=1, le=256)
    rank_choices: bool = True  # local: rank legal options by likelihood instead of sampling
    threads: int | None = Field(None, ge=1)
    # -- sampling
    temperature: float = Field(0.0, ge=0, le=2)
    top_p: float = Field(1.0, gt=0, le=1)
    max_tokens: int = Field(256, ge=1, le=32_768)
    seed: int | None = None
    # -- transport
    timeout_s: float = Field(60.0, gt=0)
    connect_timeout_s: float = Field(5.0, gt=0)
    max_retries: int = Field(4, ge=0, le=20)
    backoff_base_s: float = Field(0.5, ge=0)
    backoff_max_s: float = Field(30.0, ge=0)
    retry_after_max_s: float = Field(120.0, ge=0)
    concurrency: int = Field(8, ge=1, le=1024)
    requests_per_min: float | None = Field(None, gt=0)
    tokens_per_min: float | None = Field(None, gt=0)
    burst_s: float = Field(1.0, gt=0)  # bucket capacity in seconds of rate
    prices: PriceTable = Field(default_factory=PriceTable)
    cache: CacheConfig = Field(default_factory=CacheConfig)

    @field_validator("base_url")
    @classmethod
    def _a_url(cls, v: str) -> str:
        parts = urlsplit(v)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"{v[:60]!r} is not an http(s) URL, e.g. http://127.0.0.1:8000/v1")
        return v

    def key(self) -> str:
        """A stable identity used to share backend instances."""
        data = json.dumps(self.model_dump(mode="json"), sort_keys=True)
        return hashlib.sha256(data.encode()).hexdigest()[:16]

    def sampling(self) -> dict[str, Any]:
        return {
            "temperature": self.temperature,
            "top_p": self.top_p,
            "max_tokens": self.max_tokens,
            "seed": self.seed,
        }

    def describe(self) -> str:
        if self.type == "local":
            return f"local:{self.model_path or 'bundled SmolLM2-135M-Instruct'}"
        return f"openai:{self.model}@{self.base_url}"


def bundled(backend: BackendConfig) -> bool:
    """The bundled small model, in process."""
    return backend.type == "local" and backend.model_path is None


class PromptOptions(BaseModel):
    """How an agent's prompt is written: every part overridable, because prompt variants are
    what self-play evolves. Static notes and an insight block come in as arguments."""

    model_config = ConfigDict(extra="forbid")

    system_prompt: str | None = None  # replaces the game briefing entirely
    style: str | None = None  # how to talk (appended to the briefing)
    extra_instructions: str | None = None
    strategy_hints: bool = False  # game briefings give strategy hints only when asked
    templates: dict[str, str] = Field(default_factory=dict)  # game prompt template overrides
    persona: str | dict[str, Any] | None = None  # persona card (text or mapping)
    beliefs: Literal["auto", "always", "never"] = "auto"  # auto: when the decision asks
    # the agent's own earlier moves (situation, answer); before each decision the
    # ``examples_shown`` nearest to it are shown (arena.llm.examples; docs/llm.md)
    examples: list[Example] = Field(default_factory=list, max_length=256)
    examples_shown: int = Field(1, ge=1, le=8)
    max_prompt_tokens: int = Field(6000, ge=256, le=1_000_000)
    chars_per_token: float = Field(3.5, gt=0)
