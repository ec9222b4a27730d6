"""Per-game measures per agent entry, read from match records, with 95% CIs.

A game declares its measures in its registry entry (``GameInfo.measures``, a string entry point
to a :class:`MeasuresHook`). The hook reads one match's events (the JSONL record, as typed
``Event`` objects) and the seat -> agent entry map, and returns, per agent entry and per
measure, one :class:`Figure` of that match: a rate over the agent's ballots is
``Figure(hits, ballots, binary=True)``, a per-match value is ``Figure(value)``. A measure the
match does not define for an agent (no ballot, no agreement) is left out, never 0.

Over matches the figure is the pooled ratio Σnum / Σden with :func:`arena.stats.ratio_estimate`:
a cluster bootstrap over matches, or Wilson for a ``binary`` figure when every match is one 0/1
trial. Each figure
draws from its own Generator seeded by ``derive_seed(seed, game, agent, measure)``, so adding a
measure or an agent never moves another figure's interval.

Nothing here names a game: the hooks are found through :mod:`arena.registry`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, Protocol

import numpy as np

from arena import registry
from arena.events import GameEvent
from arena.results import MatchResult
from arena.seeding import derive_seed
from arena.sinks import read_jsonl
from arena.stats import DEFAULT_RESAMPLES, Estimate, ratio_estimate


class Figure(NamedTuple):
    """One measure of one agent entry in one match: ``num / den``.

    ``binary``: the measure is a share of yes/no outcomes (wins, agreements, hits), so a match
    that is a single 0/1 trial may use the Wilson interval.
    """

    num: float
    den: float = 1.0
    binary: bool = False


AgentFigures = dict[str, dict[str, Figure]]  # agent entry -> measure -> figure of one match


class MeasureInfo(NamedTuple):
    """What a measure is, declared once by its game (``GameInfo.measure_info``) and printed
    wherever the measure is: its unit (``share (0-1)``, ``points per proposal``) and a short
    definition."""

    unit: str
    definition: str


def measure_info(game: str) -> dict[str, MeasureInfo]:
    """The game's declared measures (empty when it declares none)."""
    ref = registry.get(game).measure_info
    return dict(registry.load_object(ref)) if ref else {}


class MeasuresHook(Protocol):
    """A game's measures of one match (``GameInfo.measures``)."""

    def __call__(self, events: Sequence[GameEvent], seats: Mapping[int, str]) -> AgentFigures: ...


def hook(game: str) -> MeasuresHook | None:
    """The measures hook the game declares, or None."""
    ref = registry.get(game).measures
    return registry.load_object(ref) if ref else None


@dataclass
class GameMeasures:
    """The measures of one game's matches: per-match figures and per-agent aggregates."""

    game: str
    matches: dict[str, AgentFigures] = field(default_factory=dict)  # match id -> figures
    skipped: list[str] = field(default_factory=list)  # matches without figures (unfinished)

    def agents(
        self, seed: int, resamples: int = DEFAULT_RESAMPLES
    ) -> dict[str, dict[str, Estimate]]:
        """Per agent entry and measure: the pooled figure over matches with its 95% CI."""
        return aggregate(self.game, self.matches.values(), seed, resamples)


def aggregate(
    game: str, per_match: Iterable[AgentFigures], seed: int, resamples: int = DEFAULT_RESAMPLES
) -> dict[str, dict[str, Estimate]]:
    """Pool per-match figures per (agent, measure); one cluster per match."""
    figs: dict[str, dict[str, list[Figure]]] = {}
    for figures in per_match:
        for agent, measures in figures.items():
            for name, fig in measures.items():
                figs.setdefault(agent, {}).setdefault(name, []).append(fig)
    out: dict[str, dict[str, Estimate]] = {}
    for agent in sorted(figs):
        out[agent] = {}
        for name in sorted(figs[agent]):
            got = figs[agent][name]
            rng = np.random.default_rng(derive_seed(seed, "measures", game, agent, name))
            out[agent][name] = ratio_estimate(
                [f.num for f in got],
                [f.den for f in got],
                rng,
                resamples,
                binary=all(f.binary for f in got),
            )
    return out


def match_figures(result: MatchResult, events: Sequence[GameEvent]) -> AgentFigures | None:
    """The game's figures of one match (None: the game declares no measures)."""
    fn = hook(result.game)
    if fn is None:
        return None
    return fn(events, {s.seat: s.agent for s in result.seats})


def run_records(run_dirs: Sequence[Path | str]) -> list[tuple[MatchResult, Path]]:
    """Every result of the run directories with the path of its JSONL record, in plan order."""
    from arena.store import Store

    out: list[tuple[MatchResult, Path]] = []
    for d in run_dirs:
        store = Store(Path(d) / "arena.sqlite")
        try:
            out.extend((r, Path(d) / "matches" / f"{r.match_id}.jsonl") for r in store.results())
        finally:
            store.close()
    return out


def collect(records: Iterable[tuple[MatchResult, Path]]) -> dict[str, GameMeasures]:
    """Run every game's hook over the records (errored matches are left out, missing or
    unfinished records are counted as skipped)."""
    out: dict[str, GameMeasures] = {}
    for result, path in records:
        if result.status == "errored":
            continue
        gm = out.setdefault(result.game, GameMeasures(result.game))
        if hook(result.game) is None or not path.exists():
            gm.skipped.append(result.match_id)
            continue
        figures = match_figures(result, list(read_jsonl(path)))
        if figures:
            gm.matches[result.match_id] = figures
        else:
            gm.skipped.append(result.match_id)
    return out


def report(
    records: Iterable[tuple[MatchResult, Path]],
    seed: int,
    resamples: int = DEFAULT_RESAMPLES,
) -> dict[str, Any]:
    """The measures document of a run: per game, per agent entry, per measure an estimate.

    ``{"seed", "resamples", "games": {game: {"matches", "skipped", "agents": {agent: {measure:
    {"value", "low", "high", "n", "method"}}}, "definitions": {measure: {"unit",
    "definition"}}}}}``; ``n`` counts the matches that define the figure. Games that declare
    no measures are left out.
    """
    games = collect(records)
    return {
        "seed": seed,
        "resamples": resamples,
        "games": {
            game: {
                "matches": len(gm.matches),
                "skipped": len(gm.skipped),
                "definitions": {
                    name: info._asdict() for name, info in sorted(measure_info(game).items())
                },
                "agents": {
                    agent: {name: est.as_dict() for name, est in figures.items()}
                    for agent, figures in gm.agents(seed, resamples).items()
                },
            }
            for game, gm in sorted(games.items())
            if hook(game) is not None
        },
    }
