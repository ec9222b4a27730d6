"""Preflight: check every LLM backend of a config before a tournament starts."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from arena.errors import ConfigError

LLM_KINDS = ("llm",)


async def preflight_entries(entries: Iterable[Any]) -> list[str]:
    """Preflight each distinct backend of the ``llm`` agent entries; raise ConfigError on any
    failure (unreachable server, wrong model, missing or rejected key, missing local model)."""
    from pydantic import ValidationError

    from arena.llm.backends import get_backend
    from arena.llm.config import LLMAgentParams
    from arena.llm.messages import PreflightError

    problems: list[str] = []
    done: dict[str, str] = {}
    report: list[str] = []
    for entry in entries:
        if entry.kind not in LLM_KINDS:
            continue
        try:
            params = LLMAgentParams.model_validate(entry.params)
        except ValidationError as err:
            problems.append(f"agent {entry.name}: bad llm params: {err}")
            continue
        key = params.backend.key()
        if key in done:
            continue
        try:
            done[key] = await get_backend(params.backend).preflight()
            report.append(f"agent {entry.name}: {done[key]}")
        except PreflightError as err:
            done[key] = "failed"
            problems.append(f"agent {entry.name}: {err}")
    if problems:
        raise ConfigError(problems)
    return report
