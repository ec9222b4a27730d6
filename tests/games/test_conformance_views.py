"""One per-seat view: every consumer's stream for a seat equals the engine's, for every game.

Parametrised over ``arena.registry.games()`` and their variants, so a new game is covered
without touching this file. Seeded matches are played through the runner with an agent that
speaks on every channel it is offered (side messages, team channels, acts); then each
consumer is compared with the engine's own view (``RulesEngine.visible_log``, which reads the
audience fixed at emission):

* the runner's ``Observation.events`` and ``Observation.text``, at every ask;
* the LLM prompt's transcript lines, at every ask (own lines as "You" on every channel);
* the env's observation text, at every step of the same game through the AEC API;
* the metrics' messages and recipients R(t);
* the TUI's "view as seat" (events and rendered lines);
* the MQTT seat topics (in process here; over a real embedded broker in
  ``test_seat_topics_over_a_real_broker_equal_the_engine_views``).

The two regression cases at the end failed before the audience was fixed at emission (a dead
Werewolf seat's topic kept receiving public events; a side message and a wolf's night line
kept the speaker's name in its own prompt).
"""

from __future__ import annotations

import json
import random
from typing import Any

import pettingzoo
import pytest

from arena import registry
from arena.agents.base import Agent
from arena.env import sanitize
from arena.events import Event, GameEvent
from arena.live import topics
from arena.live.bus import Publisher
from arena.live.sink import MqttSink
from arena.live.url import BrokerURL
from arena.llm.prompt import transcript_lines
from arena.metrics.transcript import read_log
from arena.registry import speech_types
from arena.results import InvalidActionPolicy, MatchSpec
from arena.runner import MatchRunner
from arena.sinks import MemorySink
from arena.transcript import lines, speech_line
from arena.types import Action, Decision, Observation
from tests.builders import speaking_answer
from tui.match_model import MatchModel
from tui.render import event_line

CASES = [
    (game, variant, rules)
    for game, info in registry.games().items()
    for variant, rules in (info.variants or {"default": {}}).items()
]
IDS = [f"{g}-{v}" for g, v, _ in CASES]
POLICY = InvalidActionPolicy(timeout_s=None)


class RecordingPublisher(Publisher):
    """Publishes nowhere; keeps (topic, event JSON) in order."""

    def __init__(self) -> None:
        super().__init__(BrokerURL("127.0.0.1", 1))
        self.sent: list[tuple[str, str]] = []

    def publish_event(self, topic: str, event_json: str) -> bool:
        self.sent.append((topic, event_json))
        return True


def own_line(event: GameEvent, seat: int, names: list[str]) -> str:
    """What a seat's own speech must read as: rendered from the actor, "You" as speaker."""
    assert event.speech is not None and event.actor == seat
    return speech_line(seat, event.speech, event.visibility, seat, names)


class Checking(Agent):
    """Answers with :func:`answer` and checks the observation against the engine at each ask.

    The runner turns an exception raised by an agent into a refused answer, so a failed check
    is kept in ``failures`` and asserted after the match."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.runner: MatchRunner | None = None
        self.asks = 0
        self.failures: list[str] = []

    def reset(self, context: Any) -> None:
        super().reset(context)
        self.rng = random.Random(context.seed)

    def check(self, observation: Observation, decision: Decision) -> None:
        assert self.runner is not None
        check_observation(self.runner, observation)

    async def act(self, observation: Observation, decision: Decision) -> Action:
        try:
            self.check(observation, decision)
        except AssertionError as err:
            self.failures.append(f"seat {observation.seat}, {decision.kind}: {err!r}"[:2000])
        self.asks += 1
        return speaking_answer(self.rng, decision)


def assert_checked(agents: list[Checking]) -> None:
    failures = [f for a in agents for f in a.failures]
    assert not failures, failures[:3]
    assert sum(a.asks for a in agents) > 0


def check_observation(runner: MatchRunner, obs: Observation) -> None:
    engine, seat = runner.engine, obs.seat
    names = engine.names
    records = runner.engine_records
    view = engine.visible_log(seat)
    # the runner's events are the records of exactly the engine's view, in order
    expected = [r for r, d in zip(records, engine.log, strict=False) if d.delivered_to(seat)]
    assert [id(e) for e in obs.events] == [id(r) for r in expected]
    assert len(obs.events) == len(view[: len(obs.events)])
    assert all(e.delivered_to(seat) and seat in (e.audience or ()) for e in obs.events)
    # its text is the engine's render, its prompt lines the renderer's lines of that view
    assert obs.text == engine.render(seat, error=obs.error)
    prompt = transcript_lines(obs)
    assert prompt == lines(view, seat, names)
    mine = [e for e in obs.events if e.speech is not None and e.actor == seat]
    for e in mine:
        assert own_line(e, seat, names) in prompt
    own_name = f"{names[seat]}:"
    assert not any(line.split("] ", 1)[-1].startswith(own_name) for line in prompt), prompt


def play(game: str, rules: dict[str, Any], seed: int) -> tuple[MatchRunner, list[Event], Any]:
    n = registry.engine_class(game)(rules, seed=seed).n_seats
    spec = MatchSpec(
        match_id=f"{game}-{seed}", run_id="conf", game=game, rules=rules, seed=seed,
        seats=[f"chk{s}" for s in range(n)],
    )  # fmt: skip
    memory, pub = MemorySink(), RecordingPublisher()
    agents = [Checking(f"chk{s}") for s in range(n)]
    runner = MatchRunner(spec, agents, [memory, MqttSink(pub, "conf", spec.match_id, n)], POLICY)
    for a in agents:
        a.runner = runner
    result = runner.play()
    assert_checked(agents)
    assert result.status == "finished", result.reason
    return runner, memory.events, pub


def engine_view_records(runner: MatchRunner, seat: int) -> list[Event]:
    return [
        r
        for r, d in zip(runner.engine_records, runner.engine.log, strict=True)
        if d.delivered_to(seat)
    ]


@pytest.mark.parametrize(("game", "variant", "rules"), CASES, ids=IDS)
def test_every_consumer_stream_equals_the_engine_view(
    game: str, variant: str, rules: dict[str, Any]
) -> None:
    for seed in (11, 12):
        runner, events, pub = play(game, rules, seed)
        engine = runner.engine
        n, names = engine.n_seats, engine.names
        records = runner.engine_records
        assert len(records) == len(engine.log)
        for r, d in zip(records, engine.log, strict=True):  # a record is its draft, stamped
            assert r.model_dump(include=set(GameEvent.model_fields)) == d.model_dump()
        engine_seqs = {r.seq for r in records}
        # metrics: messages are the speech events, R(t) their audience minus the speaker
        log = read_log(events, speech_types())
        by_seq = {e.seq: e for e in events}
        for m in log.messages:
            e = by_seq[m.seq]
            assert e.speech is not None and m.speaker == e.actor
            assert m.recipients == frozenset(e.audience or ()) - {e.actor}
        model = MatchModel(f"{game}-{seed}", "conf")
        for e in events:
            model.add(e)
        for seat in range(n):
            want = engine_view_records(runner, seat)
            want_seqs = [r.seq for r in want]
            assert len(want) == len(engine.visible_log(seat))
            heard = [m.seq for m in log.messages if seat in m.recipients or m.speaker == seat]
            assert heard == [r.seq for r in want if r.speech is not None]
            # TUI "view as seat": the same events, each line as the renderer writes it
            shown = [e for e in model.visible(seat) if e.seq in engine_seqs]
            assert [e.seq for e in shown] == want_seqs
            for e in shown[:150]:
                if e.text:
                    assert lines([e], seat, names)[0] in event_line(e, model, seat=seat).plain
            # MQTT seat topic: every record delivered to the seat (runner's public ones too)
            got = [j for t, j in pub.sent if t == topics.seat("conf", f"{game}-{seed}", seat)]
            assert got == [e.model_dump_json() for e in events if e.delivered_to(seat)]
            assert [Event.model_validate_json(j).seq for j in got if
                    Event.model_validate_json(j).seq in engine_seqs] == want_seqs  # fmt: skip


def test_every_built_in_game_and_variant_is_covered() -> None:
    """The cases come from the registry at collection: every catalog game and variant is in.
    (Tests that register a game of their own later are not: they run their own checks.)"""
    catalog = registry.load_object("games.catalog:GAMES")
    covered = {(g, v) for g, v, _ in CASES}
    for info in catalog:
        assert {(info.game, v) for v in info.variants or {"default": {}}} <= covered


def env_id_of(game: str) -> str:
    return registry.get(game).env_id


@pytest.mark.parametrize(("game", "variant", "rules"), CASES, ids=IDS)
def test_env_observation_text_is_the_one_render_of_the_engine_view(
    game: str, variant: str, rules: dict[str, Any]
) -> None:
    from arena.engine import compose_view
    from arena.transcript import transcript

    env = pettingzoo.make("aec", env_id_of(game), **rules)
    rng = random.Random(5)
    env.reset(seed=5)
    engine = env.engine
    for agent in env.agent_iter(max_iter=3000):
        obs, _rew, term, trunc, info = env.last()
        seat = env._seat[agent]
        view = [e for e in engine.log if e.delivered_to(seat)]
        expected = compose_view(
            engine.briefing(seat),
            transcript(view, seat, engine.names),
            engine.decision_text(seat),
            env._errors.get(agent),
            engine.status_line(seat),
        )
        assert obs["text"] == sanitize(expected, env.MAX_TEXT)
        if term or trunc:
            env.step(None)
            continue
        if not engine.owes(seat):  # a wait turn of the env's fixed cycle
            env.step("wait")
            continue
        act = speaking_answer(rng, engine.current_decision(seat))
        if act.choices:
            env.step(json.dumps({"choices": list(act.choices), "text": act.text}))
        else:
            env.step(act.text)


# -- regression cases: both failed before the audience was fixed at emission ---------------
def _played_with_sinks(game: str, rules: dict[str, Any], seed: int) -> tuple[Any, Any, list[Any]]:
    from arena.agents import RandomAgent

    n = registry.engine_class(game)(rules, seed=seed).n_seats
    spec = MatchSpec(match_id="m", run_id="r", game=game, rules=rules, seed=seed,
                     seats=[f"a{s}" for s in range(n)])  # fmt: skip
    pub, memory = RecordingPublisher(), MemorySink()
    agents = [RandomAgent(f"a{s}", p_speak=0.5) for s in range(n)]
    runner = MatchRunner(spec, agents, [memory, MqttSink(pub, "r", "m", n)], POLICY)
    runner.play()
    return runner, pub, memory.events


def test_a_dead_werewolf_seat_topic_and_tui_view_stop_where_the_engine_view_stops() -> None:
    """Without ``dead_observe`` a dead seat stops observing: its MQTT topic and the TUI's view
    as that seat must hold the engine's view of it, not every public event to the end."""
    checked = 0
    for seed in range(3):
        runner, pub, events = _played_with_sinks("werewolf", {}, seed)
        engine = runner.engine
        assert not engine.rules.dead_observe
        model = MatchModel("m", "r")
        for e in events:
            model.add(e)
        for seat in sorted(engine.cutoff):
            own = [(e.type, e.text) for e in engine.visible_log(seat)]
            topic = [
                Event.model_validate_json(j)
                for t, j in pub.sent
                if t == topics.seat("r", "m", seat)
            ]
            engine_part = [(e.type, e.text) for e in topic if e.type != "match_start"]
            assert engine_part == own, (seed, seat)
            shown = [(e.type, e.text) for e in model.visible(seat) if e.type != "match_start"]
            assert shown == own, (seed, seat)
            checked += 1
    assert checked >= 3


def test_own_side_messages_and_night_lines_read_you_in_the_prompt() -> None:
    """The prompt found a seat's own lines by a "Name:" prefix: a side message
    ("Name → X (private): ...") and a wolf's night line ("[wolves] Name: ...") kept the name."""
    from games.persona_dialogue.rules import PersonaDialogueEngine

    engine = PersonaDialogueEngine({"scenario": "wedding-budget", "probes": False}, seed=0)
    engine.apply(0, {"choice": ["to:dev"], "text": "just between us"})
    spec = MatchSpec(match_id="m", game="persona_dialogue", rules=engine.rules.model_dump(),
                     seed=0, seats=[f"a{s}" for s in range(4)])  # fmt: skip
    from arena.agents import RandomAgent

    runner = MatchRunner(spec, [RandomAgent(f"a{s}") for s in range(4)], engine=engine)
    runner._sync_log()
    me, dev = engine.names[0], engine.names[1]
    sender = transcript_lines(runner.observation(0))
    assert f"You → {dev} (private): just between us" in sender
    assert not any(line.startswith(f"{me} →") for line in sender)
    assert f"{me} → you (private): just between us" in transcript_lines(runner.observation(1))

    for seed in range(10):
        runner, _pub, events = _played_with_sinks("werewolf", {}, seed)
        night = [e for e in events if e.type == "wolf_message"]
        if not night:
            continue
        wolf = night[0].actor
        assert wolf is not None
        obs = runner.observation(wolf)
        prompt = transcript_lines(obs)
        assert any(line.startswith("[wolves] You: ") for line in prompt)
        assert not any(line.startswith(f"[wolves] {runner.engine.names[wolf]}:") for line in prompt)
        return
    pytest.fail("no wolf spoke at night in 10 seeded games")


# -- MQTT over a real broker --------------------------------------------------------------
async def test_seat_topics_over_a_real_broker_equal_the_engine_views() -> None:
    """A few matches (a Werewolf game with deaths, a four-character dialogue with side
    messages, the toy game) through an embedded amqtt broker on 127.0.0.1."""
    from arena.live.broker import EmbeddedBroker
    from tests.arena.live.helpers import Collector

    cases = [("werewolf", {}, 1), ("persona_dialogue", {"scenario": "wedding-budget"}, 2)]
    cases.append(("toy", {"n_players": 4}, 3))
    with EmbeddedBroker() as broker:
        pub = Publisher(broker.url)
        pub.start()
        assert await pub.wait_connected(60)
        for game, rules, seed in cases:
            match_id = f"{game}-{seed}"
            n = registry.engine_class(game)(rules, seed=seed).n_seats
            spec = MatchSpec(match_id=match_id, run_id="live", game=game, rules=rules,
                             seed=seed, seats=[f"chk{s}" for s in range(n)])  # fmt: skip
            agents = [Checking(f"chk{s}") for s in range(n)]
            memory = MemorySink()
            runner = MatchRunner(spec, agents, [memory, MqttSink(pub, "live", match_id, n)], POLICY)
            for a in agents:
                a.runner = runner
            seat_topics = [topics.seat("live", match_id, s) for s in range(n)]
            async with Collector(
                broker.url, topics.match_root("live", match_id) + "/seats/+"
            ) as col:
                await runner.run()
                assert_checked(agents)
                want = {
                    s: [e.model_dump(mode="json") for e in memory.events if e.delivered_to(s)]
                    for s in range(n)
                }
                await col.wait_for(
                    lambda topics_=seat_topics, want_=want: all(
                        len(col.events(topics_[s])) == len(want_[s]) for s in want_
                    )
                )
            seqs = {r.seq for r in runner.engine_records}
            for s in range(n):
                got = col.events(seat_topics[s])
                assert got == want[s], (game, s)
                engine_part = [d["seq"] for d in got if d["seq"] in seqs]
                assert engine_part == [r.seq for r in engine_view_records(runner, s)]
            if game == "werewolf":
                assert runner.engine.cutoff  # someone died and stopped observing
        await pub.aclose()


# -- leak fuzz: Observation, prompt and MQTT level, every registered game ------------------
FUZZ_SEEDS = 16


class Fuzzing(Checking):
    """At every ask: nothing outside the seat's audience, own lines as "You"."""

    def check(self, observation: Observation, decision: Decision) -> None:
        from arena.agents.llm_params import LLMAgentParams
        from arena.llm.prompt import TRANSCRIPT_CLOSE, TRANSCRIPT_OPEN, render_messages

        seat, names = observation.seat, observation.names
        for e in observation.events:
            assert e.audience is not None and seat in e.audience, (e.type, seat)
            assert e.visibility.scope != "god" and e.visibility.visible_to(seat)
        assert all(f.known_by(seat) for f in observation.private)
        messages, elided = render_messages(observation, decision, LLMAgentParams(), [], system="")
        user = messages[1]["content"]
        block = user[
            user.index(TRANSCRIPT_OPEN) + len(TRANSCRIPT_OPEN) : user.index(TRANSCRIPT_CLOSE)
        ]
        shown = [x for x in block.strip("\n").split("\n") if x and not x.endswith("lines elided]")]
        allowed = lines(observation.events, seat, names)
        assert shown == allowed[elided:]
        for e in observation.events:
            if e.speech is not None and e.actor == seat:
                assert own_line(e, seat, names) in allowed


@pytest.mark.parametrize("game", sorted(registry.games()))
def test_leak_fuzz_no_seat_receives_an_event_outside_its_audience(game: str) -> None:
    variants = list((registry.get(game).variants or {"default": {}}).values())
    asks = 0
    for seed in range(FUZZ_SEEDS):
        rules = variants[seed % len(variants)]
        n = registry.engine_class(game)(rules, seed=seed).n_seats
        spec = MatchSpec(match_id=f"f{seed}", run_id="fz", game=game, rules=rules, seed=seed,
                         seats=[f"z{s}" for s in range(n)])  # fmt: skip
        pub, memory = RecordingPublisher(), MemorySink()
        agents = [Fuzzing(f"z{s}") for s in range(n)]
        runner = MatchRunner(spec, agents, [memory, MqttSink(pub, "fz", f"f{seed}", n)], POLICY)
        result = runner.play()
        assert_checked(agents)
        assert result.status == "finished", result.reason
        asks += sum(a.asks for a in agents)
        for e in memory.events:  # audiences are well-formed: inside visibility, god to nobody
            aud = e.delivered_seats(n)
            assert all(e.visibility.visible_to(s) for s in aud)
            if e.visibility.scope == "god":
                assert aud == ()
            if e.visibility.scope == "private":
                assert aud == e.visibility.seats
        for s in range(n):
            for _t, j in (x for x in pub.sent if x[0] == topics.seat("fz", f"f{seed}", s)):
                ev = Event.model_validate_json(j)
                assert ev.delivered_to(s) and ev.visibility.scope != "god", (ev.type, s)
    assert asks > FUZZ_SEEDS
