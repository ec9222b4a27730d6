"""Building a pydantic model from parts the caller already checked, without validation.

The engine's hot path (emitting events, parsing answers into actions) creates a model per step;
validation there would re-check what the engine itself just produced. This does what
``model_construct`` does, minus its generic default handling: ``state`` must hold every field.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)


def build_trusted(cls: type[M], state: dict[str, Any], fields_set: frozenset[str]) -> M:
    """An instance of ``cls`` holding ``state`` as is; ``fields_set`` as if they were passed."""
    obj = cls.__new__(cls)
    object.__setattr__(obj, "__dict__", state)
    # A mutable set, as pydantic keeps it: model_copy(update=...) adds to it in place.
    object.__setattr__(obj, "__pydantic_fields_set__", set(fields_set))
    object.__setattr__(obj, "__pydantic_extra__", None)
    object.__setattr__(obj, "__pydantic_private__", None)
    return obj
