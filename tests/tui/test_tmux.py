"""Smoke test in a real terminal: `arena run --tui` and `arena watch` under tmux, screen read back."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from tests.tui.tmux import ARENA, screen, tmux, wait_screen

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux not installed"),
]

ROOT = Path(__file__).resolve().parents[2]
# Far more matches than the test watches (quitting mid-run is part of the test): a fast machine
# must not finish the run before the test presses q.
CONFIG = """\
name: smoke
game: toy
rules: {n_players: 5, rounds: 10}
agents:
  - {name: chatty, kind: random, params: {p_speak: 0.9}}
  - {name: quiet, kind: random, params: {p_speak: 0.2}}
matches: 5000
concurrency: 4
master_seed: 3
"""


def test_live_tui_and_watch_in_a_real_terminal(tmp_path: Path) -> None:
    (tmp_path / "smoke.yaml").write_text(CONFIG)
    run_dir = tmp_path / "runs" / "smoke1"
    env = f"cd {ROOT} && TERM=xterm-256color "
    try:
        tmux("new-session", "-d", "-s", "run", "-x", "150", "-y", "45",
             env + f"{ARENA} run {tmp_path / 'smoke.yaml'} --output {tmp_path / 'runs'} "
             f"--run-id smoke1 --tui; sleep 30")  # fmt: skip
        # the first match row comes a poll after the run's status: wait for it, do not race it
        wait_screen("run", "smoke1", "running", "TrueSkill μ ± σ", "toy-r0-m")
        assert (run_dir / "broker.json").exists()
        tmux("new-session", "-d", "-s", "watch", "-x", "150", "-y", "45",
             env + f"{ARENA} watch {run_dir}; sleep 30")  # fmt: skip
        wait_screen("watch", "smoke1", "events/s", "toy-r0-m")
        # open the most active match, view as seat 1, then the help overlay
        tmux("send-keys", "-t", "watch", "r")
        # the match screen with its phase headers (the match may be in any round, or over)
        wait_screen("watch", "view spectator", "── ")
        tmux("send-keys", "-t", "watch", "v")
        wait_screen("watch", "view as P0")
        tmux("send-keys", "-t", "watch", "?")
        wait_screen("watch", "keys", "follow")
        tmux("send-keys", "-t", "watch", "Escape")
        tmux("send-keys", "-t", "watch", "Escape")
        wait_screen("watch", "μ history")
        # quitting the live TUI mid-run leaves a resumable run and prints how
        tmux("send-keys", "-t", "run", "q")
        wait_screen("run", "arena run --resume")
        tmux("send-keys", "-t", "watch", "q")
        deadline = time.monotonic() + 120
        while "μ history" in screen("watch"):  # the app leaves the screen when it quits
            assert time.monotonic() < deadline, "arena watch did not quit on q"
            time.sleep(0.3)
    finally:
        tmux("kill-server")


def test_hostile_speech_cannot_wipe_the_replay_screen(tmp_path: Path) -> None:
    """Issue 15: a message holding ``ESC[2J`` wiped the replay screen in a real terminal; it is
    shown as ``␛[2J`` now (markup in messages: tests/tui/test_app.py, with Pilot)."""
    from arena.sinks import JsonlSink
    from tests.games.adversarial import injecting_agents, play_injected

    record = tmp_path / "hostile.jsonl"
    play_injected("avalon", injecting_agents("avalon", inject=True), sinks=[JsonlSink(record)])
    env = f"cd {ROOT} && TERM=xterm-256color "
    try:
        tmux("new-session", "-d", "-s", "replay", "-x", "150", "-y", "45",
             env + f"{ARENA} replay {record}; sleep 30")  # fmt: skip
        wait_screen("replay", "avalon-7", "view spectator")
        tmux("send-keys", "-t", "replay", "G")
        wait_screen("replay", "Match over")
        # show only the line with the escapes: it is on screen as text
        tmux("send-keys", "-t", "replay", "/")
        # type only once the box is up and focused: keys sent before land on the transcript
        wait_screen("replay", "search (enter")
        tmux("send-keys", "-t", "replay", "-l", "INJ2")
        wait_screen("replay", "INJ2")
        tmux("send-keys", "-t", "replay", "Enter")
        text = wait_screen("replay", "INJ2 ␛[2J␛[H␛]0;pwned")
        assert "avalon-7" in text  # the title survived: nothing cleared the screen
    finally:
        tmux("kill-server")
