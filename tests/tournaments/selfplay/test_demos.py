"""The demonstration operator: the parent's moves in its best train games become the child's
examples (shown one by one, each beside the decision it resembles)."""

from __future__ import annotations

import json

from arena import registry
from arena.events import Event
from arena.llm.examples import SITUATION_CHARS
from arena.results import InvalidActionPolicy, MatchSpec
from arena.runner import MatchRunner
from tournaments.selfplay import candidate as cand
from tournaments.selfplay.demos import MAX_EXAMPLES, MAX_GAMES, best, demonstrate, pool


def _game(seed: int) -> tuple[float, list[Event], int]:
    bots = registry.bots("dealornodeal")
    spec = MatchSpec(match_id=f"m{seed}", game="dealornodeal", seed=seed, seats=["random", "rule"])
    policy = InvalidActionPolicy(retries=0, timeout_s=None)
    runner = MatchRunner(spec, lambda name, seat: bots[name](name), policy=policy)
    result = runner.play()
    return float(result.seats[0].reward), list(runner.recorder.events), 0


def _moves(events: list[Event], seat: int) -> list[str]:
    moves = [(e.payload.get("action") or {}).get("choices") for e in events
             if e.type == "decision" and e.actor == seat]  # fmt: skip
    return [m[0] for m in moves if m]


def test_the_examples_are_the_moves_of_the_best_games() -> None:
    games = [_game(s) for s in range(12)]
    scores = sorted({s for s, _, _ in games})
    assert len(scores) > 1  # some games stand out
    chosen = best(games)
    assert 1 <= len(chosen) <= MAX_GAMES and chosen[0][0] == max(scores)
    assert all(g[0] >= min(scores) + 1 for g in chosen)
    found = pool(games)
    moves = [m for _, events, seat in chosen for m in _moves(events, seat)]
    assert [json.loads(e.answer)["choice"] for e in found] == moves[:MAX_EXAMPLES]
    # the situation is the start of the decision as the seat was told it: its knowledge
    assert all("Your values:" in e.situation and len(e.situation) <= SITUATION_CHARS
               for e in found)  # fmt: skip


def test_nothing_to_show_when_every_game_scored_the_same() -> None:
    game = _game(0)
    parent = cand.make(style=None, extra_instructions=None, bank=None,
                       namespace="{game}/{role}", version=None, insights=(), active=[])  # fmt: skip
    assert pool([game, (game[0], game[1], 0)]) == []
    assert demonstrate(parent, [game, (game[0], game[1], 0)], 1) is None


def test_the_child_keeps_the_parents_context_and_replaces_its_examples() -> None:
    games = [_game(s) for s in range(12)]
    parent = cand.make(style="Be brief.", extra_instructions="Mind the clock.", bank=None,
                       namespace="{game}/{role}", version=None, insights=(), active=[])  # fmt: skip
    child = demonstrate(parent, games, 1)
    assert child is not None and child.operator == "demonstrate" and child.parents == (parent.id,)
    assert child.style == parent.style and child.extra_instructions == "Mind the clock."
    assert child.id != parent.id and child.examples == tuple(pool(games))
    entry = child.agent_entry(cand.EntrySpec(kind="llm"))
    assert entry["params"]["examples"] == [e.model_dump() for e in child.examples]
    # a grandchild from other games carries those games' examples, not both
    grandchild = demonstrate(child, [_game(s) for s in range(12, 24)], 2)
    assert grandchild is not None and grandchild.examples == tuple(
        pool([_game(s) for s in range(12, 24)])
    )


def test_a_context_without_examples_keeps_its_id() -> None:
    # ids are hashes of contexts: runs from before examples existed name the same candidates
    ctx = cand.context_of("Be brief.", None, None, None, ())
    assert "examples" not in ctx
    assert cand.candidate_id(ctx) == cand.make(
        style="Be brief.", extra_instructions=None, bank=None, namespace="{game}/{role}",
        version=None, insights=(), active=[],
    ).id  # fmt: skip
