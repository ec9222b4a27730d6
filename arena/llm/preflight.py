"""Preflight: check every LLM backend of a config before a tournament starts."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel

from arena.errors import ConfigError, describe_validation
from arena.llm.config import BackendConfig

LLM_KINDS = ("llm",)
# every kind that is checked before a run: LLM backends and remote agent servers
PREFLIGHT_KINDS = ("llm", "remote")


def _one_line(err: BaseException) -> str:
    text = " ".join(str(err).split())
    return text[:300] or type(err).__name__


async def preflight_entries(entries: Iterable[Any]) -> list[str]:
    """Preflight each distinct backend of the ``llm`` agent entries; raise ConfigError on any
    failure (unreachable server, wrong model, missing or rejected key, missing local model),
    one line per failing entry. Returns a line per backend checked."""
    from pydantic import ValidationError

    from arena.llm.backends import get_backend
    from arena.llm.messages import PreflightError

    problems: list[str] = []
    done: dict[str, str] = {}
    report: list[str] = []
    for entry in entries:
        if entry.kind == "remote":
            await _remote(entry, problems, report)
            continue
        if entry.kind not in LLM_KINDS:
            continue
        try:
            backend = _backend(entry.params)
        except ValidationError as err:
            lines = describe_validation(err, "params.backend")
            problems += [f"agent {entry.name}: {m}" for m in lines]
            continue
        key = backend.key()
        if key in done:
            if done[key] == "failed":
                problems.append(f"agent {entry.name}: same backend as above, which failed")
            continue
        if backend.cache.mode == "replay_only":
            # replies come from the cache only (a miss is an error): the server may be down
            done[key] = f"replay-only cache {backend.cache.path}: server not contacted"
            report.append(f"agent {entry.name}: {done[key]}")
            continue
        try:
            done[key] = await get_backend(backend).preflight()
            report.append(f"agent {entry.name}: {done[key]}")
        except PreflightError as err:
            done[key] = "failed"
            problems.append(f"agent {entry.name}: {_one_line(err)}")
        except Exception as err:  # a client library's own error: still one line, no traceback
            done[key] = "failed"
            where = backend.describe()
            problems.append(f"agent {entry.name}: {where}: {type(err).__name__}: {_one_line(err)}")
    if problems:
        raise ConfigError(problems)
    return report


@runtime_checkable
class NamesBackend(Protocol):
    """Typed params that name a backend (an ``llm`` entry's, once its config is checked)."""

    @property
    def backend(self) -> BackendConfig: ...


def _written(params: Any) -> dict[str, Any]:
    """An entry's params as written: its typed model's given fields, or the mapping."""
    if isinstance(params, BaseModel):
        return params.model_dump(exclude_unset=True)
    return dict(params)


def _backend(params: Any) -> BackendConfig:
    """The backend of an ``llm`` entry: its typed params' (checked when the config loaded),
    else validated from the mapping (an entry no config check has typed)."""
    if isinstance(params, NamesBackend) and isinstance(params.backend, BackendConfig):
        return params.backend  # (an unchecked mapping may hold a "backend" key too)
    return BackendConfig.model_validate(_written(params).get("backend") or {})


async def _remote(entry: Any, problems: list[str], report: list[str]) -> None:
    """A remote agent entry: its server answers ``/info`` with our protocol version."""
    from pydantic import ValidationError

    from arena.remote.client import RemoteCallError, RemoteParams, preflight

    try:
        params = entry.params
        if not isinstance(params, RemoteParams):  # an entry no config check has typed
            params = RemoteParams.model_validate(_written(params))
    except ValidationError as err:
        problems.extend(f"agent {entry.name}: {m}" for m in describe_validation(err, "params"))
        return
    try:
        report.append(f"agent {entry.name}: {await preflight(params)}")
    except RemoteCallError as err:
        problems.append(f"agent {entry.name}: {_one_line(err)}")
