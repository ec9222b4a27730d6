"""The game registry: games are found here, never imported by name inside ``arena``.

Games are declared as :class:`GameInfo` records with *string* entry points, published through
the ``arena.games`` entry-point group (the built-in ones live in ``games/catalog.py``), so
``import arena`` registers every game with PettingZoo without importing any of them.
"""

from __future__ import annotations

import contextlib
import importlib
from dataclasses import dataclass, field
from importlib import metadata
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arena.engine import RulesEngine, RuleSet


class UnknownGame(KeyError):
    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True)
class GameInfo:
    """A registered game."""

    game: str  # short id used in configs, e.g. "werewolf"
    env_id: str  # PettingZoo id, e.g. "arena/Werewolf-v0"
    engine: str  # "module:Class" of the RulesEngine subclass
    env: str  # "module:function" returning the AECEnv
    bots: str | None = None  # "module:attr" mapping bot name -> agent factory
    description: str = ""
    # Named rule sets that tests run api_test/seed_test on (and users can pick as presets).
    variants: dict[str, dict[str, Any]] = field(default_factory=dict)


_GAMES: dict[str, GameInfo] = {}
_loaded = False


def load_object(ref: str) -> Any:
    module, _, attr = ref.partition(":")
    obj: Any = importlib.import_module(module)
    for part in attr.split(".") if attr else []:
        obj = getattr(obj, part)
    return obj


def register_game(info: GameInfo) -> None:
    """Add a game to the arena registry and to PettingZoo's AEC registry."""
    import pettingzoo

    _GAMES[info.game] = info
    if info.env_id not in pettingzoo.aec_registry:
        pettingzoo.register("aec", info.env_id, entry_point=info.env)


def discover() -> None:
    """Register every game published under the ``arena.games`` entry-point group."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    sources = list(metadata.entry_points(group="arena.games"))
    found: list[GameInfo] = []
    for ep in sources:
        obj = ep.load()
        found.extend(obj if isinstance(obj, list | tuple) else [obj])
    if not sources:  # running from a source tree that was never installed
        with contextlib.suppress(ImportError):
            found.extend(load_object("games.catalog:GAMES"))
    for info in found:
        register_game(info)


def games() -> dict[str, GameInfo]:
    discover()
    return dict(sorted(_GAMES.items()))


def get(game: str) -> GameInfo:
    """Look a game up by short id or PettingZoo env id."""
    discover()
    if game in _GAMES:
        return _GAMES[game]
    for info in _GAMES.values():
        if info.env_id == game:
            return info
    known = ", ".join(f"{g.game} ({g.env_id})" for g in _GAMES.values()) or "none"
    raise UnknownGame(f"unknown game {game!r}; registered games: {known}")


def engine_class(game: str) -> type[RulesEngine[Any]]:
    return load_object(get(game).engine)  # type: ignore[no-any-return]


def rules_class(game: str) -> type[RuleSet]:
    return engine_class(game).Rules


def bots(game: str) -> dict[str, Any]:
    info = get(game)
    return dict(load_object(info.bots)) if info.bots else {}
