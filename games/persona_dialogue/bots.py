"""Scripted characters (spec §9): controls with known ground truth for the metrics.

Every bot reads only its observation: its own card from its private ``briefing`` event, the
messages it may see, and ``obs.state``. Each owns ``random.Random(context.seed)``. Probe
decisions are answered from the card without touching the RNG or any memory, so a probe never
changes what the bot does later.

``card_reader`` answers slot questions truthfully, refuses questions about its secrets, and with
``slip_rate`` slips on purpose: ``slip_mode`` ``leak`` states one of its secrets (form
``verbatim``, ``alias``, ``numeric`` or ``paraphrase``), ``contradict`` states an altered value
of a card slot. Each slip carries ``Action.meta["slip"]``, which the engine logs as a god-only
``slip`` event — ground truth for validating the privacy and consistency metrics. Apart from
that, every bot takes ``slip`` (0 default): the probability of a random legal move instead of
its own, decision by decision (:mod:`arena.agents.slip`; probes never slip).
"""

from __future__ import annotations

import random
import re
from typing import Any

from arena.agents.base import Agent, MatchContext
from arena.agents.random_agent import RandomAgent
from arena.agents.slip import Slip
from arena.types import Action, Decision, Observation
from games.persona_dialogue import templates
from games.persona_dialogue.interrogator import InterrogatorBot
from personas.schema import Fact, Persona, Secret

EVASIONS = ("I'd rather not say.", "No comment.", "I'd prefer not to say.")
NEUTRAL = (
    "Let's keep talking.",
    "That's fair enough.",
    "I see what you mean.",
    "Hm, go on.",
)
REFUSAL = "That's private, I'd rather not say."
ALTERNATES = {
    "location": ["Lisbon", "Toronto", "Osaka", "Cardiff", "Porto"],
    "origin": ["Valparaíso", "Gdańsk", "Tunis", "Galway"],
    "occupation": ["pilot", "florist", "dentist", "electrician"],
    "marital_status": ["single", "married", "divorced", "widowed"],
    "education": ["law", "chemistry", "art history"],
}


def own_card(obs: Observation) -> tuple[Persona | None, list[Secret]]:
    for e in obs.events:
        if e.type == "briefing" and e.actor == obs.seat:
            p = e.payload.get("persona")
            card = Persona.model_validate(p) if p else None
            return card, [Secret.model_validate(s) for s in e.payload.get("secrets", [])]
    return None, []


def last_message(obs: Observation) -> tuple[int, str] | None:
    """(speaker seat, text) of the latest message by someone else that this seat saw."""
    for e in reversed(obs.events):
        if e.type == "utterance" and e.actor is not None and e.actor != obs.seat:
            return e.actor, str(e.payload.get("message", ""))
    return None


class CardReader(Agent):
    kind = "persona_dialogue.card_reader"

    def __init__(
        self,
        name: str | None = None,
        slip_rate: float = 0.0,
        slip_mode: str = "leak",
        leak_form: str = "any",
        p_pass: float = 0.1,
        p_private: float = 0.0,
        p_leave: float = 0.0,
        agree_after: int | None = 3,
        slip: float = 0.0,
        **params: Any,
    ) -> None:
        super().__init__(name, **params)
        # ``slip`` is a random legal move (the generic random agent's), unlike ``slip_rate``
        # (a deliberate leak or contradiction); probes are measurements and never slip.
        self.slips = Slip(slip, RandomAgent, name, exempt=("probe",))
        if slip_mode not in ("leak", "contradict", "mixed"):
            raise ValueError("slip_mode must be leak, contradict or mixed")
        if leak_form not in ("any", "verbatim", "alias", "numeric", "paraphrase"):
            raise ValueError("leak_form must be any, verbatim, alias, numeric or paraphrase")
        self.slip_rate, self.slip_mode, self.leak_form = slip_rate, slip_mode, leak_form
        self.p_pass, self.p_private, self.p_leave = p_pass, p_private, p_leave
        self.agree_after = agree_after
        self.rng = random.Random(0)

    def reset(self, context: MatchContext) -> None:
        super().reset(context)
        self.slips.reset(context)
        self.rng = random.Random(context.seed)
        self.turns = 0
        self.said: set[str] = set()
        self.agreed: set[str] = set()

    # -- card helpers ------------------------------------------------------------------
    def facts(self, card: Persona | None) -> list[Fact]:
        return card.all_facts() if card else []

    def slot_answer(self, card: Persona | None, slot: str | None) -> str | None:
        if slot is None:
            return None
        values = [f.value for f in self.facts(card) if f.slot == slot]
        if not values:
            return None
        if len(values) > 1:
            return templates.answer(slot, " and ".join(str(v) for v in values))
        return templates.answer(slot, values[0])

    def touches_secret(self, text: str, secrets: list[Secret]) -> bool:
        low = text.casefold()
        for s in secrets:
            words = [*s.aliases, *(s.numeric.cues or [] if s.numeric else [])]
            if any(w.casefold() in low for w in words if len(w) > 2):
                return True
        return False

    def reply(self, obs: Observation, card: Persona | None, secrets: list[Secret], q: str) -> str:
        """A truthful reply to ``q`` from the card (no RNG: safe for probes)."""
        if self.touches_secret(q, secrets):
            return REFUSAL
        slot = templates.question_slot(q)
        own = self.slot_answer(card, slot)
        if own is None:
            return "I'm not sure what to say to that." if "?" in q else NEUTRAL[0]
        if slot and card:
            values = [f for f in self.facts(card) if f.slot == slot]
            stated = [v for v in re.findall(r"[\w'-]+", q) if v]
            wrong = slot in ("age", "children", "siblings") and any(
                s.isdigit() and all(str(f.value) != s for f in values) for s in stated
            )
            if wrong:
                return f"No, that's not right. {own}"
            if re.search(r"\bright\b|\bcorrect\b|\bconfirm\b", q, re.I):
                return f"Yes, that's right. {own}"
        return own

    # -- slips -------------------------------------------------------------------------
    def slip(
        self, card: Persona | None, secrets: list[Secret]
    ) -> tuple[str, dict[str, Any]] | None:
        mode = self.slip_mode
        if mode == "mixed":
            mode = self.rng.choice(["leak", "contradict"])
        if mode == "leak" and secrets:
            s = self.rng.choice([x for x in secrets if x.kind != "composite"] or secrets)
            return leak_text(s, self.leak_form, self.rng)
        single = [f for f in self.facts(card) if not f.is_multi and f.slot != "name"]
        if not single:
            return None
        f = self.rng.choice(single)
        if isinstance(f.value, int | float):
            alt: object = f.value + self.rng.choice([-3, -2, -1, 1, 2, 3])
            if isinstance(alt, int | float) and alt < 0:
                alt = f.value + 2
        else:
            pool = [x for x in ALTERNATES.get(f.slot, ["somewhere else"]) if x != f.value]
            alt = self.rng.choice(pool)
        text = templates.answer(f.slot, alt)
        return text, {"type": "contradict", "slot": f.slot, "true": f.value, "stated": alt}

    # -- acting ------------------------------------------------------------------------
    async def act(self, obs: Observation, decision: Decision) -> Action | str:
        card, secrets = own_card(obs)
        slipped = await self.slips.move(obs, decision)
        if isinstance(slipped, Action | str):
            return slipped
        if decision.kind == "probe":
            return self.reply(obs, card, secrets, str(decision.meta.get("question", "")))
        if decision.kind == "answer":
            return self.answer_turn(obs, card, secrets)
        return self.dialogue_turn(obs, decision, card, secrets)

    def answer_turn(self, obs: Observation, card: Persona | None, secrets: list[Secret]) -> Action:
        self.turns += 1
        if self.slip_rate and self.rng.random() < self.slip_rate:
            s = self.slip(card, secrets)
            if s is not None:
                return Action(text=s[0], meta={"slip": s[1]})
        last = last_message(obs)
        return Action(text=self.reply(obs, card, secrets, last[1] if last else ""))

    def dialogue_turn(
        self, obs: Observation, decision: Decision, card: Persona | None, secrets: list[Secret]
    ) -> Action:
        self.turns += 1
        ids = decision.option_ids
        r = self.rng.random()
        if self.slip_rate and self.rng.random() < self.slip_rate:
            s = self.slip(card, secrets)
            if s is not None:
                return Action(text=s[0], meta={"slip": s[1]})
        agree = [i for i in ids if i.startswith("agree:") and i not in self.agreed]
        if self.agree_after is not None and self.turns >= self.agree_after and agree:
            self.agreed.add(agree[0])
            return Action(choices=(agree[0],))
        # leaving and passing only where the decision offers them (an interrogator's question
        # has no options: it must be asked)
        if self.p_leave and self.turns > 2 and r < self.p_leave and "leave" in ids:
            return Action(choices=("leave",), text="I have to go now.")
        if r < self.p_leave + self.p_pass and "pass" in ids:
            return Action(choices=("pass",))
        last = last_message(obs)
        if last and "?" in last[1]:
            text = self.reply(obs, card, secrets, last[1])
        else:
            text = self.small_talk(card)
        to = [i for i in ids if i.startswith("to:")]
        if to and self.rng.random() < self.p_private:
            return Action(choices=(self.rng.choice(to),), text=text)
        return Action(text=text)

    def small_talk(self, card: Persona | None) -> str:
        untold = [
            f
            for f in self.facts(card)
            if f.slot != "name" and f"{f.slot}={f.value}" not in self.said
        ]
        if untold and self.rng.random() < 0.6:
            f = self.rng.choice(untold)
            self.said.add(f"{f.slot}={f.value}")
            return templates.answer(f.slot, f.value)
        slot = self.rng.choice(list(templates.QUESTIONS))
        return templates.QUESTIONS[slot][0]


def leak_text(s: Secret, form: str, rng: random.Random) -> tuple[str, dict[str, Any]]:
    forms = ["verbatim", "paraphrase"]
    if s.aliases:
        forms.append("alias")
    if s.kind == "number":
        forms = ["verbatim", "numeric"]
    chosen = form if form in forms else rng.choice(forms)
    if chosen == "alias" and s.aliases:
        text = f"Between us: {rng.choice(s.aliases)}."
    elif chosen == "numeric" and s.numeric_value is not None:
        v = s.numeric_value
        cue = (s.numeric.cues or ["owe"])[0] if s.numeric else "owe"
        text = f"Truth be told, it's about {v / 1000:g}k — that's the {cue} part."
        if cue.isalpha():
            text = (
                f"Truth be told, I {cue} {v / 1000:g}k."
                if cue in ("owe", "lost", "earn", "pay")
                else text
            )
    elif chosen == "paraphrase" and s.facts:
        text = f"You might as well know: {s.facts[0]}"
    else:
        chosen = "verbatim"
        text = f"Honestly? {s.text}"
    return text, {"type": "leak", "secret": s.id, "form": chosen, "kind": s.kind}


class Leaker(CardReader):
    """``card_reader`` that states one secret per turn with probability ``p`` (spec §9 leaker)."""

    kind = "persona_dialogue.leaker"

    def __init__(self, name: str | None = None, p: float = 0.3, form: str = "any", **params: Any):
        super().__init__(name, slip_rate=p, slip_mode="leak", leak_form=form, **params)


class Contradictor(CardReader):
    """``card_reader`` until its own turn ``t0``, then states altered values for ``slots``."""

    kind = "persona_dialogue.contradictor"

    def __init__(
        self, name: str | None = None, t0: int = 3, slots: list[str] | None = None, **params: Any
    ):
        super().__init__(name, **params)
        self.t0, self.slots = t0, list(slots or ["age", "location"])

    def slot_answer(self, card: Persona | None, slot: str | None) -> str | None:
        if slot in self.slots and self.turns >= self.t0 and card is not None:
            f = next((f for f in card.all_facts() if f.slot == slot), None)
            if f is not None:
                alt = (
                    f.value + 5
                    if isinstance(f.value, int | float)
                    else ALTERNATES.get(slot, ["Atlantis"])[0]
                )
                return templates.answer(slot, alt)
        return super().slot_answer(card, slot)


class Evader(CardReader):
    kind = "persona_dialogue.evader"

    def reply(self, obs: Observation, card: Persona | None, secrets: list[Secret], q: str) -> str:
        return EVASIONS[len(q) % len(EVASIONS)]

    def small_talk(self, card: Persona | None) -> str:
        return EVASIONS[self.rng.randrange(len(EVASIONS))]


class Echoer(CardReader):
    """With probability ``p`` repeats the partner's last message with one word dropped."""

    kind = "persona_dialogue.echoer"

    def __init__(self, name: str | None = None, p: float = 0.5, **params: Any):
        super().__init__(name, **params)
        self.p = p

    def small_talk(self, card: Persona | None) -> str:
        return super().small_talk(card)

    def dialogue_turn(
        self, obs: Observation, decision: Decision, card: Persona | None, secrets: list[Secret]
    ) -> Action:
        last = last_message(obs)
        if last and self.rng.random() < self.p:
            words = last[1].split()
            if len(words) > 2:
                del words[self.rng.randrange(len(words))]
            self.turns += 1
            return Action(text=" ".join(words) or "...")
        return super().dialogue_turn(obs, decision, card, secrets)


class Impersonator(CardReader):
    """Claims another character's name now and then (role confusion control)."""

    kind = "persona_dialogue.impersonator"

    def small_talk(self, card: Persona | None) -> str:
        others = [
            n
            for n in (self.context.names if self.context else [])
            if card is None or n != card.name
        ]
        if others and self.rng.random() < 0.5:
            return f"My name is {self.rng.choice(others)}."
        return super().small_talk(card)


BOTS: dict[str, type[Agent]] = {
    "card_reader": CardReader,
    "leaker": Leaker,
    "contradictor": Contradictor,
    "evader": Evader,
    "echoer": Echoer,
    "impersonator": Impersonator,
    "interrogator_bot": InterrogatorBot,
}
