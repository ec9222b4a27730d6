"""Builders the test modules share: run configs, match results, matches played through the
runner, the conformance parameters and self-play helpers.

A test module imports what it shares from here (or from a helper module beside it), never from
another test module: a test file can then be moved, renamed or run alone without taking a
neighbour's tests along.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from app.cli import main
from arena import registry, testing
from arena.agents import factory
from arena.events import Event
from arena.live.status import history_cuts
from arena.memory.bank import open_bank
from arena.ratings.leaderboard import SIDE, fold_order, rate, trueskill_rows
from arena.results import MatchResult, MatchSpec, SeatResult
from arena.runner import MatchRunner
from arena.types import Action, Decision
from tournaments import config as tconfig

ROOT = Path(__file__).resolve().parents[1]


# -- Run configs ---------------------------------------------------------------------------------


def make_config(tmp_path: Path, **over: object) -> tconfig.RunConfig:
    raw = {
        "name": "t",
        "game": "toy",
        "rules": {"n_players": 4},
        "agents": [{"name": "rnd", "kind": "random"}, {"name": "low", "kind": "toy.lowest"}],
        "matches": 12,
        "concurrency": 4,
        "master_seed": 3,
        "output_dir": str(tmp_path),
    }
    raw.update(over)
    return tconfig.parse(raw)


def werewolf_config(tmp_path: Path, matches: int = 6) -> tconfig.RunConfig:
    return tconfig.parse(
        {
            "name": "ww",
            "game": "werewolf",
            "rules": {"preset": "classic8"},
            "agents": [
                {"name": "rule", "kind": "werewolf.rule"},
                {"name": "rnd", "kind": "random"},
            ],
            "matches": matches,
            "concurrency": 3,
            "master_seed": 11,
            "output_dir": str(tmp_path),
        }
    )


WEREWOLF = {
    "name": "ww",
    "game": "werewolf",
    "rules": {"preset": "classic8"},
    "agents": [{"name": "rule", "kind": "werewolf.rule"}],
    "master_seed": 11,
}


DOND = {
    "name": "dond",
    "game": "dealornodeal",
    "agents": [{"name": "boulware", "kind": "dealornodeal.boulware"}],
    "master_seed": 5,
}


# -- Match results for the ratings ---------------------------------------------------------------


def rated_match(i: int, winner_agent: str, loser_agent: str, draw: bool = False) -> MatchResult:
    seats = [
        SeatResult(
            seat=0,
            name="A",
            agent=winner_agent,
            team="red",
            role="r",
            reward=0.0 if draw else 1.0,
            result="draw" if draw else "win",
        ),
        SeatResult(
            seat=1,
            name="B",
            agent=loser_agent,
            team="blue",
            role="b",
            reward=0.0 if draw else -1.0,
            result="draw" if draw else "loss",
        ),
    ]
    return MatchResult(
        match_id=f"m{i:03d}",
        game="g",
        seed=i,
        index=i,
        status="finished",
        outcome="x",
        winners=[] if draw else ["red"],
        seats=seats,
    )


def team_match(
    i: int, red: list[str], blue: list[str], red_wins: bool, repeat: int = 0
) -> MatchResult:
    seats = []
    for seat, agent in enumerate(red + blue):
        team = "red" if seat < len(red) else "blue"
        won = (team == "red") == red_wins
        role = "captain" if seat in (0, len(red)) else "crew"
        seats.append(
            SeatResult(
                seat=seat,
                name=f"P{seat}",
                agent=agent,
                team=team,
                role=role,
                reward=1.0 if won else -1.0,
                result="win" if won else "loss",
            )
        )
    return MatchResult(
        match_id=f"r{repeat}-m{i:04d}",
        game="g",
        seed=i,
        index=repeat * 10_000 + i,
        repeat=repeat,
        status="finished",
        outcome="x",
        winners=["red" if red_wins else "blue"],
        seats=seats,
    )


def head_to_heads(n: int, p_a: float, seed: int = 0, repeat: int = 0) -> list[MatchResult]:
    """a vs b, sides alternating, a's team winning with probability p_a."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        a_wins = rng.random() < p_a
        if i % 2 == 0:
            out.append(team_match(i, ["a", "a"], ["b", "b"], a_wins, repeat))
        else:
            out.append(team_match(i, ["b", "b"], ["a", "a"], not a_wins, repeat))
    return out


FOLD_AGENTS = ["rule", "random", "llm", "cautious"]


def werewolf_like(i: int, rng: random.Random) -> MatchResult:
    """Eight seats, two wolves against six villagers; agents mixed, some matches not rated."""
    agents = [rng.choice(FOLD_AGENTS) for _ in range(8)]
    wolves = set(rng.sample(range(8), 2))
    status = rng.choices(["finished", "forfeited", "errored"], [0.85, 0.08, 0.07])[0]
    wolves_win = rng.random() < 0.4
    seats = []
    for s in range(8):
        team = "wolves" if s in wolves else "village"
        won = (team == "wolves") == wolves_win
        seats.append(
            SeatResult(
                seat=s,
                name=f"P{s}",
                agent=agents[s],
                team=team,
                role="werewolf" if s in wolves else rng.choice(["villager", "seer", "doctor"]),
                reward=1.0 if won else -1.0,
                result="win" if won else "loss",
            )
        )
    return MatchResult(
        match_id=f"werewolf-m{i:05d}",
        game="werewolf",
        seed=i,
        index=i,
        status=status,  # type: ignore[arg-type]
        outcome="wolves" if wolves_win else "village",
        seats=seats if status != "errored" else [],
    )


def from_scratch(results: list[MatchResult]) -> dict:
    """The live leaderboard document as defined: re-rate every prefix from nothing."""
    ordered = fold_order(results)
    history: dict[str, list[float]] = {}
    for cut in history_cuts(len(ordered)):
        for agent, rating in rate(ordered[:cut]).items():
            if not agent.startswith(SIDE):
                history.setdefault(agent, []).append(round(rating.mu, 3))
    rows = [r.model_dump() for r in trueskill_rows(ordered)]
    return {"rows": rows, "history": history, "n_results": len(ordered)}


def without_ts(doc: dict) -> dict:
    return {k: v for k, v in doc.items() if k != "ts"}


def completion_order(results: list[MatchResult], window: int, rng: random.Random) -> list:
    """Plan order perturbed as a run with ``window`` concurrent matches finishes them."""
    return sorted(results, key=lambda r: r.index + rng.uniform(0, window))


# -- Matches played through the runner -----------------------------------------------------------


def play_scored(
    game: str, kinds: list[str] | None, rules: dict, seed: int, params=None, sinks=None
):
    bots = registry.bots(game)
    n = registry.engine_class(game)(registry.rules_class(game)(**rules), seed=seed).n_seats
    kinds = kinds or [("random_legal" if "random_legal" in bots else sorted(bots)[0])] * n
    params = params or [{} for _ in kinds]
    agents = [
        bots[k](name=f"s{i}", **p) for i, (k, p) in enumerate(zip(kinds, params, strict=True))
    ]
    spec = MatchSpec(match_id=f"m{seed}", game=game, rules=rules, seed=seed,
                     seats=[f"{k}{i}" for i, k in enumerate(kinds)])  # fmt: skip
    runner = MatchRunner(spec, agents, sinks=sinks)
    asyncio.run(runner.run())
    return runner.recorder.events


async def aplay(game: str, seed: int = 3, kind: str = "random") -> list[Event]:
    engine = registry.engine_class(game)({}, seed=seed)
    n = engine.n_seats
    agents = [factory.build(f"b{i}", kind, game) for i in range(n)]
    spec = MatchSpec(
        match_id=f"{game}-{seed}",
        run_id="r1",
        game=game,
        seed=seed,
        seats=[f"b{i}" for i in range(n)],
    )
    runner = MatchRunner(spec, agents, engine=engine)
    await runner.run()
    return runner.recorder.events


def played_rows(results: list[MatchResult]) -> list[tuple[Any, ...]]:
    return [
        (r.match_id, r.seed, r.status, r.outcome, r.winners, [(s.agent, s.reward) for s in r.seats])
        for r in results
    ]


# -- Conformance parameters ----------------------------------------------------------------------


def variants() -> list[tuple[str, str, dict[str, Any]]]:
    """(game, variant, rules) of every registered game's catalog variants (the default rules
    for a game without variants)."""
    return [
        (game, name, rules)
        for game in registry.games()
        for name, rules in testing.variants(game).items()
    ]


# Computed when first imported: tests/conftest.py has registered the toy game by then (it
# imports nothing from here), so the toy game's variants are among them.
VARIANTS = variants()


IDS = [f"{g}-{v}" for g, v, _ in VARIANTS]


# -- Self-play runs ------------------------------------------------------------------------------


def selfplay_cli(*args: str, cwd: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    return subprocess.Popen(
        [sys.executable, "-m", "app.cli", "selfplay", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def selfplay_fingerprint(root: Path) -> dict[str, object]:
    result = json.loads((root / "r0" / "result.json").read_text())
    bank = open_bank(root / "r0" / "bank.sqlite")
    gens = [json.loads(p.read_text()) for p in sorted((root / "r0").glob("g*/generation.json"))]
    return {
        "champion": result["champion"]["id"],
        "decisions": result["decisions"],
        "bank_head": bank.head(),
        "ratings": [[(c["id"], c["mu"], c["sigma"]) for c in g["candidates"]] for g in gens],
    }


# -- A seat that speaks on every channel ----------------------------------------------------
SPOKEN_WORDS = ("I agree.", "Not so fast.", "Let me think.", "Trust me on this one.")


def speaking_answer(rng: random.Random, decision: Decision) -> Action:
    """A seeded answer that uses every channel a decision offers: free text, a non-silent
    option with words (a side message, an act, an offer with a message), or options only."""
    ids = decision.option_ids
    loud = [i for i in ids if i != decision.silent_option]
    if decision.belief_only:
        return Action(choices=(decision.silent_option or ids[0],)) if ids else Action(text="...")
    if decision.free_text and (not ids or rng.random() < 0.4):
        return Action(text=rng.choice(SPOKEN_WORDS)[: decision.max_chars])
    if decision.free_text and loud and rng.random() < 0.6:
        return Action(
            choices=(rng.choice(loud),), text=rng.choice(SPOKEN_WORDS)[: decision.max_chars]
        )
    k = max(decision.min_choices, 1)
    if decision.max_choices > 1:
        k = rng.randint(k, min(decision.max_choices, len(ids)))
    return Action(choices=tuple(rng.sample(ids, k)))


# -- Price bargaining runs through the CLI ---------------------------------------------------
BARGAINING_BOTS = [
    {"name": "boulware", "kind": "price_bargaining.boulware"},
    {"name": "conceder", "kind": "price_bargaining.conceder"},
]


def llm_entry(url: str, **params: Any) -> dict[str, Any]:
    backend = {"base_url": url, "model": "scripted", "max_retries": 0}
    return {"name": "model", "kind": "llm", "params": {"backend": backend, **params}}


def run_bargaining(
    tmp: Path, name: str, agents: list[dict[str, Any]], matches: int = 12, **extra: Any
) -> Path:
    doc = {
        "name": name,
        "game": "price_bargaining",
        "agents": agents,
        "matches": matches,
        "master_seed": 5,
        "concurrency": 1,  # one request at a time: the server's fault draws come in one order
        "policy": {"retries": 2, "fallback": "random_legal", "timeout_s": 30},
        "output_dir": str(tmp / "runs"),
        **extra,
    }
    path = tmp / f"{name}.yaml"
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    code = main(["run", str(path), "--quiet", "--no-broker", "--no-metrics", "--run-id", name])
    assert code == 0
    return tmp / "runs" / name


def planner_run(budget: int, batch: int = 6) -> dict[str, Any]:
    """A rating-driven run of four price-bargaining bots planned by the planner (a config
    document, without ``output_dir``)."""
    bots = ["boulware", "conceder", "greedy", "random"]
    return {
        "name": "planned",
        "game": "price_bargaining",
        "agents": [{"name": b, "kind": f"price_bargaining.{b}"} for b in bots],
        "format": "rating_driven",
        "rating_driven": {"by": "planner", "budget": budget, "batch": batch, "confidence": 0.9},
        "master_seed": 3,
        "concurrency": 2,
    }
