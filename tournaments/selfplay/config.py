"""The ``arena selfplay CONFIG`` file (YAML), validated fully before anything is written.

Example (docs/selfplay.md lists every field)::

    name: dond-selfplay
    game: dealornodeal
    base: {kind: llm, params: {backend: {type: local}}}   # the agent whose context evolves
    seed_context: {style: null, bank: banks/dond.sqlite, insights: all}
    styles: ["Be brief.", "Prefer accept when an offer stands."]   # the restyle pool
    population: 6
    elites: 2
    generations: 4
    operators: {copy: 0, reflect: 1, rewrite: 1, crossover: 1, restyle: 1}
    reflector: "scripted:directives"          # scripted | scripted:directives | {backend}
    panel: [{name: bot, kind: rule}]          # fixed opponents; champions: frozen incumbents too
    units: {train: 8, select: 16, gate: 32, seats: all, train_temperature: 1.0}
    budget: {games: 2000, wall_s: 600}
    repeats: 3

Bad input raises :class:`arena.errors.ConfigError` with one message per problem.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from arena import config_checks as checks
from arena.errors import ConfigError, describe_validation
from arena.results import InvalidActionPolicy

OPERATORS = ("copy", "reflect", "rewrite", "crossover", "restyle", "demonstrate")
PHASES = ("play", "reflect", "memory_update", "replay", "gate")
LIMITS = ("games", "env_steps", "llm_calls", "tokens_in", "tokens_out", "usd", "wall_s")


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class EntrySpec(Strict):
    """An agent entry (the same shape as a tournament config's ``agents`` items)."""

    name: str = Field("base", min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:@+-]+$")
    kind: str
    params: dict[str, Any] = Field(default_factory=dict)


class SeedContext(Strict):
    """The first candidate: its prompt variant and the bank it reads."""

    style: str | None = Field(None, max_length=2000)
    extra_instructions: str | None = Field(None, max_length=4000)
    # an existing insight bank each repeat starts from (copied; None: an empty bank)
    bank: str | None = None
    namespace: str = "{game}/{role}"
    insights: Literal["all", "none"] = "all"  # which active insights the seed reads


class Units(Strict):
    """Env seeds per split; every seed is played from every listed seat (``all``: each)."""

    train: int = Field(8, ge=1, le=100_000)  # reflection reads these games
    select: int = Field(16, ge=1, le=100_000)  # ratings and survival use these
    gate: int = Field(32, ge=2, le=100_000)  # the frozen held-out split
    seats: Literal["all"] | list[int] = "all"
    # exploration: the LLM candidates' train games sample their moves at this temperature
    # (ranked moves drawn from their likelihoods), so the best train games can show moves the
    # candidate would not make greedily; select, gate and replays play as ``base`` is set.
    # None: train games play as ``base`` is set too
    train_temperature: float | None = Field(None, ge=0, le=2)


class Selection(Strict):
    k: float = Field(2.0, ge=0, le=10)  # elites by mu - k sigma
    explore: float = Field(1.0, ge=0, le=10)  # parents by mu + explore sigma
    # true: the candidates on the Pareto front of per-(game, role) mu - k sigma survive too,
    # so a specialist in one role is not dropped for its average
    pareto: bool = False
    # extra replicates of each select unit whose outcome flips between candidates or
    # replicates (0: off): the same deal, fresh agent seeds, played by every candidate
    replicates: int = Field(0, ge=0, le=16)
    # at most this fraction of the generation's select games is spent on replicates
    replicate_share: float = Field(0.5, gt=0, le=4)


class Gate(Strict):
    alpha: float = Field(0.05, gt=0, lt=0.5)  # one-sided
    # bonferroni: each of the run's G gate tests uses alpha / G, so a run promotes a null
    # challenger with probability <= alpha overall
    correction: Literal["bonferroni", "none"] = "bonferroni"
    resamples: int = Field(2000, ge=200, le=100_000)


class Limits(Strict):
    """Hard caps (None: no cap). A cap is checked before each game starts, so it is overshot
    by at most the games in flight."""

    games: int | None = Field(None, ge=1)
    env_steps: int | None = Field(None, ge=1)
    llm_calls: int | None = Field(None, ge=1)
    tokens_in: int | None = Field(None, ge=1)
    tokens_out: int | None = Field(None, ge=1)
    usd: float | None = Field(None, gt=0)
    wall_s: float | None = Field(None, gt=0)


class Budget(Limits):
    per_phase: dict[str, Limits] = Field(default_factory=dict)

    @field_validator("per_phase")
    @classmethod
    def _known_phases(cls, v: dict[str, Limits]) -> dict[str, Limits]:
        unknown = sorted(set(v) - set(PHASES))
        if unknown:
            raise ValueError(f"unknown phase(s) {unknown}; phases are {list(PHASES)}")
        return v


class Replay(Strict):
    """Prioritised replay of decisive states (:mod:`tournaments.selfplay.replay_buffer`); replayed games
    never count toward ratings nor the gate."""

    # replayed games per generation as a fraction of the generation's play games (0: off)
    fraction: float = Field(0.0, ge=0, le=4)
    buffer: int = Field(10_000, ge=1, le=10_000_000)  # states kept (oldest evicted first)
    alpha: float = Field(1.0, ge=0, le=20)  # priority exponent: P(draw) ~ priority^alpha
    rare: float = Field(1.0, ge=0)  # weight of 1/sqrt(games through the prefix)
    split: float = Field(1.0, ge=0)  # weight of 4p(1-p), p the win share through the prefix

    def games(self, play_games: int) -> int:
        """Replayed games of a generation that played ``play_games``."""
        return int(self.fraction * play_games)


class SelfPlayConfig(Strict):
    name: str = Field("selfplay", pattern=r"^[A-Za-z0-9_.-]+$", max_length=64)
    game: str
    rules: dict[str, Any] = Field(default_factory=dict)
    base: EntrySpec
    seed_context: SeedContext = Field(default_factory=SeedContext)
    styles: list[str] = Field(default_factory=list)
    population: int = Field(4, ge=2, le=256)
    elites: int = Field(1, ge=1, le=255)
    generations: int = Field(3, ge=1, le=1000)
    operators: dict[str, float] = Field(
        default_factory=lambda: {"reflect": 1.0, "rewrite": 1.0, "crossover": 1.0, "restyle": 1.0}
    )
    reflector: str | dict[str, Any] = "scripted"
    panel: list[EntrySpec] = Field(min_length=1)
    champions: bool = False  # frozen past champions join the panel
    units: Units = Field(default_factory=Units)
    metric: Literal["score", "win"] = "score"  # what ratings, survival and boards rank by
    selection: Selection = Field(default_factory=Selection)
    gate: Gate = Field(default_factory=Gate)
    budget: Budget = Field(default_factory=Budget)
    replay: Replay = Field(default_factory=Replay)
    repeats: int = Field(1, ge=1, le=100)
    master_seed: int = 0
    concurrency: int = Field(8, ge=1, le=4096)
    policy: InvalidActionPolicy = Field(default_factory=InvalidActionPolicy)
    output_dir: str = "runs/selfplay"

    def entry_names(self) -> list[str]:
        return [p.name for p in self.panel]


def check(config: SelfPlayConfig) -> None:
    """Cross-field checks that need the registry; raises ConfigError listing every problem."""
    # An unknown game or bad rules leave the checks that need neither still to run.
    info, engine_cls, problems = checks.game_or_problems(config.game)
    n_seats = None
    ruleset = None
    if info is not None:
        config.game = info.game
        ruleset, rule_problems = checks.rules(engine_cls, config.rules)
        problems += rule_problems
    if ruleset is not None:
        try:
            n_seats = checks.dealt(engine_cls, ruleset).n_seats
        except ConfigError as err:
            problems += err.problems
    if config.base.kind != "llm":
        problems.append("base.kind: candidates are LLM contexts; the base must be kind 'llm'")
    else:
        problems += _check_base(config.base.params)
    problems += _check_panel(config, None if info is None else info.game)
    problems += _check_operators(config)
    problems += _check_seed_bank(config)
    if config.elites >= config.population:
        problems.append("elites: must be smaller than population (children need places)")
    problems += _check_reflector(config.reflector)
    if config.replay.fraction > 0 and config.replay.rare + config.replay.split <= 0:
        problems.append("replay: rare + split must be > 0 (no state would have a priority)")
    problems += _check_seats(config.units.seats, n_seats)
    if problems:
        raise ConfigError(problems)


def _check_panel(config: SelfPlayConfig, game: str | None) -> list[str]:
    """The panel's entries: kinds and params for the game (when known), names unique and
    apart from the candidates' ``c-`` names."""
    problems: list[str] = []
    names = [p.name for p in config.panel]
    for i, entry in enumerate(config.panel):
        if game is not None:
            problems += checks.entry(f"panel.{i}", entry.kind, entry.params, game)
        if names.count(entry.name) > 1:
            problems.append(f"panel.{i}.name: duplicate panel entry name {entry.name!r}")
        if entry.name.startswith("c-"):
            problems.append(f"panel.{i}.name: names starting 'c-' are kept for candidates")
    return problems


def _check_operators(config: SelfPlayConfig) -> list[str]:
    problems: list[str] = []
    for op, weight in config.operators.items():
        if op not in OPERATORS:
            problems.append(f"operators.{op}: unknown operator; known: {list(OPERATORS)}")
        elif weight < 0:
            problems.append(f"operators.{op}: a ratio must be >= 0")
    if config.operators and sum(max(0.0, w) for w in config.operators.values()) <= 0:
        problems.append("operators: at least one ratio must be > 0")
    if config.operators.get("restyle", 0) > 0 and not config.styles:
        problems.append("styles: the restyle operator needs a pool of styles")
    return problems


def _check_seed_bank(config: SelfPlayConfig) -> list[str]:
    """The seed's bank exists, and its hash chain holds (it is copied into every repeat)."""
    bank = config.seed_context.bank
    if not bank:
        return []
    if not Path(bank).expanduser().exists():
        return [f"seed_context.bank: no such bank {bank!r}"]
    from arena.memory.evidence import bank_problem

    broken = bank_problem(bank)
    return [f"seed_context.bank: {broken}"] if broken else []


def _check_reflector(reflector: str | dict[str, Any]) -> list[str]:
    if isinstance(reflector, str):
        if reflector in ("scripted", "scripted:directives"):
            return []
        return ["reflector: scripted, scripted:directives or a backend mapping"]
    from arena.llm.config import BackendConfig

    try:
        BackendConfig.model_validate(reflector)
    except ValidationError as err:
        return describe_validation(err, "reflector")
    return []


def _check_seats(seats: Literal["all"] | list[int], n_seats: int | None) -> list[str]:
    if not isinstance(seats, list) or n_seats is None:
        return []
    problems = [] if seats else ["units.seats: give at least one seat (or 'all')"]
    for i, seat in enumerate(seats):
        if not 0 <= seat < n_seats:
            problems.append(f"units.seats.{i}: seat {seat} outside 0..{n_seats - 1}")
    return problems


def _check_base(params: dict[str, Any]) -> list[str]:
    from arena.agents.llm_params import LLMAgentParams

    owned = sorted({"style", "extra_instructions", "memory"} & set(params))
    problems = [f"base.params.{k}: set by the candidate's context (seed_context)" for k in owned]
    try:
        LLMAgentParams.model_validate(params)
    except ValidationError as err:
        problems.extend(describe_validation(err, "base.params"))
    return problems


def parse(raw: Any, source: str = "config") -> SelfPlayConfig:
    if not isinstance(raw, dict):
        raise ConfigError([f"{source}: the config must be a mapping"])
    # every problem in one pass: field values, then the cross-field checks over the valid rest
    config, problems = checks.parse_all(
        SelfPlayConfig,
        raw,
        check,
        {"panel": checks.entry_or_placeholder(EntrySpec)},
        {"game": "", "base": {"kind": "llm"}},
    )
    if problems or config is None:
        raise ConfigError([f"{source}: {m}" for m in problems or ["invalid config"]])
    return config


def load(path: str | Path) -> SelfPlayConfig:
    """Read, validate and check a self-play config; raises ConfigError naming each bad field.
    The file is read within the same limits as a tournament config (arena.configfile: size,
    values with aliases counted, depth)."""
    from arena.configfile import read_yaml_mapping

    p = Path(path)
    raw = read_yaml_mapping(p)
    return parse(raw, source=str(p))
