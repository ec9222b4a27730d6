"""Adversarial agents in every registered game (issue 15, untrusted text).

An :class:`InjectingAgent` plays legally (a seeded random policy) but says nothing ordinary:
every message is an injection string (a forged block closer, engine line or system tag; ANSI,
OSC and CSI escapes; bidi overrides; NUL and other controls; Rich markup; malformed JSON), and
before every valid answer it sends one that must be refused (oversized, malformed or hostile
JSON). Three things are checked for every game:

* prompts: an LLM seat (the scripted loopback server, requests kept) receives the hostile text
  only quoted and sanitised — one line starting with the speaker's name, no control or bidi
  character, no second ``</transcript>``, no line that reads as the engine's or the system's;
* terminals: ``arena replay --print``, ``arena show`` and the TUI's transcript lines carry no
  ESC (nor any other control), and show the escapes as visible stand-ins;
* game state: the same seeds with the same actions but plain words instead of the injections
  give the same phases, decisions, winners and rewards — the engines ignore injected text.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from arena import registry
from arena.agents.llm_agent import LLMAgent
from arena.llm.fakes.scripted import ScriptedEngine
from arena.llm.server import ServerThread
from arena.results import MatchSpec
from arena.sinks import JsonlSink, read_jsonl
from arena.store import Store
from arena.untrusted import is_clean
from tests.games.adversarial import (
    INJECT_MARK,
    INJECT_SEED,
    InjectingAgent,
    injecting_agents,
    play_injected,
)
from tests.games.played import Played

GAMES = sorted(registry.games())


def _state(p: Played) -> dict[str, Any]:
    """What the game made of the match, without anyone's words."""
    notes = ("invalid_action", "fallback", "llm_call", "decision")
    return {
        "refused": [
            (e.actor, e.payload["decision"], e.payload["attempt"])
            for e in p.events
            if e.type == "invalid_action"
        ],
        "fallbacks": [(e.actor, e.payload.get("action")) for e in p.events if e.type == "fallback"],
        "status": p.result.status,
        "outcome": p.result.outcome,
        "winners": p.result.winners,
        "rewards": [s.reward for s in p.result.seats],
        "events": [
            (e.type, e.phase, e.actor, e.visibility.scope, e.audience)
            for e in p.events
            if e.type not in notes
        ],
        "decisions": [
            (e.actor, e.payload.get("kind"), e.payload["action"].get("choices"))
            for e in p.events
            if e.type == "decision"
        ],
    }


@pytest.fixture(scope="module")
def adversarial() -> dict[str, Played]:
    """One match per game: injecting agents on even seats, random agents on odd seats."""
    return {game: play_injected(game, injecting_agents(game, inject=True)) for game in GAMES}


@pytest.mark.parametrize("game", GAMES)
def test_injected_text_changes_no_game_state(game: str, adversarial: dict[str, Played]) -> None:
    hostile = adversarial[game]
    agents = [a for a in hostile.agents if isinstance(a, InjectingAgent)]
    spoken = [e for e in hostile.events if e.speech is not None and INJECT_MARK in e.speech.body]
    assert spoken, "the adversaries' hostile words were accepted as speech"
    refused = hostile.of_type("invalid_action")
    assert len(refused) >= sum(a.refusals for a in agents) > 0, "every hostile answer refused"
    plain = play_injected(game, injecting_agents(game, inject=False))
    assert _state(hostile) == _state(plain)


# -- prompts ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def server() -> Iterator[tuple[ScriptedEngine, str]]:
    engine = ScriptedEngine(seed=1, keep_requests=True)
    with ServerThread(engine) as srv:
        yield engine, srv.url


def _prefix(names: list[str], adversaries: set[int]) -> re.Pattern[str]:
    """A rendered line of an adversary: optional channel, its name, then its mark or arrow."""
    who = "|".join(re.escape(names[s]) for s in sorted(adversaries))
    return re.compile(rf"^(?:\[[^\]]+\] )?(?:{who})(?: \(|: | → )")


@pytest.mark.parametrize("game", GAMES)
def test_llm_prompts_hold_hostile_text_only_quoted(
    game: str, server: tuple[ScriptedEngine, str]
) -> None:
    engine, url = server
    llm = LLMAgent(name="llm", backend={"base_url": url, "model": "scripted", "timeout_s": 30.0})
    engine.requests.clear()
    played = play_injected(game, injecting_agents(game, inject=True, llm=llm))
    assert played.result.status == "finished", played.result.reason
    names = played.engine.names
    adversaries = {s for s, a in enumerate(played.agents) if isinstance(a, InjectingAgent)}
    own_line = _prefix(names, adversaries)
    requests = list(engine.requests)
    assert requests, "the LLM seat was asked"
    seen = 0
    for body in requests:
        for message in body["messages"]:
            content = str(message["content"])
            if message["role"] == "system":
                assert INJECT_MARK not in content
            assert content.count("</transcript>") <= 1 and content.count("<transcript>") <= 1
            for bad in ("<|im_start|>", "<|im_end|>", "<system>", "</system>"):
                assert bad not in content
            for line in content.split("\n"):
                assert is_clean(line), (game, line)
                assert not line.startswith(("Game over: the wolves", "[system]")), line
                if INJECT_MARK in line:
                    seen += 1
                    assert own_line.match(line), (game, line)
    assert seen, f"{game}: the LLM seat saw the adversaries' words"


# -- terminals --------------------------------------------------------------------------
def _record(game: str, tmp: Path) -> tuple[Path, Played]:
    """The adversarial match written as a run: JSONL record and results store."""
    run = tmp / "runs" / f"adv-{game}"
    match_id = f"{game}-{INJECT_SEED}"
    path = run / "matches" / f"{match_id}.jsonl"
    path.parent.mkdir(parents=True)
    played = play_injected(game, injecting_agents(game, inject=True), sinks=[JsonlSink(path)])
    store = Store(run / "arena.sqlite")
    store.create_run(f"adv-{game}", "adv", game, {"game": game})
    seats = [a.name or f"s{i}" for i, a in enumerate(played.agents)]
    store.plan([MatchSpec(match_id=match_id, game=game, seed=INJECT_SEED, seats=seats)])
    result = played.result.model_copy(update={"jsonl": str(path.relative_to(run))})
    store.write_result(result)
    store.close()
    return path, played


def _assert_terminal_safe(out: str) -> None:
    assert INJECT_MARK in out
    assert "\x1b" not in out and "\x9b" not in out and "\x00" not in out and "\r" not in out
    assert all(is_clean(line) for line in out.split("\n")), out


@pytest.mark.parametrize("game", GAMES)
def test_replay_show_and_tui_lines_print_no_escape(
    game: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from app.cli import main
    from tui.match_model import MatchModel
    from tui.render import event_line

    path, played = _record(game, tmp_path)
    assert main(["replay", str(path), "--print"]) == 0
    out = capsys.readouterr().out
    _assert_terminal_safe(out)
    if "INJ2" in out:
        assert "␛[2J" in out  # the escape is shown, not obeyed
    assert main(["replay", str(path), "--print", "--seat", "0"]) == 0
    _assert_terminal_safe(capsys.readouterr().out)
    run = path.parent.parent
    assert main(["show", path.stem, "--run", str(run), "--lines", "400"]) == 0
    _assert_terminal_safe(capsys.readouterr().out)
    # the TUI's transcript lines: no control in the text, Rich markup shown as written
    model = MatchModel(path.stem)
    events = list(read_jsonl(path))
    for e in events:
        model.add(e)
    lines = [event_line(e, model, seat=seat) for e in events for seat in (None, 0)]
    text = "\n".join(t.plain for t in lines)
    _assert_terminal_safe(text)
    if any("INJ5" in t.plain for t in lines):
        assert "[bold red]markup[/bold red]" in text
    console = Console(record=True, width=200, color_system=None, file=io.StringIO())
    for t in lines:
        console.print(t)
    _assert_terminal_safe(console.export_text())
