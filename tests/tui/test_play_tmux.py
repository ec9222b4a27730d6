"""`arena play` in a real terminal (tmux): the command's own path, keys typed, exit code read."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from tests.tui.tmux import ARENA, ROOT, tmux, wait_screen

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux not installed"),
]

CONFIG = """\
name: playsmoke
game: dealornodeal
agents:
  - {name: boulware, kind: dealornodeal.boulware}
master_seed: 4
policy: {retries: 1, fallback: random_legal, timeout_s: 600}
"""


def test_arena_play_in_a_real_terminal_plays_a_match_and_exits_0(tmp_path: Path) -> None:
    (tmp_path / "play.yaml").write_text(CONFIG)
    env = f"cd {ROOT} && TERM=xterm-256color "
    try:
        tmux("new-session", "-d", "-s", "play", "-x", "150", "-y", "45",
             env + f"{ARENA} play {tmp_path / 'play.yaml'} --seat 1 --output {tmp_path} "
             "--run-id p1; echo EXIT=$?; sleep 30")  # fmt: skip
        text = wait_screen("play", "(seat 1)", "your decision", "Walk away")
        assert "what only you know" in text and "you: valuation" in text
        assert "propose:" not in text and '{"' not in text  # words, not the agents' protocol
        tmux("send-keys", "-t", "play", "a")  # walk away: the match ends at once
        # the end screen: who won (nobody), the game's reason, every seat's role
        text = wait_screen("play", "Match over", "No winner: walk away", "human (a person)")
        assert "boulware" in text
        tmux("send-keys", "-t", "play", "q")
        text = wait_screen("play", "EXIT=0")
        assert "Leaderboard" in text
    finally:
        tmux("kill-server")
    db = sqlite3.connect(tmp_path / "p1" / "arena.sqlite")
    try:
        (status,) = db.execute("SELECT status FROM matches").fetchone()
    finally:
        db.close()
    assert status == "finished"
