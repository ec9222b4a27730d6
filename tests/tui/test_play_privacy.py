"""A human seat's screen never shows what its seat may not know (fuzzed over seeds and seats).

At every decision the whole screen (scrolled-out lines included) is read back and checked
against the match record: no other seat's private fact as the side panel would show it, no
text of an event the seat was not delivered, no line of another seat's briefing."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from arena import registry
from arena.types import PrivateFact
from tests.builders import DOND, WEREWOLF
from tests.tui.playing import SIZE, play_app, play_through, screen_text, tournament
from tui.play_text import fact_line, fact_lines
from tui.screens.play import PassScreen, PlayScreen


def _squash(text: str) -> str:
    """Without whitespace: a line the view wrapped still matches."""
    return "".join(text.split())


def _facts_at(events: list[dict[str, Any]], seq: int) -> list[PrivateFact]:
    """Every seat's facts as the record's fact timeline has them at ``seq``."""
    facts: dict[tuple[int, str, str], PrivateFact] = {}
    for e in events:
        if e["seq"] > seq:
            break
        if e["type"] in ("ground_truth", "facts"):
            for raw in e["payload"]["facts"]:
                f = PrivateFact.model_validate(raw)
                facts[(f.owner, f.kind, f.key)] = f
    return list(facts.values())


def _delivered(event: dict[str, Any], seat: int) -> bool:
    from arena.events import Event

    return Event.model_validate(event).delivered_to(seat)


CASES = [
    ("werewolf", WEREWOLF, 11, 0),
    ("werewolf", WEREWOLF, 12, 4),
    ("werewolf", WEREWOLF, 13, 6),
    ("werewolf", WEREWOLF, 14, 2),
    ("dealornodeal", DOND, 5, 0),
    ("dealornodeal", DOND, 6, 1),
]


@pytest.mark.parametrize(("game", "raw", "seed", "seat"), CASES)
async def test_the_human_screen_never_shows_another_seats_private_facts(
    tmp_path: Path, game: str, raw: dict[str, Any], seed: int, seat: int
) -> None:
    t = tournament(tmp_path, {**raw, "master_seed": seed}, [seat])
    outcome: dict[str, Any] = {}
    app = play_app(t, outcome)
    shots: list[tuple[str, list[PrivateFact], int]] = []

    def snap(screen: Any) -> None:
        if isinstance(screen, PlayScreen):
            obs = screen.request.observation
            assert screen.request.seat == seat
            shots.append((screen_text(screen), list(obs.private), obs.events[-1].seq))
        else:
            assert isinstance(screen, PassScreen)

    async with app.run_test(size=SIZE) as pilot:
        await play_through(pilot, app, random.Random(seed), on_turn=snap)
    assert outcome["results"][0].status == "finished"
    assert shots

    path = next((t.dir.root / "matches").glob("*.jsonl"))
    events = [json.loads(line) for line in path.read_text().splitlines()]
    names = events[0]["payload"]["names"]
    seen_texts = {_squash(e["text"]) for e in events if e.get("text") and _delivered(e, seat)}
    hidden_texts = {
        _squash(e["text"])
        for e in events
        if e.get("text") and not _delivered(e, seat) and _squash(e["text"]) not in seen_texts
    }
    spec = t.specs[0]
    engine = registry.engine_class(game)(spec.rules, seed=spec.seed)
    own = {_squash(line) for line in engine.briefing(seat).splitlines()}
    hidden_briefing = {
        _squash(line)
        for other in range(engine.n_seats)
        if other != seat
        for line in engine.briefing(other).splitlines()
        if _squash(line) and _squash(line) not in own
    }
    assert hidden_briefing
    hid_something = False
    for text, known, last_seq in shots:
        flat = _squash(text)
        # the panel does show the seat's own facts (so the checks below can fail)
        assert all(_squash(line) in flat for line in fact_lines(known, seat, names))
        knows = {(f.owner, f.kind, f.key) for f in known}
        hidden_facts = [
            _squash(fact_line(f, seat, names))
            for f in _facts_at(events, last_seq)
            if not f.known_by(seat) and (f.owner, f.kind, f.key) not in knows
        ]
        hid_something |= bool(hidden_facts)
        assert not [s for s in hidden_facts if s in flat]
        assert not [s for s in hidden_texts if s in flat]
        assert not [s for s in hidden_briefing if s in flat]
        assert "[god]" not in text and "ground_truth" not in text
    assert hid_something  # every case hides some fact from the seat
