"""A synchronous scripted driver for fuzzing the persona dialogue engine without the runner."""

from __future__ import annotations

import random
from typing import Any

from arena.types import Action, InvalidAction
from games.persona_dialogue.rules import PersonaDialogueEngine


def random_action(engine: PersonaDialogueEngine, seat: int, rng: random.Random, tag: str) -> Action:
    d = engine.decision(seat)
    if d.kind == "probe":
        return Action(text=f"PROBEANSWER-{tag}")
    if d.kind in ("ask", "answer"):
        return Action(text=f"QA-{tag}")
    ids = d.option_ids
    r = rng.random()
    to = [i for i in ids if i.startswith("to:")]
    agree = [i for i in ids if i.startswith("agree:")]
    if r < 0.3 and to:
        k = rng.randint(1, len(to))
        return Action(choices=tuple(rng.sample(to, k)), text=f"SIDE-{tag}")
    if r < 0.4:
        return Action(choices=("pass",))
    if r < 0.45 and agree:
        return Action(choices=(rng.choice(agree),))
    if r < 0.5:
        return Action(choices=("act",), text=f"ACT-{tag}")
    if r < 0.53:
        return Action(choices=("leave",))
    return Action(text=f"PUBLIC-{tag}")


def play(engine: PersonaDialogueEngine, rng: random.Random, on_step: Any = None) -> list[Action]:
    """Play to the end with random legal actions; returns the applied actions in order."""
    applied: list[Action] = []
    n = 0
    while not engine.is_over():
        seat = engine.pending()[0]
        if on_step is not None:
            on_step(seat)
        action = random_action(engine, seat, rng, f"<{seat}x{n}>")
        try:
            engine.apply(seat, action)
        except InvalidAction:
            action = (
                Action(choices=("pass",))
                if engine.decision(seat).silent_option
                else Action(text="...")
            )
            engine.apply(seat, action)
        applied.append(action.model_copy(update={"seat": seat}))
        n += 1
    return applied
