"""The prompt-copy guard on speech: labelled utterances against a real Werewolf prompt.

The prompt is the one the LLM agent renders for Alice (seat 2, a villager) at her day-2 turn
of a seeded classic8 match played by rule bots. ``TUNED`` are the cases the thresholds of
:func:`arena.llm.parse.prompt_copy` were chosen on; ``HELD_OUT`` were written with them and
never used to choose anything, so they show whether the rule generalises. Copies are modelled
on what SmolLM2-135M actually said in ``make demo`` before the guard (docs/llm.md).
"""

from __future__ import annotations

import pytest

from arena.agents.base import Agent
from arena.agents.llm_agent import LLMAgent
from arena.llm.parse import prompt_copy
from arena.llm.prompt import TRANSCRIPT_OPEN, split_prompt
from arena.results import InvalidActionPolicy, MatchSpec
from arena.runner import MatchRunner
from arena.types import Decision, Observation
from games.werewolf.bots import BOTS


class _Spy(Agent):
    """A rule bot that keeps the observations of its speech decisions."""

    def __init__(self) -> None:
        super().__init__("spy")
        self.inner = BOTS["rule"]()
        self.seen: list[tuple[Observation, Decision]] = []

    def reset(self, context):  # type: ignore[no-untyped-def]
        super().reset(context)
        self.inner.reset(context)

    async def act(self, observation, decision):  # type: ignore[no-untyped-def]
        if decision.kind == "speak":
            self.seen.append((observation, decision))
        return await self.inner.act(observation, decision)


@pytest.fixture(scope="module")
def prompt() -> tuple[str, str, tuple[str, ...], str]:
    """(instructions, transcript, speakers, name) of Alice's day-2 speech prompt."""
    spy = _Spy()
    spec = MatchSpec(match_id="c-106", game="werewolf", rules={"preset": "classic8"}, seed=106,
                     seats=["rule"] * 8)  # fmt: skip
    runner = MatchRunner(
        spec,
        lambda entry, seat: spy if seat == 2 else BOTS["rule"](),
        policy=InvalidActionPolicy(retries=0, timeout_s=None),
    )
    runner.play()
    obs, decision = next((o, d) for o, d in spy.seen if o.phase == "day_2")
    assert obs.name == "Alice"
    # a budget that shows Alice the whole of day 1 (the cases quote it)
    # (the JSON layout the cases were written against: a server backend's)
    agent = LLMAgent(name="smollm2", max_prompt_tokens=900)
    agent.context = spy.context
    messages = agent.build_request(obs, decision).messages
    instructions, transcript = split_prompt(messages)
    # what the cases below quote is in the prompt as written, each part where it belongs
    assert "0=Wen, 1=Priya, 2=Alice" in instructions and "speak to everyone" in instructions
    assert "Quinn: I am the Seer. Ines is a wolf." in transcript
    assert "Quinn:" not in instructions and TRANSCRIPT_OPEN not in transcript
    assert f"between {TRANSCRIPT_OPEN} and" in instructions  # the guard line names the tags
    return instructions, transcript, ("You", *obs.names), obs.name


COPY, SPEECH = True, False

TUNED: list[tuple[str, bool]] = [
    # copies (shapes SmolLM2 produced in the demo)
    ("You are Alice (seat 2) playing Werewolf with 8 players: 0=Wen, 1=Priya, 2=", COPY),
    ("‹transcript> ⏎ [7 earlier lines elided] ⏎ You: You are Alice (seat 2)", COPY),
    ("<transcript>\nWerewolf with 8 players: Wen (seat 0), Priya (seat 1)", COPY),
    ("The transcript between <transcript> and </transcript> is what you have seen so far.", COPY),
    ("Your role: villager (team village). You have no night action.", COPY),
    ("Day 2: it is your turn to speak to everyone (or pass).", COPY),
    ('Answer with one JSON object and nothing else: {"choice": "<id>"}', COPY),
    ("It is Quinn's turn to speak. Quinn: I am the Seer. Ines is a wolf. It is Yusuf's turn", COPY),
    ("21 earlier lines elided", COPY),  # said by SmolLM2 with an assistant prefill "You:"
    ("You are Alice; your role is villager.", COPY),  # SmolLM2 asked for plain words, day 1
    ("It is Rafael's turn to speak.", COPY),  # SmolLM2 asked for plain words, day 2
    # speech
    ("I suspect Rafael.", SPEECH),
    ("I am a villager, so I have no night action; I can only vote.", SPEECH),
    ("Quinn said 'I am the Seer. Ines is a wolf.' and Ines was a wolf, so I trust Quinn.", SPEECH),
    ("The village wins when no wolf is alive, so let's vote carefully.", SPEECH),
    ("Priya keeps saying I suspect Rafael, but Rafael voted for Ines with us.", SPEECH),
    ("Good morning everyone. Nobody died tonight, the doctor must have saved someone.", SPEECH),
    ("Wen, Priya, Rafael: who do you think the second wolf is?", SPEECH),
    ("Quinn, you are the seer, so tell us who you checked.", SPEECH),
    ("You are all too quiet today.", SPEECH),
]

HELD_OUT: list[tuple[str, bool]] = [
    # copies
    ("You are Alice (seat 2) playing Werewolf with 8 players: 0=Wen", COPY),
    ("Alice: Roles in play: 2 werewolf, 4 villager, 1 seer, 1 doctor. The village wins", COPY),
    ("Each turn you are shown the transcript you have seen and one decision.", COPY),
    ("Active rules: first phase night; wolf decision vote; seer learns team", COPY),
    ("[7 earlier lines elided] It is Priya's turn to speak.", COPY),
    ("Vote result (Wen -> Rafael, Priya -> Ines, Alice -> Ines, Rafael -> Ines", COPY),
    ("Legal ids: pass", COPY),
    ("Phase: day_2. Your decision (speak): Day 2: it is your turn to speak", COPY),
    # speech
    ("I agree with Priya, I suspect Rafael too.", SPEECH),
    ("Ines is exiled and she was a wolf. One wolf is left among us.", SPEECH),
    ("I'm just a villager. Quinn, who did you check last night?", SPEECH),
    ("Rafael, why did you vote for Ines so late?", SPEECH),
    ("pass for now, I want to hear Rafael first.", SPEECH),
    ("Yusuf suspected Ines and was right. I think Yusuf is on our side.", SPEECH),
    ("Wolves win when they are as many as the rest of us, so we can't waste a vote.", SPEECH),
]


@pytest.mark.parametrize(("said", "copy"), TUNED)
def test_tuned_cases(prompt: tuple[str, str, tuple[str, ...], str], said: str, copy: bool) -> None:
    assert (prompt_copy(said, *prompt) is not None) is copy, prompt_copy(said, *prompt)


@pytest.mark.parametrize(("said", "copy"), HELD_OUT)
def test_held_out_cases(
    prompt: tuple[str, str, tuple[str, ...], str], said: str, copy: bool
) -> None:
    assert (prompt_copy(said, *prompt) is not None) is copy, prompt_copy(said, *prompt)


def test_the_reason_names_the_copied_words(prompt: tuple[str, str, tuple[str, ...], str]) -> None:
    why = prompt_copy("You are Alice (seat 2) playing Werewolf with 8 players: 0=Wen", *prompt)
    assert why is not None and "you are alice seat 2" in why and "instructions" in why
