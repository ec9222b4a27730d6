"""A whole tournament with remote seats gives the records of the same agents in process.

Per game family, the same config is run twice: once with the entries' own kinds, once with
every entry a ``kind: remote`` agent served by the reference server on 127.0.0.1 (one server
per entry, serving that entry's kind). The results and every match record are the same apart
from timing fields and the seat's agent kind (``remote``); a resume of the remote run plays
only what is missing."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.remote.server import AgentServer, ServerThread, kind_factory
from arena.sinks import read_jsonl
from arena.store import Store
from tournaments import config as tconfig
from tournaments.executor import Tournament
from tournaments.export.rows import match_rows

FAMILIES: dict[str, dict[str, Any]] = {
    "werewolf": {
        "game": "werewolf",
        "rules": {"preset": "classic8"},
        "agents": [{"name": "rule", "kind": "werewolf.rule"}, {"name": "rnd", "kind": "random"}],
        "lineups": [{"vs": ["rule", "rnd"]}],
        "matches": 2,
    },
    "avalon": {
        "game": "avalon",
        "rules": {"n_players": 5},
        "agents": [
            {"name": "rule", "kind": "avalon.rule"},
            {"name": "rnd", "kind": "avalon.random"},
        ],
        "lineups": [{"vs": ["rule", "rnd"]}],
        "matches": 2,
    },
    "negotiation": {
        "game": "dealornodeal",
        "agents": [
            {"name": "boulware", "kind": "dealornodeal.boulware", "params": {"slip": 0.3}},
            {"name": "conceder", "kind": "dealornodeal.conceder"},
        ],
        "matches": 3,
    },
    "persona": {
        "game": "persona_dialogue",
        "agents": [
            {"name": "reader", "kind": "persona_dialogue.card_reader", "params": {"slip": 0.5}},
            {"name": "evader", "kind": "persona_dialogue.evader"},
        ],
        "matches": 2,
    },
}
TIMING = ("duration_s",)


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, ServerThread]]:
    """One agent server per (kind, params) the families use."""
    out: dict[str, ServerThread] = {}
    for raw in FAMILIES.values():
        for entry in raw["agents"]:
            key = f"{entry['kind']}{entry.get('params')}"
            if key not in out:
                made = AgentServer(kind_factory(entry["kind"], entry.get("params")))
                out[key] = ServerThread(made).start()
    yield out
    for s in out.values():
        s.stop()


def remote(raw: dict[str, Any], servers: dict[str, ServerThread]) -> dict[str, Any]:
    agents = [
        {"name": e["name"], "kind": "remote",
         "params": {"url": servers[f"{e['kind']}{e.get('params')}"].url}}
        for e in raw["agents"]
    ]  # fmt: skip
    return {**raw, "agents": agents}


def run(raw: dict[str, Any], out: Path, run_id: str = "run") -> tuple[Path, list[Any]]:
    config = tconfig.parse({"master_seed": 5, "concurrency": 4, **raw, "output_dir": str(out)})
    run_dir = out / run_id
    results = asyncio.run(Tournament(config, run_dir, run_id).run())
    return run_dir, results


def records(run_dir: Path) -> dict[str, list[dict[str, Any]]]:
    """Every match record without timing fields and without the agents' kinds."""
    out: dict[str, list[dict[str, Any]]] = {}
    for path in sorted((run_dir / "matches").glob("*.jsonl")):
        events = []
        for e in read_jsonl(path):
            data = e.comparable()
            data["payload"].pop("kinds", None)  # "remote" there, by design
            events.append(data)
        out[path.name] = events
    return out


def rows(results: list[Any]) -> list[dict[str, Any]]:
    return [r.model_dump(exclude=set(TIMING)) for r in results]


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_remote_seats_play_the_same_tournament_as_in_process(
    family: str, servers: dict[str, ServerThread], tmp_path: Path
) -> None:
    raw = FAMILIES[family]
    local_dir, local = run(raw, tmp_path / "local")
    remote_dir, far = run(remote(raw, servers), tmp_path / "remote")
    assert all(r.status == "finished" for r in far), [r.reason for r in far]
    assert rows(far) == rows(local)
    assert records(remote_dir) == records(local_dir)
    for result in far:  # what the TUI, the exports and the boards show as the seat's kind
        path = remote_dir / "matches" / f"{result.match_id}.jsonl"
        truth = next(e for e in read_jsonl(path) if e.type == "ground_truth")
        assert set(truth.payload["kinds"].values()) == {"remote"}
        exported = list(match_rows(read_jsonl(path), result))
        assert exported and {r["agent_kind"] for r in exported} == {"remote"}


def test_a_resumed_remote_run_plays_only_the_missing_matches(
    servers: dict[str, ServerThread], tmp_path: Path
) -> None:
    raw = remote(FAMILIES["negotiation"], servers)
    run_dir, first = run(raw, tmp_path)
    store = Store(run_dir / "arena.sqlite")
    try:  # as if the run had been killed before the last match's result was written
        last = first[-1].match_id
        store.db.execute("DELETE FROM seats WHERE match_id = ?", (last,))
        store.db.execute("UPDATE matches SET status = 'planned' WHERE match_id = ?", (last,))
        store.db.commit()
    finally:
        store.close()
    (run_dir / "matches" / f"{last}.jsonl").unlink()
    _, again = run(raw, tmp_path)
    assert rows(again) == rows(first)
