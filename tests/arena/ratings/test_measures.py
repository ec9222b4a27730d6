"""arena.ratings.measures: the registry's measures hook run over match records and pooled per agent entry.

The toy game stands in for a real one (arena must not depend on a concrete game): it is
registered a second time here with a measures hook defined in this module.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import numpy as np
import pytest

from arena import registry
from arena.events import GameEvent
from arena.ratings import measures
from arena.ratings.measures import AgentFigures, Figure
from arena.seeding import derive_seed
from arena.stats import ratio_estimate, wilson
from tests.tournaments.test_executor import make_config
from tournaments.executor import Tournament


@pytest.fixture(scope="module", autouse=True)
def toy_measured() -> Iterator[None]:
    """The toy game with a measures hook, registered for this module only: the registry is
    global, and the conformance suite runs every game registered when it is collected."""
    info = dataclasses.replace(
        registry.get("toy"),
        game="toy_measured",
        measures="tests.arena.ratings.test_measures:toy_measures",
    )
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(registry._GAMES, info.game, info)  # no public unregister: undone on exit
        yield


def toy_measures(events: Sequence[GameEvent], seats: Mapping[int, str]) -> AgentFigures:
    """Per agent entry: the share of ballots cast against its seats, and whether it lost."""
    against: dict[str, list[float]] = {a: [0.0, 0.0] for a in seats.values()}
    for e in events:
        if e.type == "votes":
            for target in e.payload["ballots"].values():
                for a in against:
                    against[a][1] += 1
                against[seats[int(target)]][0] += 1
    end = next((e for e in events if e.type == "match_end"), None)
    if end is None:
        return {}
    lost = {a: any(end.payload["rewards"][str(s)] < 0 for s, x in seats.items() if x == a)
            for a in against}  # fmt: skip
    return {
        a: {"ballots_against": Figure(num, den), "lost": Figure(float(lost[a]), binary=True)}
        for a, (num, den) in against.items()
    }


def test_aggregate_pools_each_figure_over_matches() -> None:
    per_match: list[AgentFigures] = [
        {"x": {"hits": Figure(2, 4, True), "won": Figure(1, binary=True)}},
        {"x": {"hits": Figure(1, 1, True), "won": Figure(0, binary=True)}, "y": {"m": Figure(5)}},
        {"x": {"hits": Figure(0, 3, True), "won": Figure(1, binary=True)}},
    ]
    out = measures.aggregate("g", per_match, seed=3, resamples=500)
    hits, won = out["x"]["hits"], out["x"]["won"]
    assert hits.value == pytest.approx(3 / 8) and hits.n == 3 and hits.method == "bootstrap"
    assert won.value == pytest.approx(2 / 3) and won.method == "wilson"
    assert (won.low, won.high) == wilson(2, 3)
    assert out["y"]["m"].value == 5.0 and out["y"]["m"].low is None  # one match: no interval
    # each figure has its own seeded stream: more agents or measures leave it unchanged
    more = measures.aggregate("g", [*per_match, {"z": {"k": Figure(1, 2)}}], seed=3, resamples=500)
    assert more["x"] == out["x"]
    rng = np.random.default_rng(derive_seed(3, "measures", "g", "x", "hits"))
    assert hits == ratio_estimate([2, 1, 0], [4, 1, 3], rng, 500, binary=True)


def test_a_figure_is_binary_only_when_every_match_says_so() -> None:
    per_match: list[AgentFigures] = [{"x": {"f": Figure(1, binary=True)}}, {"x": {"f": Figure(0)}}]
    assert measures.aggregate("g", per_match, seed=0)["x"]["f"].method == "bootstrap"


@pytest.fixture(scope="module")
def toy_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("toy")
    cfg = make_config(
        tmp,
        game="toy_measured",
        agents=[{"name": "rnd", "kind": "random"}, {"name": "low", "kind": "toy_measured.lowest"}],
        matches=8,
    )
    asyncio.run(Tournament(cfg, tmp / "run", "run").run())
    return tmp / "run"


def test_report_runs_the_registry_hook_over_every_record(toy_run: Path) -> None:
    records = measures.run_records([toy_run])
    assert len(records) == 8 and all(p.exists() for _, p in records)
    doc = measures.report(records, seed=1, resamples=300)
    game = doc["games"]["toy_measured"]
    assert (game["matches"], game["skipped"]) == (8, 0)
    # the same figures straight from the hook over each record
    direct: dict[str, list[Figure]] = {}
    for result, path in records:
        from arena.sinks import read_jsonl

        figs = toy_measures(list(read_jsonl(path)), {s.seat: s.agent for s in result.seats})
        direct.setdefault("low", []).append(figs["low"]["ballots_against"])
        direct.setdefault("low_lost", []).append(figs["low"]["lost"])
    low = game["agents"]["low"]
    f = direct["low"]
    assert low["ballots_against"]["value"] == pytest.approx(
        sum(x.num for x in f) / sum(x.den for x in f)
    )
    k = sum(x.num for x in direct["low_lost"])
    assert low["lost"]["method"] == "wilson"
    assert (low["lost"]["low"], low["lost"]["high"]) == pytest.approx(wilson(k, 8))


def test_unfinished_missing_and_errored_records(toy_run: Path, tmp_path: Path) -> None:
    records = measures.run_records([toy_run])
    (first, _), (second, path2) = records[0], records[1]
    truncated = tmp_path / "cut.jsonl"  # a record cut before match_end: no figures
    truncated.write_text("".join(path2.read_text().splitlines(keepends=True)[:5]))
    errored = records[2][0].model_copy(update={"status": "errored"})
    mixed = [
        (first, tmp_path / "gone.jsonl"),
        (second, truncated),
        (errored, records[2][1]),
        *records[3:],
    ]
    game = measures.collect(mixed)["toy_measured"]
    assert len(game.matches) == 5 and sorted(game.skipped) == sorted(
        [first.match_id, second.match_id]
    )


def test_a_game_without_measures_is_left_out(tmp_path: Path) -> None:
    cfg = make_config(tmp_path, matches=2)  # the plain toy game declares no measures
    asyncio.run(Tournament(cfg, tmp_path / "plain", "plain").run())
    assert measures.hook("toy") is None
    assert measures.report(measures.run_records([tmp_path / "plain"]), seed=0)["games"] == {}
