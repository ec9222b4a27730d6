"""The scripted interrogator (spec §5, PICon-style): stage-1 slot questions, chained
follow-ups over the subject's extracted claims (detail, cross-check, confirm, trap), and a
retest of the stage-1 questions. It reads only its observation: the subject's answers and
``obs.state`` (stage, question index, the card's slot names — never their values)."""

from __future__ import annotations

import random
from typing import Any

from arena.agents.base import Agent, MatchContext
from arena.types import Action, Decision, Observation
from games.persona_dialogue import templates

FAMILIES = ("detail", "cross_check", "confirm", "trap")
DETAIL = {
    "age": "You said {c}. What did you do when you turned {v}?",
    "occupation": "You said {c}. How long have you been working as that, and where?",
    "location": "You said {c}. How long have you lived in {v}, and who do you live with?",
    "origin": "You said {c}. What was it like growing up in {v}?",
    "hobbies": "You said {c}. When did you start with {v}, and who with?",
}


class InterrogatorBot(Agent):
    kind = "persona_dialogue.interrogator_bot"

    def __init__(self, name: str | None = None, trap_rate: float = 0.1, **params: Any) -> None:
        super().__init__(name, trap_rate=trap_rate, **params)
        self.trap_rate = trap_rate
        self.rng = random.Random(0)

    def reset(self, context: MatchContext) -> None:
        super().reset(context)
        self.rng = random.Random(context.seed)
        self.stage1: list[str] = []  # questions asked in stage 1, in order
        self.family = 0
        self.paraphrase = bool(context.rules.get("retest_paraphrase"))

    def claims(self, obs: Observation) -> list[tuple[str, str]]:
        """Claims extracted from the subject's answers, oldest first."""
        out: list[tuple[str, str]] = []
        for e in obs.events:
            if e.type == "utterance" and e.actor is not None and e.actor != obs.seat:
                out.extend(templates.extract_claims(str(e.payload.get("message", ""))))
        return out

    def last_answer(self, obs: Observation) -> str:
        for e in reversed(obs.events):
            if e.type == "utterance" and e.actor != obs.seat:
                return str(e.payload.get("message", ""))
        return ""

    async def act(self, obs: Observation, decision: Decision) -> Action | str:
        if decision.kind != "ask":  # a probe or any other decision: say nothing new
            return decision.silent_option or "..."
        st = obs.state
        stage, idx = st.get("stage", "main"), int(st.get("question_index", 0))
        slots = list(st.get("stage1_slots", []))
        if stage == "get_to_know" and idx < len(slots):
            q = templates.QUESTIONS[slots[idx]][0]
            self.stage1.append(q)
            return q
        if stage == "retest":
            i = idx - int(st.get("m", 0)) - int(st.get("q", 0))
            if 0 <= i < len(slots):
                pair = templates.QUESTIONS[slots[i]]
                return (
                    pair[1]
                    if self.paraphrase
                    else (self.stage1[i] if i < len(self.stage1) else pair[0])
                )
        return self.follow_up(obs, slots)

    def follow_up(self, obs: Observation, slots: list[str]) -> str:
        claims = self.claims(obs)
        if not claims:
            slot = slots[self.rng.randrange(len(slots))] if slots else "occupation"
            return templates.QUESTIONS.get(slot, ("Tell me about yourself.",))[0]
        family = FAMILIES[self.family % 3]  # detail, cross_check, confirm in turn
        self.family += 1
        if self.rng.random() < self.trap_rate:
            family = "trap"
        slot, value = claims[-1]
        said = templates.second_person(slot, value)
        if family == "detail":
            tmpl = DETAIL.get(slot, "You said {c}. Can you tell me more about that — since when?")
            return tmpl.format(c=said, v=value)
        if family == "cross_check" and len(claims) > 1:
            s2, v2 = claims[self.rng.randrange(len(claims) - 1)]
            return f"Earlier you said {templates.second_person(s2, v2)}, and now {said}. How do those fit together?"
        if family == "trap":
            altered = _alter(slot, value, self.rng)
            return f"Just to confirm: {templates.second_person(slot, altered)}, right?"
        s, v = claims[self.rng.randrange(len(claims))]
        return f"Just to confirm: {templates.second_person(s, v)}, right?"


def _alter(slot: str, value: str, rng: random.Random) -> str:
    if value.isdigit():
        return str(int(value) + rng.choice([-2, -1, 1, 2, 3]))
    return {"location": "Lisbon", "origin": "Lisbon", "occupation": "pilot"}.get(
        slot, value + " too"
    )
