"""Hidden-information fuzz: thousands of seeded random games, every seat's view checked.

The audience of every event is recomputed here from the contract (independently of the
engine's visibility field) and every view a seat can get — visible_log, rendered text and
state — is checked against it at every decision.
"""

from __future__ import annotations

import random
import re

import pytest

from arena import transcript as lines
from games.werewolf.rules import WerewolfEngine
from tests.games.werewolf.fuzz import random_rules
from tests.games.werewolf.helpers import random_answer

PUBLIC = {
    "setup", "phase", "dawn", "turn", "message", "vote_result", "exile", "last_words",
    "hunter_shot", "game_over", "tick",
}  # fmt: skip
WOLF_TEAM = {"wolf_team", "wolf_message", "wolf_vote", "wolf_target", "wolf_retry"}
GOD = {"death", "poll", "belief"}
MARKERS = ("[god]", "[wolves]", "Your inspection", "You used", "Tonight the wolves", "bids ")


def audience(e: WerewolfEngine, ev) -> set[int]:  # type: ignore[no-untyped-def]
    """Seats allowed to see ``ev`` by the contract."""
    everyone = set(range(e.n_seats))
    t, p = ev.type, ev.payload
    if t in PUBLIC:
        return everyone
    if t in GOD:
        return set()
    if t in WOLF_TEAM:
        return set(e.wolves)
    if t == "role":
        return {p["seat"]}
    if t == "protect":
        return {p["seat"]} & {s for s in everyone if e.role[s] in ("doctor", "guard")}
    if t in ("witch_info", "witch_action"):
        return {s for s in everyone if e.role[s] == "witch"}
    if t == "seer_result":
        return {s for s in everyone if e.role[s] == "seer"}
    if t == "bid":
        return everyone if e.rules.bids_visible else set()
    if t == "ballot":
        return everyone if e.rules.vote_mode == "sequential" else set()
    raise AssertionError(f"event type {t!r} not in the contract")


class Oracle:
    """Incremental record of who may see each event, what each seat may read, and reveals."""

    def __init__(self, e: WerewolfEngine) -> None:
        self.e = e
        self.audience: list[set[int]] = []
        self.index: dict[int, int] = {}
        self.texts: list[set[str]] = [set() for _ in range(e.n_seats)]
        self.reveals: dict[int, str] = {}
        self.views: list[list] = [[] for _ in range(e.n_seats)]  # type: ignore[type-arg]

    def update(self) -> None:
        e = self.e
        for i in range(len(self.audience), len(e.log)):
            ev = e.log[i]
            who = audience(e, ev)
            self.audience.append(who)
            self.index[id(ev)] = i
            for s in range(e.n_seats):
                assert not ev.visibility.visible_to(s) or s in who, (ev.type, s)
            for s in who:  # the line as the seat reads it (its own speech as "You")
                self.texts[s].add(lines.line(ev, s, e.names))
            if ev.type == "dawn":
                self.reveals.update(ev.payload["reveals"])
            elif ev.type in ("exile", "hunter_shot") and ev.payload.get("reveal"):
                key = "seat" if ev.type == "exile" else "target"
                self.reveals[ev.payload[key]] = ev.payload["reveal"]


def check_views(e: WerewolfEngine, oracle: Oracle, deciding: list[int]) -> None:
    # Every seat's log view and state are re-checked whenever the log grew (a buffered
    # simultaneous answer changes neither); the deciding seat's rendered text always.
    grew = len(e.log) > len(oracle.audience) or not oracle.audience
    oracle.update()
    for s in range(e.n_seats) if grew else ():
        cut = None if e.rules.dead_observe else e.cutoff.get(s)
        seen = e.visible_log(s)
        before = oracle.views[s]
        assert seen[: len(before)] == before  # a view only ever grows (identity compare)
        oracle.views[s] = seen
        for ev in seen[len(before) :]:
            i = oracle.index[id(ev)]
            assert s in oracle.audience[i], (ev.type, s)
            if cut is not None and i >= cut:
                assert ev.actor == s or ev.visibility.scope == "private" or ev.type == "game_over"
        check_state(e, oracle, s)
    for s in deciding:
        text = e.render(s)
        head, transcript = text.split("\nTranscript:\n", 1)
        transcript = transcript.split("\n\nYour decision:", 1)[0]
        allowed = oracle.texts[s]
        for line in transcript.split("\n"):
            assert not line or line in allowed, (s, line)
        for m in MARKERS:
            assert m not in head
        if e.role[s] != "werewolf":
            assert "fellow wolves" not in head


def check_state(e: WerewolfEngine, oracle: Oracle, s: int) -> None:
    st = e.state(s)
    assert st["me"] == s and st["role"] == e.role[s]
    if e.result is None:
        assert "roles" not in st
    if e.role[s] != "werewolf":
        assert "wolves" not in st
    if e.role[s] != "seer":
        assert "seer_results" not in st
    for t, r in st["revealed"].items():
        assert oracle.reveals.get(t) == r


def check_menu(e: WerewolfEngine, s: int, menu: list[str]) -> None:
    """A speech menu names only living others; it says "X is (not) a wolf." only where the
    seat's own inspection found it, and proposes an attack only to a wolf, on a non-wolf."""
    found = e.seer_results.get(s, {})
    seat_of = {e.n(t): t for t in range(e.n_seats)}
    for sentence in menu:
        m = re.fullmatch(r"I suspect (.+)\.|(.+) is (not )?a wolf\.|Let us take (.+) tonight\.",
                         sentence)  # fmt: skip
        assert m is not None, sentence
        t = seat_of[m.group(1) or m.group(2) or m.group(4)]
        if m.group(4) is not None:
            assert s in e.wolves and t not in e.wolves, (s, sentence)
        assert t != s and e.alive[t], (s, sentence)
        if m.group(2) is not None:  # an inspection's result
            wolf = found.get(t) in ("wolf", "werewolf")
            assert t in found and wolf == (m.group(3) is None), (s, sentence, found)


def run_game(seed: int) -> None:
    rng = random.Random(seed)
    rules = random_rules(rng)
    e = WerewolfEngine(rules, seed=seed)
    oracle = Oracle(e)
    steps = 0
    while not e.is_over():
        seat = rng.choice(e.pending())
        check_views(e, oracle, [seat])
        d = e.decision(seat)
        check_menu(e, seat, d.menu)
        if d.kind == "belief" and rng.random() < 0.5:
            answer = {"belief": {str(t): rng.random() for t in range(e.n_seats)}}
        else:
            answer = random_answer(rng, d, p_speak=0.3)
        e.apply(seat, answer)
        steps += 1
        assert steps < 5000
    check_views(e, oracle, [])


@pytest.mark.slow
def test_no_secret_leaks_in_2000_random_games() -> None:
    for seed in range(2000):
        run_game(seed)


def test_no_secret_leaks_quick() -> None:
    for seed in range(100_000, 100_040):
        run_game(seed)
