"""The ``memory:`` parameter of an ``llm`` agent when it reads an insight bank."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

# The scripted reflectors by name; :mod:`arena.memory.reflect` maps each to its rule (and a test
# keeps the two in step). The spec owns the names so that checking a config needs no reflector.
REFLECTOR_NAMES = ("scripted", "scripted:directives", "scripted:blame")


class MemorySpec(BaseModel):
    """``memory: {bank: PATH, namespace: ..., k: N, select: relevance|all}``.

    ``namespace`` is a template over ``{game}``, ``{role}`` (the seat's role fact, ``*`` when
    the game gives none) and ``{seat}``. ``version`` pins a bank version (replays, ablations);
    otherwise each match reads the newest committed version once, at its first decision.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    bank: str
    namespace: str = "{game}/{role}"
    k: int | None = Field(5, ge=1, le=200)  # None with select=all: every active insight
    select: Literal["relevance", "all"] = "relevance"
    retrieval: Literal["auto", "embedding", "lexical"] = "auto"
    version: int | None = Field(None, ge=0)
    exclude: tuple[str, ...] = ()  # insight ids never selected (ablation arms)
    # -- learning during a tournament (tournaments read these; the agent ignores them)
    learn: bool = False
    every: int = Field(1, ge=1)  # fold the reflections of every K finished matches
    # a scripted rule ("scripted", "scripted:directives", "scripted:blame") or an arena.llm
    # BackendConfig mapping
    reflector: str | dict[str, Any] = "scripted"
    budget: int = Field(3, ge=1, le=50)
    cap: int = Field(20, ge=1, le=10_000)

    @field_validator("reflector")
    @classmethod
    def _known_reflector(cls, value: str | dict[str, Any]) -> str | dict[str, Any]:
        if isinstance(value, str) and value not in REFLECTOR_NAMES:
            names = ", ".join(REFLECTOR_NAMES)
            raise ValueError(f"unknown reflector {value!r}: one of {names}, or a backend mapping")
        return value
