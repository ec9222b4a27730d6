"""The game registry: games are found here, never imported by name inside ``arena``.

Games are declared as :class:`GameInfo` records with *string* entry points, published through
the ``arena.games`` entry-point group (the built-in ones live in ``games/catalog.py``), so
``import arena`` registers every game with PettingZoo without importing any of them.
"""

from __future__ import annotations

import contextlib
import importlib
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from arena.engine import RulesEngine, RuleSet
    from arena.types import Observation


class UnknownGame(KeyError):
    def __str__(self) -> str:
        return str(self.args[0])


class Briefing(Protocol):
    """A game's LLM briefing: the system prompt of one seat, built only from what the seat
    knows (its observation) and the public rule flags. ``templates`` override the game's
    template pieces; ``strategy_hints`` adds its strategy hints."""

    def __call__(
        self,
        obs: Observation,
        *,
        rules: dict[str, Any] | None = None,
        templates: dict[str, str] | None = None,
        strategy_hints: bool = False,
        names: list[str] | None = None,
    ) -> str: ...


def _no_utility(reward: float, rules: dict[str, Any]) -> float | None:
    return reward if 0.0 <= reward <= 1.0 else None


@dataclass(frozen=True)
class KnowledgeModel:
    """What the metrics need to know about a game's secrets (leak detection, inference).

    ``hidden_roles``: the game's ``role`` and ``side`` facts are strategic secrets (§A6).
    ``role_synonyms`` / ``side_synonyms``: words that name a role or side in a claim ("I am
    the seer"); ``role_actions`` / ``side_actions``: regexes of claims by action ("I checked
    NAME", NAME = any player's name). ``sides_known_by``: teams whose members know every seat's
    side, for records written before games recorded ``side`` facts. ``evil_sides`` and
    ``belief_side``: a belief report gives P(seat is on ``belief_side``); the inference
    baseline counts seats on ``evil_sides``. ``utility``: a seat's reward mapped to [0, 1]
    given the rules (None: not comparable). ``number_cues``: per numeric fact kind, the cue
    regexes that make a number a disclosure; kinds in ``anchored_kinds`` are anchored on the
    fact's aliases and an owner's several such facts form one composite secret.
    """

    hidden_roles: bool = False
    role_synonyms: dict[str, tuple[str, ...]] = field(default_factory=dict)
    side_synonyms: dict[str, tuple[str, ...]] = field(default_factory=dict)
    role_actions: dict[str, tuple[str, ...]] = field(default_factory=dict)
    side_actions: dict[str, tuple[str, ...]] = field(default_factory=dict)
    sides_known_by: tuple[str, ...] = ()
    evil_sides: tuple[str, ...] = ()
    belief_side: str | None = None
    utility: Callable[[float, dict[str, Any]], float | None] = _no_utility
    number_cues: dict[str, tuple[str, ...]] = field(default_factory=dict)
    anchored_kinds: tuple[str, ...] = ()


NO_KNOWLEDGE = KnowledgeModel()


@dataclass(frozen=True)
class GameInfo:
    """A registered game: everything the core needs to know about it, declared here.

    Entry points are strings (``"module:attr"``) so that listing the games imports none."""

    game: str  # short id used in configs, e.g. "werewolf"
    env_id: str  # PettingZoo id, e.g. "arena/Werewolf-v0"
    engine: str  # "module:Class" of the RulesEngine subclass
    env: str  # "module:function" returning the AECEnv
    bots: str | None = None  # "module:attr" mapping bot name -> agent factory
    description: str = ""
    # Named rule sets that tests run api_test/seed_test on (and users can pick as presets).
    variants: dict[str, dict[str, Any]] = field(default_factory=dict)
    prompts: str | None = None  # "module:function", a Briefing for LLM seats
    knowledge: str | None = None  # "module:attr", a KnowledgeModel for the metrics
    # Event types the engine emits: speech (what a seat says: scanned for leaks, shown as
    # talk) and every other type. The conformance tests fail on any type not declared.
    speech_types: tuple[str, ...] = ()
    event_types: tuple[str, ...] = ()
    # "module:function", an arena.ratings.measures.MeasuresHook: per agent entry, the game's measures
    # of one match read from its events (`arena leaderboard --measures`, `arena score`).
    measures: str | None = None
    # "module:attr", a mapping measure name -> arena.ratings.measures.MeasureInfo (unit, definition):
    # what the commands print beside each measure the hook returns.
    measure_info: str | None = None
    # "module:function", a PeopleLabel: options whose id is a code for agents (Deal or No
    # Deal's "propose:0-0-2") read in words at the play screen, without lengthening prompts
    people_labels: str | None = None
    # Bump when the rules change what a result means (the board then never pools matches of
    # the old and the new rules): recorded in every match's conditions.
    rules_version: int = 1


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
        for ref in _source_tree_entry_points():
            with contextlib.suppress(ImportError):
                obj = load_object(ref)
                found.extend(obj if isinstance(obj, list | tuple) else [obj])
    for info in found:
        register_game(info)


def _source_tree_entry_points() -> list[str]:
    """The ``arena.games`` entry points declared in the source tree's ``pyproject.toml`` (the
    core names no game: the project file does)."""
    path = Path(__file__).resolve().parent.parent / "pyproject.toml"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return []
    group = data.get("project", {}).get("entry-points", {}).get("arena.games", {})
    return [str(ref) for ref in group.values()]


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


# -- plug-in hooks -------------------------------------------------------------------------
def _find(game: str) -> GameInfo | None:
    try:
        return get(game)
    except UnknownGame:
        return None


@lru_cache(maxsize=64)
def briefing(game: str) -> Briefing | None:
    """The game's LLM briefing, or None (unknown game, or none declared)."""
    info = _find(game)
    return load_object(info.prompts) if info is not None and info.prompts else None


#: (option id, the seat's observation) -> the option in words for a person, or None
PeopleLabel = Callable[[str, "Observation"], "str | None"]


@lru_cache(maxsize=64)
def people_labels(game: str) -> PeopleLabel | None:
    """The game's labels of options for people (the play UI), or None (none declared)."""
    info = _find(game)
    found: PeopleLabel | None = None
    if info is not None and info.people_labels:
        found = load_object(info.people_labels)
    return found


@lru_cache(maxsize=64)
def knowledge(game: str) -> KnowledgeModel:
    """The game's knowledge model; games that declare none (or unknown games) get
    :data:`NO_KNOWLEDGE`: no hidden roles, numbers gated by their aliases."""
    info = _find(game)
    if info is None or not info.knowledge:
        return NO_KNOWLEDGE
    model = load_object(info.knowledge)
    if not isinstance(model, KnowledgeModel):
        raise TypeError(f"{info.knowledge} is not a KnowledgeModel")
    return model


def speech_types(game: str | None = None) -> tuple[str, ...]:
    """The speech event types of ``game``, or of every registered game."""
    infos = [get(game)] if game is not None else list(games().values())
    return tuple(sorted({t for info in infos for t in info.speech_types}))


def event_types(game: str) -> frozenset[str]:
    """Every event type ``game`` declares (speech included), without the runner's own."""
    info = get(game)
    return frozenset(info.speech_types) | frozenset(info.event_types)
