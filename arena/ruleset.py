"""A game's rule flags (:class:`RuleSet`: validated once, frozen, unknown flags rejected, named
presets) and the pool of seat names the games deal from."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, model_validator

NAME_POOL = (
    "Alice", "Bruno", "Chloe", "Dmitri", "Elena", "Farid", "Greta", "Hiro",
    "Ines", "Jonas", "Kemi", "Lars", "Maya", "Nikos", "Olga", "Priya",
    "Quinn", "Rafael", "Sana", "Tomas", "Uma", "Viktor", "Wen", "Yusuf",
)  # fmt: skip


class RuleSet(BaseModel):
    """Base of every game's rule flags: validated, immutable, unknown flags rejected.

    ``preset: NAME`` picks one of the game's named flag sets (:attr:`PRESETS`); flags given
    explicitly override it. Games adjust a preset's flags in :meth:`preset_flags` and
    normalise the raw flags in :meth:`prepare` (both run before field validation)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    #: named flag sets of the game (its catalog variants name them with ``preset``)
    PRESETS: ClassVar[dict[str, dict[str, Any]]] = {}

    @model_validator(mode="before")
    @classmethod
    def _apply_preset(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = dict(data)
        name = data.get("preset")
        if name is not None and cls.PRESETS:
            if not isinstance(name, str) or name not in cls.PRESETS:
                raise ValueError(
                    f"preset: unknown preset {name!r}; choose one of {sorted(cls.PRESETS)}"
                )
            data = {**cls.preset_flags(name, data), **data}
            if "preset" not in cls.model_fields:  # a game may record the name, or not
                data.pop("preset")
        return cls.prepare(data)

    @classmethod
    def preset_flags(cls, name: str, data: dict[str, Any]) -> dict[str, Any]:
        """The flags preset ``name`` sets, given the explicit flags ``data``."""
        return dict(cls.PRESETS[name])

    @classmethod
    def prepare(cls, data: dict[str, Any]) -> dict[str, Any]:
        """The raw flags after the preset was applied, before field validation."""
        return data
