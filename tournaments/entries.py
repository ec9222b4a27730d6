"""The agent entries of a run config: a name, a kind and the kind's typed ``params``.

An entry's params arrive as written (:class:`~arena.agents.params.Unchecked`); once the config's
game is known they are validated once, as the kind's own model (``LLMAgentParams`` for ``llm``,
``RemoteParams`` for ``remote``, the checked keyword arguments of a rule bot), and travel typed
to where agents are built. What is written back (the run directory's config, the stored config
a resume compares, fingerprints) is the mapping as written, so a typed model's defaults and
normalised values never change a file or a fingerprint.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    field_serializer,
    field_validator,
    model_validator,
)

from arena import registry
from arena.agents import factory
from arena.agents.llm_params import LLMAgentParams
from arena.agents.params import ParamsError, Unchecked, as_written
from arena.llm.config import BackendConfig
from arena.memory.spec import MemorySpec


class AgentEntry(BaseModel):
    """One entry of the population: a name (what the leaderboard shows) and how to build it."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:@+-]+$")
    kind: str
    # Unchecked until the config's game types it (type_params); then the kind's model
    params: BaseModel = Field(default_factory=Unchecked)
    _written: dict[str, Any] = PrivateAttr(default_factory=dict)

    @field_validator("name", "kind", mode="before")
    @classmethod
    def _a_string(cls, v: Any) -> Any:
        if not isinstance(v, str):
            raise ValueError(f"must be a string, not {type(v).__name__}")
        return v

    @field_validator("params", mode="before")
    @classmethod
    def _a_mapping(cls, v: Any) -> Any:
        if isinstance(v, BaseModel):
            return v
        if not isinstance(v, dict) or not all(isinstance(k, str) for k in v):
            raise ValueError("Input should be a valid dictionary (parameter names to values)")
        return Unchecked.model_validate(v)

    @model_validator(mode="after")
    def _keep_written(self) -> AgentEntry:
        self._written = as_written(self.params)
        return self

    @field_serializer("params")
    def _dump_written(self, params: BaseModel) -> dict[str, Any]:
        return self.written()

    def written(self) -> dict[str, Any]:
        """The params as the config wrote them (what files and fingerprints hold)."""
        return dict(self._written)

    def typed(self) -> bool:
        """The params have been validated as the kind's model."""
        return not isinstance(self.params, Unchecked)


class Entry(Protocol):
    """What the readers below take of an entry (an :class:`AgentEntry`, or alike)."""

    @property
    def kind(self) -> str: ...

    @property
    def params(self) -> BaseModel: ...


def llm_backend(entry: Entry) -> BackendConfig | None:
    """The backend an ``llm`` entry's typed params name (None: not a checked LLM entry)."""
    params = entry.params
    if entry.kind == "llm" and isinstance(params, LLMAgentParams):
        return params.backend
    return None


def memory_bank(entry: Entry) -> MemorySpec | None:
    """The insight bank an ``llm`` entry reads (None: static notes, or not an LLM entry)."""
    params = entry.params
    if entry.kind == "llm" and isinstance(params, LLMAgentParams):
        return params.memory if isinstance(params.memory, MemorySpec) else None
    return None


def type_params(entries: Sequence[AgentEntry], game: str, where: str = "agents") -> list[str]:
    """Type each unchecked entry's params for ``game`` in place: the problems of those that
    cannot be (``agents.1.params.field: message``); an unknown game leaves them unchecked."""
    try:
        name = registry.get(game).game
    except registry.UnknownGame:
        return []
    problems: list[str] = []
    for i, entry in enumerate(entries):
        if entry.typed():
            continue
        try:
            entry.params = factory.typed_params(entry.kind, name, entry.params)
        except KeyError as err:
            problems.append(f"{where}.{i}.kind: {err.args[0]}")
        except ParamsError as err:
            problems += [f"{where}.{i}.{m}" for m in err.problems]
    return problems
