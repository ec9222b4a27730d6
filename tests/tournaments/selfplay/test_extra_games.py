"""Prioritised replay and replicates of flipped units, end to end on the context-sensitive test
backend: replays start from the restored state, never count toward ratings nor the gate, are
budgeted as their own phase; flipped select units get bounded replicates; a run killed in the
middle of a replay phase resumes to the same champion, bank, ratings and replays."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from arena.llm.fakes.context import ContextEngine
from arena.llm.server import ServerThread
from arena.match_record import RUNNER_EVENT_TYPES
from arena.store import Store
from tests.builders import selfplay_cli, selfplay_fingerprint
from tests.tournaments.selfplay import selfplay_game
from tests.tournaments.selfplay.selfplay_setup import (
    kill_when_recorded,
    raw_config,
    seed_bank,
    write_config,
)
from tournaments.executor import AsyncioExecutor, use_executor
from tournaments.selfplay.config import parse
from tournaments.selfplay.driver import SelfPlay
from tournaments.selfplay.replay_buffer import reach
from tournaments.selfplay.select import UnitGame, ratings


@pytest.fixture(autouse=True)
def _highcard() -> None:
    selfplay_game.register()


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.open()] if path.exists() else []


def _run(tmp_path: Path, name: str, **change: Any) -> Path:
    bank = selfplay_game.seed_bank(tmp_path / "seed.sqlite")
    with ServerThread(ContextEngine(seed=1)) as server:
        small: dict[str, Any] = {
            "repeats": 1,
            "generations": 3,
            "units": {"train": 1, "select": 6, "gate": 8, "seats": [0]},
        }
        raw = selfplay_game.acceptance_config(server.url, bank, **{**small, **change})
        asyncio.run(SelfPlay(parse(raw), tmp_path / name).run())
    return tmp_path / name / "r0"


def test_replays_start_from_the_state_and_never_reach_ratings_or_the_gate(
    tmp_path: Path,
) -> None:
    flips = {"replicates": 2, "replicate_share": 0.5}
    on = _run(tmp_path, "on", replay={"fraction": 0.5}, selection=flips)
    off = _run(tmp_path, "off", selection=flips)
    gens = [json.loads(p.read_text()) for p in sorted(on.glob("g*/generation.json"))]
    assert len(gens) == 3
    replay_rows = [r for g in ("g000", "g001") for r in _rows(on / g / "replay" / "units.jsonl")]
    assert len(replay_rows) == 2 * 14  # half of 4 candidates x 7 units, per generation
    assert not (on / "g002" / "replay").exists()  # the last generation has no one to teach
    assert all(r["status"] == "finished" and r["prefix"] for r in replay_rows)
    # each replay record starts at the state its prefix names (restored, not re-dealt)
    for r in replay_rows[:6]:
        state = reach("highcard", {}, r["seed"], [tuple(s) for s in r["prefix"]])
        path = on / f"g{r['generation']:03d}" / "replay" / "matches" / f"{r['episode']}.jsonl"
        events = [json.loads(x) for x in path.open()]
        engine = [e for e in events if e["type"] not in RUNNER_EVENT_TYPES]
        assert [e["text"] for e in engine[: len(state.log)]] == [e.text for e in state.log]
        first = next(i for i, e in enumerate(events) if e["type"] == "decision")
        before = [e for e in events[:first] if e["type"] not in RUNNER_EVENT_TYPES]
        assert len(before) == len(state.log)  # the prefix's events are there before any move
    # ratings: exactly the select games of the play and replicate phases, no replay
    rated: dict[tuple[int, str, int], UnitGame] = {}
    for g in ("g000", "g001", "g002"):
        for phase in ("play", "replicates"):
            rows = [r for r in _rows(on / g / phase / "units.jsonl") if r["split"] == "select"]
            store = Store(on / g / phase / "arena.sqlite")
            assert {r.match_id for r in store.results()} >= {r["episode"] for r in rows}
            store.close()
            for r in rows:
                assert not r["episode"].startswith("replay-")
                key = (r["generation"], r["key"], r["replicate"])
                unit = rated.setdefault(key, UnitGame(*key, r["game"], r["role"]))
                unit.scores[r["candidate"]] = r["score"]
    table = ratings(rated.values())
    for c in gens[-1]["candidates"]:
        assert (c["mu"], c["sigma"]) == (table[c["id"]].mu, table[c["id"]].sigma)
    # the gate's games are gate games only
    for g in on.glob("g*/gate/arena.sqlite"):
        store = Store(g)
        assert all(r.match_id.startswith("gate-") for r in store.results())
        store.close()
    # before any reproduction could differ, replay changes neither ratings nor the gate
    first_on = json.loads((on / "g000" / "generation.json").read_text())
    first_off = json.loads((off / "g000" / "generation.json").read_text())
    assert first_on["candidates"] == first_off["candidates"]
    assert first_on["gate"] == first_off["gate"]
    assert first_off["replay"] is None and first_on["replay"]["games"] == 14
    # its own budget phase
    budget = json.loads((on.parent / "budget.json").read_text())["phases"]
    assert budget["replay"]["games"] == len(replay_rows)
    play_rows = sum(len(_rows(p)) for p in on.glob("g*/play/units.jsonl"))
    replicate_rows = sum(len(_rows(p)) for p in on.glob("g*/replicates/units.jsonl"))
    assert budget["play"]["games"] == play_rows + replicate_rows


def test_flipped_units_get_bounded_replicates_played_by_every_candidate(tmp_path: Path) -> None:
    root = _run(tmp_path, "sp", selection={"replicates": 2, "replicate_share": 0.5})
    checked = 0
    for gdir in sorted(root.glob("g*")):
        play = [r for r in _rows(gdir / "play" / "units.jsonl") if r["split"] == "select"]
        reps = _rows(gdir / "replicates" / "units.jsonl")
        outcomes: dict[str, set[float]] = {}
        for r in play:
            outcomes.setdefault(r["key"], set()).add(r["score"])
        flipped = [k for k, v in outcomes.items() if len(v) > 1]
        candidates = {r["candidate"] for r in play}
        pairs = {(r["key"], r["replicate"]) for r in reps}
        # only flipped units, replicate 1 of every flipped unit before any replicate 2,
        # at most half of the generation's 6 select units, each pair by every candidate
        assert {k for k, _ in pairs} <= set(flipped)
        assert len(pairs) == min(3, 2 * len(flipped))
        assert {k for k, x in pairs if x == 1} == set(flipped[:3])
        assert len(reps) == len(pairs) * len(candidates)
        assert all(r["episode"].endswith(f"-x{r['replicate']}") for r in reps)
        checked += bool(reps)
    assert checked >= 2


@pytest.mark.slow  # two self-play runs, one killed (kill -9) and resumed
def test_resume_after_kill_mid_replay_finishes_identically(tmp_path: Path) -> None:
    with ServerThread(ContextEngine(seed=1)) as server:
        bank = seed_bank(tmp_path / "seed.sqlite")
        raw = raw_config(
            server.url,
            bank,
            concurrency=2,
            generations=2,  # the kill lands in generation 0; the resume plays one more
            replay={"fraction": 0.5},
            selection={"replicates": 1},
        )
        cfg = write_config(tmp_path / "sp.yaml", raw)
        whole = selfplay_cli(str(cfg), "--out", str(tmp_path / "whole"), cwd=tmp_path)
        _, err = whole.communicate(timeout=300)
        assert whole.returncode == 0, err
        killed = selfplay_cli(str(cfg), "--out", str(tmp_path / "killed"), cwd=tmp_path)
        # kill -9 while generation 0's replay phase is being played
        target = tmp_path / "killed" / "r0" / "g000" / "replay" / "matches"
        kill_when_recorded(killed, target, 4)
        assert not (tmp_path / "killed" / "r0" / "g000" / "generation.json").exists()
        assert 0 < len(list(target.glob("*.jsonl"))) < 32  # of 64 play games / 2
        resumed = selfplay_cli("--resume", str(tmp_path / "killed"), cwd=tmp_path)
        _, err = resumed.communicate(timeout=300)
        assert resumed.returncode == 0, err
        assert selfplay_fingerprint(tmp_path / "killed") == selfplay_fingerprint(tmp_path / "whole")

        def replays(root: Path) -> list[tuple[str, float]]:
            rows = [r for p in sorted(root.glob("r0/g*/replay/units.jsonl")) for r in _rows(p)]
            return [(r["episode"], r["prefix_key"], r["score"]) for r in rows]

        assert replays(tmp_path / "killed") == replays(tmp_path / "whole")
        assert replays(tmp_path / "whole")


def test_replays_play_in_this_process_whatever_executor_the_command_chose(
    tmp_path: Path,
) -> None:
    class Remote(AsyncioExecutor):
        """Stands in for an executor that deals every match from its spec elsewhere."""

        name = "remote"
        taken: list[str] = []

        async def run_specs(self, tournament: Any, todo: Any, *args: Any) -> None:
            todo = [s for s in todo]
            Remote.taken += [s.match_id for s in todo]
            await super().run_specs(tournament, todo, *args)

    with use_executor(Remote()):
        root = _run(tmp_path, "sp", generations=2, replay={"fraction": 0.25})
    rows = _rows(root / "g000" / "replay" / "units.jsonl")
    assert len(rows) == 7 and all(r["status"] == "finished" for r in rows)
    assert any(t.startswith("play-") for t in Remote.taken)
    assert not [t for t in Remote.taken if t.startswith("replay-")]
