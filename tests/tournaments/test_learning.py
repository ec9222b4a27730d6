"""Learning during a tournament: blocks of K matches read the version the previous fold left,
folds are in match-identity order, and a run killed with SIGKILL and resumed ends with the
same hash chain as an uninterrupted one."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import yaml

from arena.llm.fakes.directives import DirectiveEngine
from arena.llm.server import ServerThread
from arena.memory import Bank
from arena.memory.learn import BASE, folds
from arena.memory.trajectory import load_events
from tests.arena.memory.directed import RUN_ID, learning_config, run_in_process

ROOT = Path(__file__).resolve().parents[2]


def chain(bank: Path) -> list[str]:
    return [op.hash for op in Bank(bank).ops()]


def test_blocks_read_the_previous_fold_and_the_same_run_gives_the_same_bank(
    tmp_path: Path,
) -> None:
    with ServerThread(DirectiveEngine(seed=1)) as server:
        a = tmp_path / "a.sqlite"
        run_dir = run_in_process(learning_config(server.url, a, tmp_path / "ra"))
        b = tmp_path / "b.sqlite"
        run_in_process(learning_config(server.url, b, tmp_path / "rb"))
    bank = Bank(a)
    markers = folds(bank, RUN_ID)
    assert sorted(markers) == [BASE, 0, 1, 2, 3]
    assert all(len(markers[k].payload["matches"]) == 4 for k in range(4))
    pins = {k: markers[k - 1].version for k in range(4)}
    for path in sorted((run_dir / "matches").glob("*.jsonl")):
        events = load_events(path)
        index = next(e for e in events if e.type == "match_start").match_id
        block = sorted(p.stem for p in (run_dir / "matches").glob("*.jsonl")).index(index) // 4
        (record,) = [e.payload["memory"] for e in events if "memory" in e.payload]
        assert record["version"] == pins[block]
    texts = {i.text for i in bank.at().insights()}
    assert texts and all(t.startswith(("Avoid ", "Prefer ")) for t in texts)
    assert bank.verify().ok
    assert chain(a) == chain(b)


def test_a_killed_learning_run_resumes_to_the_same_hash_chain(tmp_path: Path) -> None:
    engine = DirectiveEngine(seed=1, latency="const:0.03")  # slow enough to be killed midway
    with ServerThread(engine) as server:
        ref = tmp_path / "ref.sqlite"
        run_in_process(learning_config(server.url, ref, tmp_path / "rref", matches=24))
        bank = tmp_path / "bank.sqlite"
        raw = learning_config(server.url, bank, tmp_path / "runs", matches=24)
        cfg = tmp_path / "learn.yaml"
        cfg.write_text(yaml.safe_dump(raw), encoding="utf-8")
        env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
        cmd = [sys.executable, "-m", "app.cli", "run", str(cfg), "--run-id", RUN_ID]
        child = subprocess.Popen(
            cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and child.poll() is None:
            if bank.exists() and len(folds(Bank(bank), RUN_ID)) >= 3:  # base + two blocks
                break
            time.sleep(0.05)
        assert child.poll() is None, "the run ended before it could be killed"
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=60)
        killed_at = len(folds(Bank(bank), RUN_ID))
        assert 3 <= killed_at < 7  # base + 6 blocks when complete
        resume = [
            sys.executable,
            "-m",
            "app.cli",
            "run",
            "--resume",
            str(tmp_path / "runs" / RUN_ID),
        ]
        done = subprocess.run(
            resume, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
        )
        assert done.returncode == 0, done.stderr[-2000:]
    assert sorted(folds(Bank(bank), RUN_ID)) == [BASE, 0, 1, 2, 3, 4, 5]
    assert chain(bank) == chain(ref)
    assert Bank(bank).at().to_json() == Bank(ref).at().to_json()


def test_sixteen_concurrent_learning_matches_read_whole_pinned_versions(tmp_path: Path) -> None:
    """16 matches in flight per block while another writer keeps appending whole updates to
    the same namespace: every prompt's block is exactly a pinned version's, rebuilt from the log."""
    import threading

    from arena.llm.prompt import BLOCK_CLOSE, BLOCK_OPEN
    from arena.memory import Draft
    from arena.memory.inject import replay_block

    bank_path = tmp_path / "bank.sqlite"
    Bank(bank_path).add("dealornodeal", "Avoid walk_away: a deal beats no deal.")
    stop = threading.Event()
    wrote: list[int] = []
    failed: list[BaseException] = []

    def other_writer() -> None:  # three adds per transaction, none of them a directive
        bank, n = Bank(bank_path), 0
        try:
            while not stop.is_set():
                bank.write(
                    [Draft("add", "dealornodeal", {"text": f"Filler {n}-{j}."}) for j in range(3)]
                )
                n += 1
                # paced: a few hundred transactions interleave with the matches' reads (an
                # unpaced writer took a core from them and the test took 60 s, not 13)
                stop.wait(0.005)
        except BaseException as err:  # a write lock held too long would show up here
            failed.append(err)
        wrote.append(n)

    engine = DirectiveEngine(seed=1, latency="const:0.005")
    engine.keep_requests = True
    writer = threading.Thread(target=other_writer)
    with ServerThread(engine) as server:
        raw = learning_config(server.url, bank_path, tmp_path / "runs", matches=32, every=16)
        raw["concurrency"] = 16
        writer.start()
        try:
            run_dir = run_in_process(raw)
        finally:
            stop.set()
            writer.join(timeout=60)
    assert not failed and wrote and wrote[0] > 0
    bank = Bank(bank_path)
    pins = {k: op.version for k, op in folds(bank, RUN_ID).items()}
    blocks = {}
    for path in sorted((run_dir / "matches").glob("*.jsonl")):
        (record,) = [e.payload["memory"] for e in load_events(path) if "memory" in e.payload]
        assert record["version"] in (pins[BASE], pins[0])
        whole = bank.at(record["version"]).insights(record["namespace"])
        assert record["ids"] == [i.id for i in sorted(whole, key=lambda i: (-i.support, i.created))]
        blocks[record["version"]] = replay_block(record)
    assert set(blocks) == {pins[BASE], pins[0]}
    sent = set()
    for body in engine.requests:
        system = body["messages"][0]["content"]
        start = system.find("Insights from your earlier games")
        if start >= 0:
            sent.add(system[start : system.index(BLOCK_CLOSE) + len(BLOCK_CLOSE)])
    assert sent == set(blocks.values()) and all(BLOCK_OPEN in b for b in sent)
    assert bank.verify().ok


def test_the_head_of_every_fold_is_recorded_and_catches_a_truncated_bank(
    tmp_path: Path, capsys
) -> None:
    import json
    import sqlite3

    from app.cli import main

    bank = tmp_path / "bank.sqlite"
    with ServerThread(DirectiveEngine(seed=1)) as server:
        raw = learning_config(server.url, bank, tmp_path / "runs", matches=8, every=4)
        cfg = tmp_path / "learn.yaml"
        cfg.write_text(yaml.safe_dump(raw), encoding="utf-8")
        argv = ["run", str(cfg), "--run-id", RUN_ID, "--no-broker", "--no-metrics", "--quiet"]
        assert main(argv) == 0
    out = capsys.readouterr().out
    markers = folds(Bank(bank), RUN_ID)
    last = markers[1]  # the second (last) block's fold marker
    record = tmp_path / "runs" / RUN_ID / "banks" / "bank.head.json"
    head = json.loads(record.read_text(encoding="utf-8"))
    assert (head["version"], head["head_hash"]) == (last.version, last.hash)
    assert head["bank"] == str(bank.resolve())
    assert last.hash in out.replace("\n", "")  # printed at the end of the run
    assert main(["memory", "verify", str(bank), "--expect", str(record)]) == 0
    assert main(["memory", "verify", str(bank), "--expect", last.hash]) == 0
    # the newest rows cut off (triggers dropped first): the chain that is left is intact
    conn = sqlite3.connect(bank)
    conn.execute("DROP TRIGGER ops_append_only_delete")
    conn.execute("DELETE FROM ops WHERE version > ?", (markers[0].version,))
    conn.commit()
    conn.close()
    capsys.readouterr()
    assert main(["memory", "verify", str(bank)]) == 0
    assert main(["memory", "verify", str(bank), "--expect", str(record)]) == 1
    said = capsys.readouterr().out
    assert f"version {last.version}" in said and "truncated" in said, said
    # resuming the run against the cut-back bank is refused before anything plays
    assert main(["run", "--resume", str(tmp_path / "runs" / RUN_ID), "--no-broker"]) == 2
    assert "truncated" in capsys.readouterr().err
