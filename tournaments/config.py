"""The tournament config (YAML), validated fully before anything runs.

Example::

    name: werewolf-bots
    game: werewolf
    rules: {preset: classic8}
    agents:
      - {name: rule, kind: werewolf.rule}
      - {name: random, kind: random}
    matches: 20
    seating: rotate          # rotate | random | by_team
    master_seed: 7
    concurrency: 8
    policy: {retries: 2, fallback: random_legal, timeout_s: 120}
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


class AgentEntry(BaseModel):
    """One entry of the population: a name (what the leaderboard shows) and how to build it."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:@+-]+$")
    kind: str
    params: dict[str, Any] = Field(default_factory=dict)


class RunConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = "run"
    game: str
    rules: dict[str, Any] = Field(default_factory=dict)
    agents: list[AgentEntry] = Field(min_length=1)
    matches: int = Field(10, ge=1, le=1_000_000)
    repeats: int = Field(1, ge=1, le=1000)
    seating: Literal["rotate", "random", "by_team"] = "rotate"
    teams: dict[str, str] | None = None  # by_team: team name -> agent entry name
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
    if config.seating == "by_team":
        if not config.teams:
            problems.append("teams: seating 'by_team' needs a teams mapping (team -> agent entry)")
        elif rules is not None:
            names = {a.name for a in config.agents}
            for team, entry_name in config.teams.items():
                if entry_name not in names:
                    problems.append(f"teams.{team}: unknown agent entry {entry_name!r}")
            engine = engine_cls(rules, seed=0)
            known = set(engine.teams().values())
            extra = sorted(set(config.teams) - known)
            if extra:
                problems.append(f"teams: unknown team(s) {extra}; this game has {sorted(known)}")
    elif config.teams:
        problems.append("teams: only used with seating 'by_team'")
    if problems:
        raise ConfigError(problems)


def load(path: str | Path, overrides: dict[str, Any] | None = None) -> RunConfig:
    """Read, validate and check a config file; raises ConfigError naming each bad field."""
    p = Path(path)
    try:
        raw = yaml.safe_load(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError([f"{p}: no such file"]) from None
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
