"""A fact the game tells a seat is no longer private to that seat (issue 15, item 13).

The converse of the leak fuzz in ``test_conformance.py``: there, no seat may be shown a fact
outside its audience; here, when the engine itself tells a seat a fact (a line it wrote, in
the briefing or an event delivered to the seat, that names the owner and gives the value),
the fact's audience must include the seat, or the fact must be public. Otherwise the
metrics would score a seat repeating what it was told as a leak. For every game and variant.
"""

from __future__ import annotations

from typing import Any

import pytest

from arena import registry
from arena.facts import Implication, told_in_text, with_implications
from arena.testing import MAX_STEPS
from arena.types import PrivateFact
from tests.games.test_conformance import IDS, VARIANTS

GAMES = 3


def untold(engine: Any, texts: dict[int, str]) -> list[tuple[int, str, str, list[int]]]:
    """Facts ``texts`` tell to seats outside their audience: (owner, kind, key, seats)."""
    facts = engine.current_facts()
    told = told_in_text(facts, texts, engine.names)
    return [
        (f.owner, f.kind, f.key, sorted(set(t.audience) - set(f.audience)))
        for f, t in zip(facts, told, strict=True)
        if t.audience != f.audience
    ]


@pytest.mark.parametrize(("game", "variant", "rules"), VARIANTS, ids=IDS)
def test_what_the_engine_tells_a_seat_is_in_the_facts_audience(
    game: str, variant: str, rules: dict[str, Any]
) -> None:
    cls = registry.engine_class(game)
    for g in range(GAMES):
        engine = cls(rules, seed=2000 + g)
        seen = {s: 0 for s in range(engine.n_seats)}
        briefings = {s: engine.briefing(s) for s in range(engine.n_seats)}
        assert not untold(engine, briefings), untold(engine, briefings)
        steps = 0
        while True:
            texts = {}
            for seat in range(engine.n_seats):
                view = engine.visible_log(seat)
                new = [e.text for e in view[seen[seat] :] if e.speech is None and e.text]
                seen[seat] = len(view)
                texts[seat] = "\n".join(new)
            assert not untold(engine, texts), (steps, untold(engine, texts))
            if engine.is_over():
                break
            seat = engine.current_pending()[0]
            engine.apply(seat, engine.fallback(seat))
            steps += 1
            assert steps < MAX_STEPS


def test_werewolf_a_team_reveal_or_a_seer_result_tells_a_wolfs_role() -> None:
    from games.werewolf.rules import WerewolfEngine

    found = {"reveal": 0, "seer": 0}
    for seed in range(40):
        engine = WerewolfEngine({"night_death_reveal": "team", "exile_reveal": "team"}, seed)
        while not engine.is_over():
            facts = {(f.owner, f.kind): f for f in engine.current_facts()}
            for s in engine.wolves:
                side, role = facts[(s, "side")], facts[(s, "role")]
                assert set(side.audience) <= set(role.audience)
                assert role.public or not side.public
                found["reveal"] += side.public
                found["seer"] += bool(set(side.audience) - set(engine.wolves))
            seat = engine.current_pending()[0]
            engine.apply(seat, engine.fallback(seat))
    assert found["reveal"] and found["seer"]  # both ways of learning a side happened


def test_werewolf_the_hunters_shot_makes_the_hunter_public() -> None:
    from games.werewolf.rules import WerewolfEngine

    shots = 0
    for seed in range(40):
        engine = WerewolfEngine({"preset": "agentscope9", "belief_reports": "none"}, seed)
        while not engine.is_over():
            seat = engine.current_pending()[0]
            kind = engine.current_decision(seat).kind
            engine.apply(seat, engine.fallback(seat))
            if kind == "hunter_shot" and not engine.is_over():
                shots += 1
                role = next(
                    f for f in engine.current_facts() if (f.owner, f.kind) == (seat, "role")
                )
                assert role.value == "hunter" and role.public
    assert shots


def test_implications_widen_only_the_implied_fact() -> None:
    side = PrivateFact(owner=1, kind="side", key="side", value="wolves", audience=(1, 3))
    role = PrivateFact(owner=1, kind="role", key="role", value="werewolf", audience=(1,))
    other = PrivateFact(owner=2, kind="role", key="role", value="seer", audience=(2,))
    village = PrivateFact(owner=2, kind="side", key="side", value="village", public=True)
    rules = [Implication("side", "role", {"wolves": "werewolf"})]
    out = with_implications([side, role, other, village], rules)
    assert out[1].audience == (1, 3) and not out[1].public
    assert out[0] is side and out[2] is other and out[3] is village  # no rule for the village


def _scenarios() -> list[str]:
    from personas.loader import load_library

    return sorted(load_library().scenarios)


@pytest.mark.parametrize("scenario", _scenarios())
def test_every_persona_scenario_counts_what_a_briefing_tells(scenario: str) -> None:
    """E.g. credit-dispute: Bruno's briefing reads "Kemi Adeyemi: colleague (product manager
    and lead engineer ...)", so Kemi's occupation is known to Bruno."""
    engine = registry.engine_class("persona_dialogue")({"scenario": scenario}, seed=0)
    briefings = {s: engine.briefing(s) for s in range(engine.n_seats)}
    assert not untold(engine, briefings), untold(engine, briefings)
    truth = next(e for e in engine.log if e.type == "scenario_truth")
    for f in truth.payload["persona_facts"]:  # the god-only record agrees with the facts
        fact = next(
            x for x in engine.current_facts() if (x.owner, x.key) == (f["owner"], f["slot"])
        )
        assert sorted(f["audience"]) == sorted(fact.audience)
