"""Only the seat's view leaves the process: a leak fuzz over every registered game and variant.

Each case is played twice with the same seed: once with in-process agents, once with every seat
a ``kind: remote`` agent served by the reference server on 127.0.0.1. Both sides use the same
taping agent (it answers on every channel a decision offers, so team channels, side messages and
private acts all happen) and keep what each seat was given: the observation (events, private
facts, state, error, rendered text), the decision, and at the end the final view.

* the remote seat's tape equals the in-process seat's tape, item by item;
* every event a seat received is delivered to it by the record's own audience, and is the
  record's view of that seat in order; every private fact it got is one it may know.

The second check does not trust the runner: it fails when the runner is made to send a god
event (``test_the_fuzz_catches_a_runner_that_sends_a_god_event``).
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from pydantic_core import to_jsonable_python

from arena import registry
from arena.agents import factory
from arena.agents.base import Agent, MatchContext
from arena.events import Event
from arena.remote.server import AgentServer, ServerThread
from arena.results import InvalidActionPolicy, MatchSpec
from arena.runner import MatchRunner
from arena.types import Action, Decision, Observation
from tests.games.test_conformance_views import CASES, IDS, answer

POLICY = InvalidActionPolicy(timeout_s=None)
Tapes = dict[tuple[str, int], list[dict[str, Any]]]


def seen(obs: Observation, decision: Decision | None) -> dict[str, Any]:
    """What a seat was given, as JSON (the form that crosses the wire)."""
    return {
        "seat": obs.seat,
        "phase": obs.phase,
        "text": obs.text,
        "events": [e.comparable() for e in obs.events],  # without wall-clock stamps
        "private": [f.model_dump(mode="json") for f in obs.private],
        "state": to_jsonable_python(obs.state),
        "error": obs.error,
        "decision": None if decision is None else decision.model_dump(mode="json"),
    }


class Taping(Agent):
    """Answers on every channel it is offered; keeps what it was given."""

    def __init__(self, name: str, tapes: Tapes) -> None:
        super().__init__(name)
        self.tapes = tapes
        self.rng = random.Random(0)

    def reset(self, context: MatchContext) -> None:
        super().reset(context)
        self.rng = random.Random(context.seed)
        self.tape = self.tapes.setdefault((context.match_id, context.seat), [])
        self.tape.append({"context": context.model_dump(mode="json")})

    async def act(self, observation: Observation, decision: Decision) -> Action:
        self.tape.append(seen(observation, decision))
        return answer(self.rng, decision)

    async def match_over(self, observation: Observation, outcome: dict[str, Any]) -> None:
        self.tape.append({"end": seen(observation, None), "outcome": outcome})


def play(game: str, rules: dict[str, Any], seed: int, url: str | None, tapes: Tapes) -> MatchRunner:
    n = registry.engine_class(game)(rules, seed=seed).n_seats
    names = [f"tap{s}" for s in range(n)]
    spec = MatchSpec(
        match_id=f"{game}-{seed}", run_id="leaks", game=game, rules=rules, seed=seed, seats=names
    )
    agents: list[Agent] = [
        Taping(name, tapes)
        if url is None
        else factory.build(name, "remote", game, {"url": url, "timeout_s": 60})
        for name in names
    ]
    runner = MatchRunner(spec, agents, policy=POLICY)
    result = runner.play()
    assert result.status == "finished", result.reason
    return runner


def leaks(runner: MatchRunner, tapes: Tapes) -> list[str]:
    """What the tapes hold that the seat may not know, checked against the match record."""
    records = runner.engine_records  # the stamped engine events (the runner's are god-only)
    found: list[str] = []
    for seat in range(runner.engine.n_seats):
        view = [e.comparable() for e in records if e.delivered_to(seat)]
        for item in tapes[(runner.spec.match_id, seat)]:
            got = item.get("end", item)
            if "events" not in got:
                continue
            events = got["events"]
            for e in events:
                if not Event.model_validate(e).delivered_to(seat):
                    found.append(f"seat {seat} got {e['type']} (seq {e['seq']}) not for it")
            if events != view[: len(events)]:
                found.append(f"seat {seat}: its events are not its view of the record")
            facts = runner.engine.current_facts()
            for fact in got["private"]:
                owner = next((f for f in facts if f.model_dump(mode="json") == fact), None)
                if owner is not None and not owner.known_by(seat):
                    found.append(f"seat {seat} got fact {fact['key']} of seat {fact['owner']}")
    return found


@pytest.fixture(scope="module")
def server() -> Any:
    tapes: Tapes = {}
    agents = AgentServer(lambda start: Taping(start.agent, tapes))
    with ServerThread(agents) as thread:
        yield thread, tapes


@pytest.mark.parametrize(("game", "variant", "rules"), CASES, ids=IDS)
def test_a_remote_seat_receives_exactly_the_in_process_view(
    server: Any, game: str, variant: str, rules: dict[str, Any]
) -> None:
    thread, remote_tapes = server
    local: Tapes = {}
    play(game, rules, 5, None, local)
    runner = play(game, rules, 5, thread.url, remote_tapes)
    remote = {key: remote_tapes.pop(key) for key in local}
    for key, tape in local.items():
        assert remote[key] == tape, key
    assert sum(len(t) for t in local.values()) > runner.engine.n_seats  # decisions were taped
    assert leaks(runner, remote) == []


def test_the_fuzz_catches_a_runner_that_sends_a_god_event(
    server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    def everything(self: MatchRunner, seat: int) -> list[Event]:
        self._sync_log()
        return list(self.recorder.events)  # god-only runner events included

    monkeypatch.setattr(MatchRunner, "seat_events", everything)
    thread, tapes = server
    runner = play("werewolf", {"preset": "classic8"}, 5, thread.url, tapes)
    found = leaks(runner, tapes)
    assert any("ground_truth" in f for f in found), found[:3]
