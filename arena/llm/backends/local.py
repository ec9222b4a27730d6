"""Local transformers backend: the bundled SmolLM2 GGUF or any local HF model directory,
with dynamic batching across concurrent agents and likelihood ranking of legal options."""

from __future__ import annotations

import asyncio
import functools

from arena.deadline import queued
from arena.llm.backends.base import Backend
from arena.llm.batcher import Batcher, ComputeMeter
from arena.llm.config import BackendConfig
from arena.llm.kv import KVStore, store_for
from arena.llm.local_model import LocalModel, load_model
from arena.llm.messages import ChatRequest, ChatResult, LLMError, PreflightError


class LocalBackend(Backend):
    kind = "local"

    def __init__(self, config: BackendConfig) -> None:
        super().__init__(config)
        self.model: LocalModel | None = None
        self.batcher: Batcher | None = None
        self._loading: asyncio.Future[LocalModel] | None = None
        # per backend: sessions are match id + seat, unique within a run
        self.kv: KVStore | None = store_for(config.kv)

    @property
    def model_name(self) -> str:
        return self.config.model_path or "bundled:SmolLM2-135M-Instruct"

    def estimate_tokens(self, request: ChatRequest) -> int:
        return int(request.prompt_chars() / 3.5) + request.max_tokens

    async def load(self) -> LocalModel:
        if self.model is not None:
            return self.model
        if self._loading is None:
            loop = asyncio.get_running_loop()
            _import_model_libraries()
            self._loading = loop.run_in_executor(None, self._load_and_warm)
        model = await self._loading
        if self.model is None:
            self.model = model
            run = functools.partial(model.run_batch, rank=self.config.rank_choices, kv=self.kv)
            # on a CPU a decision is charged the model's CPU time, not the wall time others'
            # load stretches it to (arena.deadline)
            threads = model.torch.get_num_threads() if model.device == "cpu" else None
            meter = ComputeMeter(threads)
            self.batcher = Batcher(run, self.config.batch_window_s, self.config.max_batch, meter)
        return model

    def _load_and_warm(self) -> LocalModel:
        """Load the model, then one tiny call before any decision's: the first forward pass
        allocates and tunes, and that is the model's start-up, not a seat's move (``warm_s``)."""
        c = self.config
        model = load_model(c.model_path, c.gguf_file, c.device, c.threads, c.dtype)
        model.warm_up()
        return model

    async def _attempt(self, request: ChatRequest) -> ChatResult:
        try:
            with queued():  # waiting for the model to load is not the decision's own work
                await self.load()
        except LLMError:
            raise
        except Exception as err:
            raise LLMError(f"cannot load local model {self.model_name}: {err}") from err
        assert self.batcher is not None
        return await self.batcher.submit(request)

    async def preflight(self) -> str:
        try:
            model = await self.load()
        except Exception as err:
            raise PreflightError(f"local model {self.model_name}: {err}") from None
        return (
            f"local model {model.name}: loaded in {model.load_s:.1f} s, "
            f"warm-up {model.warm_s or 0.0:.1f} s (neither counted in any decision's time)"
        )

    async def close(self) -> None:
        if self.batcher is not None:
            self.batcher.close()
        if self.kv is not None:
            self.kv.clear()


def _import_model_libraries() -> None:
    """Import torch and transformers on the calling (event loop) thread, once.

    The model loads in a worker thread. On CPython 3.11.7 a first import of torch there, while
    the loop thread imports something else, can fail inside importlib with a bare ``KeyError``
    (a module-lock bug fixed in 3.11.8); imported here first, the worker finds them loaded.
    """
    import torch  # noqa: F401
    from transformers import AutoModelForCausalLM, AutoTokenizer  # noqa: F401
