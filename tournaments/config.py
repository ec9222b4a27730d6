"""The tournament config (YAML), validated fully before anything runs.

Example::

    name: werewolf-bots
    game: werewolf
    rules: {preset: classic8}
    agents:
      - {name: rule, kind: werewolf.rule}
      - {name: random, kind: random}
    format: round_robin      # round_robin | gauntlet | rating_driven
    lineups:                 # round_robin; default: one lineup cycling the entries
      - {rule: 4, random: 4}                # entry -> number of seats (balanced over roles)
      - {village: rule, wolves: random}     # team -> entry
      - {vs: [rule, random]}                # head to head: one side each, sides swapped
    matches: 20              # per lineup (round_robin), per cell (gauntlet), budget (rating_driven)
    seating: balanced        # rotate | random | balanced (every entry plays every seat/role)
    repeats: 1               # the whole tournament R times with independent master seeds
    master_seed: 7
    concurrency: 8
    policy: {retries: 2, fallback: random_legal, timeout_s: 120}

See docs/tournaments.md for every field.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from arena import registry
from arena.agents import factory
from arena.errors import ConfigError, describe_validation
from arena.results import InvalidActionPolicy

Lineup = list[str] | dict[str, int] | dict[str, str] | dict[str, list[str]]


class AgentEntry(BaseModel):
    """One entry of the population: a name (what the leaderboard shows) and how to build it."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:@+-]+$")
    kind: str
    params: dict[str, Any] = Field(default_factory=dict)


class Gauntlet(BaseModel):
    """Candidates play head to head against every baseline, sides swapped."""

    model_config = ConfigDict(extra="forbid")

    candidates: list[str] = Field(min_length=1)
    baselines: list[str] = Field(min_length=1)


class RatingDriven(BaseModel):
    """Adaptive matchmaking: the most informative head-to-heads first, until σ < threshold."""

    model_config = ConfigDict(extra="forbid")

    sigma_threshold: float = Field(2.0, gt=0)
    budget: int = Field(200, ge=1, le=1_000_000)  # matches per repeat at most
    batch: int | None = Field(
        None, ge=1, le=4096
    )  # matches planned per round (default: concurrency)
    pool: list[str] | None = None  # entries to match (default: all)


class RatingOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    freeze: list[str] = Field(default_factory=list)  # entries used in updates but never changed
    bootstrap: int = Field(2000, ge=100, le=100_000)


class RunConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = "run"
    game: str
    rules: dict[str, Any] = Field(default_factory=dict)
    agents: list[AgentEntry] = Field(min_length=1)
    format: Literal["round_robin", "gauntlet", "rating_driven"] = "round_robin"
    lineups: list[Lineup] | Literal["pairs"] | None = None
    matches: int = Field(10, ge=1, le=1_000_000)
    repeats: int = Field(1, ge=1, le=1000)
    seating: Literal["rotate", "random", "balanced", "by_team"] = "rotate"
    teams: dict[str, str] | None = None  # by_team: team name -> agent entry name
    gauntlet: Gauntlet | None = None
    rating_driven: RatingDriven | None = None
    ratings: RatingOptions = Field(default_factory=RatingOptions)
    master_seed: int = 0
    concurrency: int = Field(4, ge=1, le=4096)
    policy: InvalidActionPolicy = Field(default_factory=InvalidActionPolicy)
    output_dir: str = "runs"

    @field_validator("agents")
    @classmethod
    def _unique_names(cls, v: list[AgentEntry]) -> list[AgentEntry]:
        names = [a.name for a in v]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"duplicate agent entry names: {dupes}")
        return v

    def entry(self, name: str) -> AgentEntry:
        for a in self.agents:
            if a.name == name:
                return a
        raise KeyError(name)


# Fields that do not change what is played: a resume may change them without --force.
RUNTIME_FIELDS = ("concurrency", "output_dir")


def _game_shape(engine_cls: Any, rules: Any) -> tuple[int, set[str]]:
    engine = engine_cls(rules, seed=0)
    return engine.n_seats, set(engine.teams().values())


def _check_lineup(i: int, lineup: Any, names: set[str], n: int, teams: set[str]) -> list[str]:
    where = f"lineups.{i}"
    problems: list[str] = []
    if isinstance(lineup, list):
        unknown = sorted(set(lineup) - names)
        if unknown:
            problems.append(f"{where}: unknown agent entry(ies) {unknown}")
        if len(lineup) != n:
            problems.append(f"{where}: {len(lineup)} seats given, the game has {n}")
        return problems
    if "vs" in lineup:
        pair = lineup["vs"]
        if len(lineup) != 1 or not isinstance(pair, list) or len(pair) != 2:
            return [f"{where}: a head-to-head is {{vs: [entry, entry]}}"]
        problems += [f"{where}.vs: unknown agent entry {e!r}" for e in pair if e not in names]
        if pair[0] == pair[1]:
            problems.append(f"{where}.vs: an entry cannot play itself head to head")
        if n < 2:
            problems.append(f"{where}: a head-to-head needs at least 2 seats")
        return problems
    values = list(lineup.values())
    if all(isinstance(v, int) for v in values):
        problems += [f"{where}.{e}: unknown agent entry" for e in lineup if e not in names]
        problems += [f"{where}.{e}: seat count must be >= 1" for e, c in lineup.items() if c < 1]
        if sum(values) != n:
            problems.append(f"{where}: seat counts add up to {sum(values)}, the game has {n}")
        return problems
    if all(isinstance(v, str) for v in values):
        for team, entry in lineup.items():
            if entry not in names:
                problems.append(f"{where}.{team}: unknown agent entry {entry!r}")
        extra, missing = sorted(set(lineup) - teams), sorted(teams - set(lineup))
        if extra:
            problems.append(f"{where}: unknown team(s) {extra}; this game has {sorted(teams)}")
        if missing and not extra:
            problems.append(f"{where}: no entry for team(s) {missing}")
        return problems
    return [
        f"{where}: a lineup is a seat list, {{entry: seats}}, {{team: entry}} or {{vs: [a, b]}}"
    ]


def check(config: RunConfig) -> None:
    """Cross-field checks that need the registry; raises ConfigError listing every problem."""
    problems: list[str] = []
    try:
        info = registry.get(config.game)
    except registry.UnknownGame as err:
        raise ConfigError([f"game: {err}"]) from None
    config.game = info.game
    engine_cls = registry.engine_class(info.game)
    try:
        rules = engine_cls.Rules(**config.rules)
    except ValidationError as err:
        problems.extend(describe_validation(err, "rules"))
        rules = None
    for i, entry in enumerate(config.agents):
        try:
            factory.resolve(entry.kind, info.game)
        except KeyError as err:
            problems.append(f"agents.{i}.kind: {err.args[0]}")
    names = {a.name for a in config.agents}
    shape = _game_shape(engine_cls, rules) if rules is not None else None
    if config.seating == "by_team":
        if not config.teams:
            problems.append("teams: seating 'by_team' needs a teams mapping (team -> agent entry)")
        else:
            for team, entry_name in config.teams.items():
                if entry_name not in names:
                    problems.append(f"teams.{team}: unknown agent entry {entry_name!r}")
            if shape is not None:
                extra = sorted(set(config.teams) - shape[1])
                if extra:
                    problems.append(
                        f"teams: unknown team(s) {extra}; this game has {sorted(shape[1])}"
                    )
    elif config.teams:
        problems.append("teams: only used with seating 'by_team'")
    if config.lineups is not None and config.format != "round_robin":
        problems.append(f"lineups: only used with format 'round_robin' (not {config.format})")
    if isinstance(config.lineups, list) and shape is not None:
        if not config.lineups:
            problems.append("lineups: give at least one lineup (or leave it out)")
        for i, lineup in enumerate(config.lineups):
            problems += _check_lineup(i, lineup, names, shape[0], shape[1])
    if config.lineups is not None and config.seating == "by_team":
        problems.append("seating: 'by_team' and lineups exclude each other; use {team: entry}")
    if config.lineups == "pairs" and len(names) < 2:
        problems.append("lineups: 'pairs' needs at least 2 agent entries")
    problems += _check_format(config, names, shape)
    for i, name in enumerate(config.ratings.freeze):
        if name not in names:
            problems.append(f"ratings.freeze.{i}: unknown agent entry {name!r}")
    from tournaments.learning import learning_problems

    problems += learning_problems(config)
    if problems:
        raise ConfigError(problems)


def _check_format(config: RunConfig, names: set[str], shape: Any) -> list[str]:
    problems: list[str] = []
    if config.format != "gauntlet" and config.gauntlet is not None:
        problems.append("gauntlet: only used with format 'gauntlet'")
    if config.format != "rating_driven" and config.rating_driven is not None:
        problems.append("rating_driven: only used with format 'rating_driven'")
    if config.format == "gauntlet":
        g = config.gauntlet
        if g is None:
            problems.append(
                "gauntlet: format 'gauntlet' needs {candidates: [...], baselines: [...]}"
            )
        else:
            for field in ("candidates", "baselines"):
                for i, name in enumerate(getattr(g, field)):
                    if name not in names:
                        problems.append(f"gauntlet.{field}.{i}: unknown agent entry {name!r}")
            both = sorted(set(g.candidates) & set(g.baselines))
            if both:
                problems.append(f"gauntlet: {both} are both candidates and baselines")
    if config.format == "rating_driven":
        rd = config.rating_driven or RatingDriven()
        pool = rd.pool if rd.pool is not None else sorted(names)
        for i, name in enumerate(rd.pool or []):
            if name not in names:
                problems.append(f"rating_driven.pool.{i}: unknown agent entry {name!r}")
        if len(set(pool)) < 2:
            problems.append("rating_driven.pool: needs at least 2 agent entries")
    if config.format != "round_robin" and config.seating == "by_team":
        problems.append(f"seating: 'by_team' is a round_robin seating (not {config.format})")
    if config.format != "round_robin" and shape is not None and shape[0] < 2:
        problems.append(f"format: {config.format} plays head to head and needs >= 2 seats")
    return problems


def load(path: str | Path, overrides: dict[str, Any] | None = None) -> RunConfig:
    """Read, validate and check a config file; raises ConfigError naming each bad field."""
    p = Path(path)
    try:
        raw = yaml.safe_load(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError([f"{p}: no such file"]) from None
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError([f"{p}: cannot read: {err}"]) from None
    except yaml.YAMLError as err:
        raise ConfigError([f"{p}: not valid YAML: {err}"]) from None
    if not isinstance(raw, dict):
        raise ConfigError([f"{p}: the config must be a mapping"])
    raw.update({k: v for k, v in (overrides or {}).items() if v is not None})
    return parse(raw, source=str(p))


def parse(raw: dict[str, Any], source: str = "config") -> RunConfig:
    try:
        config = RunConfig.model_validate(raw)
    except ValidationError as err:
        raise ConfigError([f"{source}: {m}" for m in describe_validation(err)]) from None
    try:
        check(config)
    except ConfigError as err:
        raise ConfigError([f"{source}: {m}" for m in err.problems]) from None
    return config
