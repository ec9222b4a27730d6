"""Role briefings of Avalon, the negotiation games and persona dialogue for LLM agents.

Privacy is checked against the engines' ground truth: for every private fact whose audience
excludes the seat, its value must not appear in the seat's briefing unless the seat could know
that value anyway (it occurs in something the seat legitimately sees: rules, its state, its own
facts, its visible events).
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from arena import registry
from arena.agents.llm_agent import LLMAgent
from arena.agents.llm_params import LLMAgentParams
from arena.events import Event
from arena.llm.prompt import system_prompt
from arena.results import MatchSpec
from arena.runner import MatchRunner
from arena.types import Observation, PrivateFact
from games.avalon import prompts as avalon_prompts
from games.avalon.config import ROLE_TITLES
from games.negotiation import prompts as negotiation_prompts
from games.persona_dialogue import prompts as persona_prompts

SEEDS = range(25)
NUM = re.compile(r"\d+(?:\.\d+)?")


# -- helpers ------------------------------------------------------------------------------
def make(game: str, variant: str, seed: int) -> Any:
    return registry.engine_class(game)(registry.get(game).variants[variant], seed=seed)


def observe(engine: Any, seat: int, game: str) -> Observation:
    events = [
        Event.stamp(e, run_id="", match_id="m", seq=i)
        for i, e in enumerate(engine.visible_log(seat))
    ]
    return Observation(
        game=game,
        seat=seat,
        name=engine.names[seat],
        phase=engine.phase,
        text="",
        events=events,
        private=engine.known_facts(seat),
        state=engine.state(seat),
    )


def brief(engine: Any, seat: int, game: str, **kw: Any) -> str:
    game_briefing = registry.briefing(game)
    assert game_briefing is not None
    rules = engine.rules.model_dump(mode="json")
    return game_briefing(observe(engine, seat, game), rules=rules, names=engine.names, **kw)


def advance(engine: Any, rng: random.Random, steps: int) -> None:
    """Play ``steps`` random legal answers (silent on speech) to reach a mid-game state."""
    for _ in range(steps):
        if engine.is_over():
            return
        seat = engine.pending()[0]
        d = engine.decision(seat)
        if d.free_text and d.silent_option:
            raw: Any = {"choice": d.silent_option}
        elif d.belief_only:
            raw = {"choice": d.silent_option}
        elif d.max_choices > 1 or d.min_choices > 1:
            raw = {"choices": rng.sample(d.option_ids, d.min_choices)}
        else:
            raw = {"choice": rng.choice(d.option_ids)}
        engine.apply(seat, raw)


def _flatten(x: Any) -> list[str]:
    if isinstance(x, dict):
        return [s for k, v in x.items() for s in (*_flatten(k), *_flatten(v))]
    if isinstance(x, list | tuple | set):
        return [s for v in x for s in _flatten(v)]
    return [] if x is None else [str(x)]


def knowable(obs: Observation, rules: dict[str, Any], names: list[str]) -> str:
    """Everything the seat legitimately sees, as one lower-case text."""
    parts = _flatten(rules) + _flatten(obs.state) + names + [str(i) for i in range(len(names))]
    for f in obs.private:
        parts += [f.key, *_flatten(f.value), *f.aliases]
    for e in obs.events:
        parts += [e.text, *_flatten(e.payload)]
    return "\n".join(parts).lower()


def renderings(f: PrivateFact) -> list[str]:
    if isinstance(f.value, dict):  # e.g. an item valuation: "book 3"
        return [f"{k} {v}" for k, v in f.value.items()]
    return [str(v) for v in _flatten(f.value)]


def hidden_tokens_checked(engine: Any, seat: int, text: str, game: str) -> int:
    """Assert no hidden fact of another seat is in ``text``; return how many were checkable."""
    obs = observe(engine, seat, game)
    seen = knowable(obs, engine.rules.model_dump(mode="json"), engine.names)
    seen_numbers = set(NUM.findall(seen))
    low = text.lower()
    numbers = set(NUM.findall(text))
    checked = 0
    for f in engine.private_facts():
        if f.known_by(seat):
            continue
        for token in renderings(f):
            t = token.lower().strip()
            if NUM.fullmatch(t):
                if t in seen_numbers:
                    continue  # the seat sees this number elsewhere: no evidence either way
                assert t not in numbers, f"seat {seat} briefing leaks {f.kind} {f.key}={t}"
            else:
                if len(t) < 3 or t in seen:
                    continue
                assert t not in low, f"seat {seat} briefing leaks {f.kind} {f.key}={t!r}"
            checked += 1
    return checked


# -- lookup -------------------------------------------------------------------------------
def test_negotiation_game_ids_find_the_shared_briefing_through_the_registry():
    assert registry.briefing("dealornodeal") is negotiation_prompts.briefing
    assert registry.briefing("bargaining") is negotiation_prompts.briefing
    for game in ("price_bargaining", "pie_division", "auction"):
        assert registry.briefing(game) is negotiation_prompts.briefing
    assert registry.briefing("avalon") is avalon_prompts.briefing
    assert registry.briefing("persona_dialogue") is persona_prompts.briefing
    assert registry.briefing("no_such_game") is None


@pytest.mark.parametrize(
    ("game", "variant", "marker"),
    [
        ("avalon", "basic5", "The Resistance: Avalon"),
        ("dealornodeal", "default", "split a pool of items"),
        ("bargaining", "default", "over the price of one item"),
        ("bargaining", "pie3", "dividing a pie of"),
        ("price_bargaining", "default", "over the price of one item"),
        ("pie_division", "default", "dividing a pie of"),
        ("persona_dialogue", "round_robin", "Your persona card"),
    ],
)
def test_the_agent_system_prompt_uses_the_game_briefing(game, variant, marker):
    engine = make(game, variant, 1)
    obs = observe(engine, 0, game)
    text = system_prompt(obs, LLMAgentParams(), engine.rules.model_dump(mode="json"), engine.names)
    assert marker in text and "playing a game of" not in text  # not the generic fallback


# -- Avalon -------------------------------------------------------------------------------
def _avalon_known_seats(text: str) -> set[int]:
    section = text.split("What you know privately:\n", 1)[1].split("\nRoles in play:", 1)[0]
    return {int(s) for s in re.findall(r"\(seat (\d+)\)", section)}


@pytest.mark.parametrize("variant", list(registry.get("avalon").variants))
def test_avalon_briefing_states_own_role_and_only_knowledge_the_seat_has(variant):
    checked_pairs = 0
    for seed in SEEDS:
        engine = make("avalon", variant, seed)
        rng = random.Random(seed)
        for stage in range(2):
            if stage:
                advance(engine, rng, 40)
            facts = engine.private_facts()
            for seat in range(engine.n_seats):
                text = brief(engine, seat, "avalon")
                role = engine.roles()[seat]
                assert f"Your role: {ROLE_TITLES[role]} (side {engine.teams()[seat]})" in text
                for j in _avalon_known_seats(text):
                    ok = any(
                        f.owner == j and f.known_by(seat)
                        for f in facts
                        if f.kind in ("side", "role", "merlin_candidate")
                    )
                    assert ok, f"seat {seat} ({role}) is told about seat {j} without knowing it"
                    checked_pairs += 1
                hidden_tokens_checked(engine, seat, text, "avalon")
                assert "Hints:" not in text
    assert checked_pairs > 0


def test_avalon_merlin_sees_evil_but_a_servant_sees_nobody():
    engine = make("avalon", "basic7", 3)
    roles = engine.roles()
    merlin = next(s for s, r in roles.items() if r == "merlin")
    servant = next(s for s, r in roles.items() if r == "servant")
    evil = {s for s, side in engine.teams().items() if side == "evil"}
    assert _avalon_known_seats(brief(engine, merlin, "avalon")) == evil
    assert _avalon_known_seats(brief(engine, servant, "avalon")) == set()


def test_avalon_rules_line_follows_the_active_flags():
    hammer = brief(make("avalon", "basic5", 1), 0, "avalon")
    bench = brief(make("avalon", "avalonbench", 1), 0, "avalon")
    assert "fifth rejected proposal for one quest makes evil win" in hammer
    assert "approved automatically" in bench and "full reveal" in bench
    assert "Lady of the Lake" in brief(make("avalon", "full10", 1), 0, "avalon")


# -- negotiation ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("game", "variant"),
    [("dealornodeal", v) for v in registry.get("dealornodeal").variants]
    + [
        ("bargaining", v)
        for v in ("default", "discount", "outside_options", "pie3", "pie5_majority")
    ]
    + [(g, v) for g in ("price_bargaining", "pie_division") for v in registry.get(g).variants],
)
def test_negotiation_briefing_has_own_numbers_and_none_of_the_others(game, variant):
    checked = 0
    for seed in SEEDS:
        engine = make(game, variant, seed)
        rng = random.Random(seed)
        for stage in range(2):
            if stage:
                advance(engine, rng, 3)
            for seat in range(engine.n_seats):
                text = brief(engine, seat, game)
                own = [f for f in engine.private_facts() if f.owner == seat]
                for f in own:
                    if f.kind == "valuation" and isinstance(f.value, dict):
                        pairs = ", ".join(f"{k} {v}" for k, v in f.value.items())
                        assert f"Your private values per item: {pairs}." in text
                    elif f.kind in ("reservation_price", "outside_option", "batna"):
                        assert re.search(rf"\b{f.value}\b", text), (f.kind, f.value)
                if engine.state(None).get("mode") == "price":
                    assert f"the {engine.roles()[seat]}," in text
                checked += hidden_tokens_checked(engine, seat, text, game)
    assert checked > 0


def test_bargaining_briefing_follows_discount_outside_options_and_quota():
    assert "factor 0.9" in brief(make("bargaining", "discount", 2), 0, "bargaining")
    assert "private outside option" in brief(
        make("bargaining", "outside_options", 2), 1, "bargaining"
    )
    pie5 = brief(make("bargaining", "pie5_majority", 2), 3, "bargaining")
    assert "3 of 5 accepts" in pie5 and "allocate: a0, a1" in pie5 and "a4 for" in pie5
    assert "factor 0.9" in brief(make("price_bargaining", "discount", 2), 0, "price_bargaining")
    pie5 = brief(make("pie_division", "five_majority", 2), 3, "pie_division")
    assert "3 of 5 accepts" in pie5 and "allocate: a0, a1" in pie5 and "a4 for" in pie5
    sel = brief(make("dealornodeal", "selection", 2), 0, "dealornodeal")
    assert "keep:a-b-c" in sel and "no_agreement" in sel


@pytest.mark.parametrize("variant", list(registry.get("dealornodeal").variants))
def test_an_item_split_briefing_opens_with_the_rules_the_same_in_every_game(variant):
    # a backend with prefix caching computes that opening once per run (docs/llm.md)
    texts = [brief(make("dealornodeal", variant, seed), seed % 2, "dealornodeal")
             for seed in range(6)]  # fmt: skip
    head = texts[0][: texts[0].index("This game: you are")]
    assert len(head) > 300 and all(t.startswith(head) for t in texts)
    engine = make("dealornodeal", variant, 3)
    for seat in range(2):  # this game's facts after the rules: names, who moves first, pool
        text = brief(engine, seat, "dealornodeal")
        assert f"you are {engine.names[seat]} (seat {seat}); the other player is " in text
        assert engine.names[1 - seat] not in head and engine.names[seat] not in head
        if variant != "selection":
            first = engine.state(None)["first_mover"]
            mover = "; you move first." if first == seat else ", who moves first."
            assert f"{engine.names[1 - seat]} (seat {1 - seat}){mover}" in text


# -- persona dialogue -------------------------------------------------------------------------
@pytest.mark.parametrize("variant", list(registry.get("persona_dialogue").variants))
def test_persona_briefing_has_own_card_goal_secrets_and_no_one_elses(variant):
    checked = 0
    for seed in range(6):
        engine = make("persona_dialogue", variant, seed)
        cast = engine.cast
        for seat, ch in enumerate(cast.characters):
            text = brief(engine, seat, "persona_dialogue")
            if ch.persona is not None:
                assert f"You are {ch.name}." in text and "Your persona card" in text
                assert ch.persona.render_description() in text
            if ch.goal is not None:
                assert ch.goal.text in text
            for sec in ch.secrets:
                assert sec.text in text
            for other in cast.characters:
                if other.seat == seat:
                    continue
                if other.goal is not None:
                    assert other.goal.text not in text
                for sec in other.secrets:
                    if seat not in cast.audience[sec.id]:
                        assert sec.text not in text and f"secret {sec.id}" not in text
            checked += hidden_tokens_checked(engine, seat, text, "persona_dialogue")
    assert checked > 0


def test_persona_briefing_lists_side_message_syntax_only_when_allowed():
    engine = make("persona_dialogue", "party4", 0)
    text = brief(engine, 1, "persona_dialogue")
    assert '"@Name: message"' in text and "to:chiara" in text and "agree:<id>" in text
    assert '{"choice": "leave"}' in text and '{"choice": "pass"}' in text
    interview = make("persona_dialogue", "interrogation", 0)
    subject = brief(interview, 1, "persona_dialogue")
    assert "@Name" not in subject and "interviews you" in subject
    assert "Ask " in brief(interview, 0, "persona_dialogue")


# -- templates ------------------------------------------------------------------------------
def test_templates_are_overridable_per_role_and_hints_come_only_on_request():
    engine = make("avalon", "basic5", 3)
    merlin = next(s for s, r in engine.roles().items() if r == "merlin")
    other = next(s for s, r in engine.roles().items() if r != "merlin")
    tpl = {"role:merlin": "ROLE-OVERRIDE {role_title} {name}", "quests": 'Q {"json": 1}'}
    m = brief(engine, merlin, "avalon", templates=tpl)
    assert f"ROLE-OVERRIDE Merlin {engine.names[merlin]}" in m and 'Q {"json": 1}' in m
    assert "ROLE-OVERRIDE" not in brief(engine, other, "avalon", templates=tpl)
    assert "Hints:" in brief(engine, merlin, "avalon", strategy_hints=True)
    bargain = make("bargaining", "default", 3)
    seller = brief(bargain, 0, "bargaining", templates={"role:seller": "SELLER {reservation}"})
    assert f"SELLER {bargain.sc.r_s}" in seller
    assert "SELLER" not in brief(bargain, 1, "bargaining", templates={"role:seller": "X"})
    for game, variant in [("dealornodeal", "default"), ("persona_dialogue", "round_robin")]:
        e = make(game, variant, 3)
        assert "Hints:" not in brief(e, 0, game)
        assert "Hints:" in brief(e, 0, game, strategy_hints=True)
        assert "FMT" in brief(e, 0, game, templates={"format": "FMT"}).split("\n")


# -- full matches against the scripted server -------------------------------------------------
MATCHES = [
    ("avalon", "basic5", "json_schema", "The Resistance: Avalon"),
    ("avalon", "percival7", "json_schema", "The Resistance: Avalon"),
    ("dealornodeal", "default", "json_schema", "split a pool of items"),
    ("dealornodeal", "selection", "json_schema", "split a pool of items"),
    ("bargaining", "default", "json_schema", "over the price of one item"),
    # the scripted server cannot write "allocate: ..." text: without a schema it answers the
    # proposer's legal id (pass), so the pie match runs through every round without fallbacks
    ("bargaining", "pie3", "none", "dividing a pie of"),
    ("persona_dialogue", "round_robin", "json_schema", "Your persona card"),
    ("persona_dialogue", "free_for_all", "json_schema", "Your persona card"),
]


@pytest.mark.parametrize(("game", "variant", "structured", "marker"), MATCHES)
async def test_full_match_with_llm_agents_against_the_scripted_server(
    scripted, game, variant, structured, marker
):
    seed = 7
    engine = make(game, variant, seed)
    rules = registry.get(game).variants[variant]
    cfg = scripted.config(structured=structured).model_dump(mode="json")
    agents = [LLMAgent(name=f"llm{i}", backend=cfg) for i in range(engine.n_seats)]
    spec = MatchSpec(
        match_id=f"{game}-{variant}-{seed}",
        game=game,
        seed=seed,
        rules=rules,
        seats=["llm"] * engine.n_seats,
    )
    scripted.engine.keep_requests, scripted.engine.requests = True, []
    try:
        runner = MatchRunner(spec, agents, [], engine=engine)
        result = await runner.run()
        requests = list(scripted.engine.requests)
    finally:
        scripted.engine.keep_requests, scripted.engine.requests = False, []
    events = runner.recorder.events
    assert result.status == "finished"
    assert not [e for e in events if e.type in ("invalid_action", "fallback")]
    calls = [e for e in events if e.type == "llm_call"]
    assert calls and all(c.payload["ok"] for c in calls)
    systems = {r["messages"][0]["content"] for r in requests}
    assert systems and all(marker in s for s in systems)
    # each seat's system prompt carries its own name, never another seat's own-name line
    for seat in range(engine.n_seats):
        mine = runner.agents[seat]._system(runner.observation(seat))
        assert marker in mine and engine.names[seat] in mine
