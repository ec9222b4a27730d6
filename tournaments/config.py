"""The tournament config (YAML), validated fully before anything runs.

Example::

    name: werewolf-bots
    game: werewolf
    rules: {preset: classic8}
    agents:
      - {name: rule, kind: werewolf.rule}
      - {name: random, kind: random}
    format: round_robin      # round_robin | gauntlet | rating_driven
    lineups:                 # round_robin; default: every combination of entries (below)
      - {rule: 4, random: 4}                # entry -> number of seats (balanced over roles)
      - {village: rule, wolves: random}     # team -> entry
      - {vs: [rule, random]}                # head to head: one side each, sides swapped
    matches: 20              # per lineup (round_robin), per cell (gauntlet), budget (rating_driven)
    seating: balanced        # rotate | random | balanced (every entry plays every seat/role)
    repeats: 1               # the whole tournament R times with independent master seeds
    master_seed: 7
    concurrency: 8
    policy: {retries: 2, fallback: random_legal, timeout_s: 120}

Without ``lineups``, a round robin over more entries than the game has seats plays every
combination of as many entries as there are seats (every pair, in a two-seat game) as a lineup
of its own, ``matches`` times each; with no more entries than seats, one lineup cycles them.

See docs/tournaments.md for every field.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

from arena import config_checks as checks
from arena.configfile import read_yaml_mapping
from arena.errors import ConfigError
from arena.results import InvalidActionPolicy
from tournaments.entries import AgentEntry, type_params
from tournaments.learning import learning_problems
from tournaments.lineups import Shape, check_lineup, lineup_matches

__all__ = ["AgentEntry", "RunConfig", "check", "lineup_matches", "load", "parse"]

# A lineup's shape is checked in ``check`` (one message per lineup): typing it as a union here
# would report every union branch pydantic tried.
Lineup = Any

# The most matches one run may plan (repeats included; rating_driven: its budget). A plan is
# held in memory and written to the run's database before anything runs, so a typo such as
# ``matches: 1000000`` would take the machine's memory; ``arena run --max-planned N`` raises it.
MAX_PLANNED = 100_000

# A name that becomes a directory under output_dir: one path part, nothing a shell or a file
# system treats specially (no separators, no "..", no leading dot or dash).
_SAFE_NAME = re.compile(r"^\w[\w.+@-]{0,79}$")


def path_part_problem(value: str) -> str | None:
    """Why ``value`` cannot name a directory inside the output directory (None: it can)."""
    if _SAFE_NAME.fullmatch(value) and ".." not in value:
        return None
    return (
        f"{value[:40]!r} cannot name a run directory: use letters, digits and _ . + @ - "
        "(at most 80, starting with a letter or digit; no '/' or '..')"
    )


class Gauntlet(BaseModel):
    """Candidates play head to head against every baseline, sides swapped."""

    model_config = ConfigDict(extra="forbid", strict=True)

    candidates: list[str] = Field(min_length=1)
    baselines: list[str] = Field(min_length=1)


class RatingDriven(BaseModel):
    """Adaptive matchmaking: the most informative head-to-heads first, until σ < threshold."""

    model_config = ConfigDict(extra="forbid", strict=True)

    sigma_threshold: float = Field(2.0, gt=0)
    budget: int = Field(200, ge=1, le=1_000_000)  # matches per repeat at most
    batch: int | None = Field(
        None, ge=1, le=4096
    )  # matches planned per round (default: concurrency)
    pool: list[str] | None = None  # entries to match (default: all)
    # trueskill: the most informative head-to-heads by TrueSkill σ and match quality;
    # planner: the adjacent pairs of the batch fit whose order is least sure, until every
    # adjacent order is right with probability `confidence` (arena plan; docs/leaderboards.md)
    by: Literal["trueskill", "planner"] = "trueskill"
    confidence: float = Field(0.95, gt=0.5, lt=1)


class RatingOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    freeze: list[str] = Field(default_factory=list)  # entries used in updates but never changed
    bootstrap: int = Field(2000, ge=100, le=100_000)
    # harness health: an entry whose share of refused answers (or of forfeited matches) passes
    # this is flagged; with strict, `arena leaderboard` and the end-of-run board refuse to print
    # a bare board (docs/leaderboards.md)
    max_harness_error: float = Field(0.05, ge=0, le=1)
    strict: bool = False


class RunConfig(BaseModel):
    # strict: `repeats: true` or `matches: 2.5` is an error, not 1 or 2
    model_config = ConfigDict(extra="forbid", strict=True)

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
    # the problems of entries whose params could not be typed (reported by ``check``)
    _param_problems: list[str] = PrivateAttr(default_factory=list)

    @field_validator("name")
    @classmethod
    def _safe_name(cls, v: str) -> str:
        problem = path_part_problem(v)
        if problem is not None:
            raise ValueError(problem)
        return v

    @field_validator("lineups", mode="before")
    @classmethod
    def _lineups_form(cls, v: Any) -> Any:
        if v is None or v == "pairs" or isinstance(v, list):
            return v
        raise ValueError("a list of lineups, or 'pairs'")

    @field_validator("agents")
    @classmethod
    def _unique_names(cls, v: list[AgentEntry]) -> list[AgentEntry]:
        names = [a.name for a in v]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"duplicate agent entry names: {dupes}")
        return v

    @model_validator(mode="after")
    def _type_params(self) -> RunConfig:
        """Each entry's params become its kind's model, once, here (an unknown game or kind
        leaves them unchecked, and ``check`` reports why)."""
        self._param_problems = type_params(self.agents, self.game)
        return self

    def param_problems(self) -> list[str]:
        """Why entries' params could not be typed (``agents.1.params.field: message``)."""
        return list(self._param_problems)

    def entry(self, name: str) -> AgentEntry:
        for a in self.agents:
            if a.name == name:
                return a
        raise KeyError(name)


# Fields that do not change what is played: a resume may change them without --force.
RUNTIME_FIELDS = ("concurrency", "output_dir")


def _game_shape(engine_cls: Any, rules: Any) -> Shape:
    engine = checks.dealt(engine_cls, rules)
    return engine.n_seats, set(engine.teams().values())


def planned_matches(config: RunConfig, seats: int | None = None) -> int:
    """How many matches the run plays (rating_driven: at most), computed without planning.

    ``seats``: the game's seat count. Without lineups, more entries than seats make one lineup
    per combination of ``seats`` entries (unknown seat count: counted as one lineup)."""
    if config.format == "rating_driven":
        return (config.rating_driven or RatingDriven()).budget * config.repeats
    if config.format == "gauntlet":
        g = config.gauntlet
        n_lineups = len(g.candidates) * len(g.baselines) if g is not None else 0
    elif config.lineups == "pairs":
        n_lineups = len(config.agents) * (len(config.agents) - 1) // 2
    elif config.lineups is None:
        n = len(config.agents)
        by_team = config.seating == "by_team"
        n_lineups = math.comb(n, seats) if seats and n > seats and not by_team else 1
    else:
        return sum(lineup_matches(lu, config.matches) for lu in config.lineups) * config.repeats
    return n_lineups * config.matches * config.repeats


def check(config: RunConfig, max_planned: int = MAX_PLANNED) -> None:
    """Cross-field checks that need the registry; raises ConfigError listing every problem."""
    # Each check runs whatever an earlier one found: an unknown game or bad rules leave
    # the entry names of lineups, teams and formats still to check.
    info, engine_cls, problems = checks.game_or_problems(config.game)
    rules = None
    if info is not None:
        config.game = info.game
        rules, rule_problems = checks.rules(engine_cls, config.rules)
        problems += rule_problems + config.param_problems()
    names = {a.name for a in config.agents}
    try:
        shape = _game_shape(engine_cls, rules) if rules is not None else None
    except ConfigError as err:
        problems += err.problems
        shape = None
    planned = planned_matches(config, shape[0] if shape is not None else None)
    if planned > max_planned:
        problems.append(
            f"matches: the run would plan {planned:,} matches (lineups x matches x repeats), "
            f"more than the limit of {max_planned:,}; plan fewer, or raise the limit "
            "(arena run --max-planned N)"
        )
    problems += _check_teams(config, names, shape)
    problems += _check_lineups(config, names, shape)
    problems += _check_format(config, names, shape)
    for i, name in enumerate(config.ratings.freeze):
        if name not in names:
            problems.append(f"ratings.freeze.{i}: unknown agent entry {name!r}")
    problems += learning_problems(config.agents, config.format)
    if problems:
        raise ConfigError(problems)


def _check_teams(config: RunConfig, names: set[str], shape: Shape | None) -> list[str]:
    """Seating ``by_team``: its teams mapping names the game's teams and known entries."""
    if config.seating != "by_team":
        return ["teams: only used with seating 'by_team'"] if config.teams else []
    if not config.teams:
        return ["teams: seating 'by_team' needs a teams mapping (team -> agent entry)"]
    problems = [
        f"teams.{team}: unknown agent entry {entry_name!r}"
        for team, entry_name in config.teams.items()
        if entry_name not in names
    ]
    if shape is not None:
        extra = sorted(set(config.teams) - shape[1])
        missing = sorted(shape[1] - set(config.teams))
        if extra:
            problems.append(f"teams: unknown team(s) {extra}; this game has {sorted(shape[1])}")
        elif missing:
            problems.append(f"teams: no entry for team(s) {missing}")
    return problems


def _check_lineups(config: RunConfig, names: set[str], shape: Shape | None) -> list[str]:
    problems: list[str] = []
    if config.lineups is not None and config.format != "round_robin":
        problems.append(f"lineups: only used with format 'round_robin' (not {config.format})")
    if isinstance(config.lineups, list):
        if not config.lineups:
            problems.append("lineups: give at least one lineup (or leave it out)")
        for i, lineup in enumerate(config.lineups):
            problems += check_lineup(i, lineup, names, shape)
    if config.lineups is not None and config.seating == "by_team":
        problems.append("seating: 'by_team' and lineups exclude each other; use {team: entry}")
    if config.lineups == "pairs" and len(names) < 2:
        problems.append("lineups: 'pairs' needs at least 2 agent entries")
    return problems


def _check_format(config: RunConfig, names: set[str], shape: Shape | None) -> list[str]:
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


def load(
    path: str | Path, overrides: dict[str, Any] | None = None, max_planned: int = MAX_PLANNED
) -> RunConfig:
    """Read, validate and check a config file; raises ConfigError naming each bad field."""
    raw = read_yaml_mapping(path)
    raw.update({k: v for k, v in (overrides or {}).items() if v is not None})
    return parse(raw, source=str(path), max_planned=max_planned)


def parse(raw: dict[str, Any], source: str = "config", max_planned: int = MAX_PLANNED) -> RunConfig:
    """Validate and check a config mapping; ConfigError lists *every* problem found, whatever
    stage finds it (field values, the game and its rules, entries, lineups, formats)."""
    config, problems = checks.parse_all(
        RunConfig,
        raw,
        lambda c: check(c, max_planned),
        {"agents": checks.entry_or_placeholder(AgentEntry)},
        {"game": ""},  # an invalid game: the checks that need none still run
    )
    if problems or config is None:
        raise ConfigError([f"{source}: {m}" for m in problems or ["invalid config"]])
    return config
