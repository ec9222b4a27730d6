"""A turn to speak with a menu: a seat that ranks its moves says the likeliest sentence of the
game's own offered to it (``LLMAgentParams.speech``), never a copy refused as "not speech".

The model is a copier (the real backend base class): asked to rank, it likes best the candidate
that shares most words with the transcript's last line, as SmolLM2-135M copied the previous
speaker ("I suspect Sana." said by Sana); asked to write, it writes that line back.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from arena.agents.llm_agent import LLMAgent
from arena.llm.backends.base import Backend
from arena.llm.config import BackendConfig
from arena.llm.messages import ChatRequest, ChatResult
from arena.types import Decision, Option
from tests.arena.agents.werewolf_seat import play_one_seat

LLM_SEAT = 0  # seed 5: it lives to speak five times


class CopierBackend(Backend):
    kind = "copier"

    def __init__(self) -> None:
        super().__init__(BackendConfig(model="copier"))
        self.menus: list[list[str]] = []

    async def _attempt(self, request: ChatRequest) -> ChatResult:
        user = request.messages[1]["content"]
        last = user.split("</transcript>")[0].strip().splitlines()[-1]
        if request.choices:
            if not request.choices[0].startswith("{"):  # a speech menu, not moves
                self.menus.append(list(request.choices))
            scores = [float(len(set(c.split()) & set(last.split()))) for c in request.choices]
            order = sorted(range(len(scores)), key=lambda j: (-scores[j], j))
            return ChatResult(text=request.choices[order[0]], ranked=order, scores=scores,
                              model="copier")  # fmt: skip
        return ChatResult(text=last.split(": ", 1)[-1], model="copier")

    async def preflight(self) -> str:
        return "copier"


def play(speech: str) -> tuple[list[Any], CopierBackend, list[str]]:
    backend = CopierBackend()
    agent = LLMAgent(name="model", decide="rank", speech=speech, backend={"model": "copier"})
    agent.backend = backend
    events, result = play_one_seat(agent, LLM_SEAT, seed=5)
    return events, backend, [s.name for s in result.seats]


def test_a_ranking_seat_says_a_sentence_of_its_menu_and_never_accuses_itself() -> None:
    events, backend, names = play("auto")
    me = names[LLM_SEAT]
    said = [e.payload["text"] for e in events if e.type == "message"
            and e.payload["seat"] == LLM_SEAT]  # fmt: skip
    assert said and backend.menus
    assert len(said) == len(backend.menus)  # every turn to speak: one sentence, no pass
    assert all(text in menu for text, menu in zip(said, backend.menus, strict=True))
    assert not any(re.search(rf"\b{me}\b", text) for text in said)
    speak_errors = [
        e
        for e in events
        if e.type in ("invalid_action", "fallback")
        and e.actor == LLM_SEAT
        and e.payload.get("decision") == "speak"
    ]
    assert speak_errors == []
    calls = [e.payload for e in events if e.type == "llm_call"
             and e.payload["decision"] == "speak"]  # fmt: skip
    assert calls and all(c["ranked"] and "refused" not in c for c in calls)


def test_free_speech_is_written_and_a_copy_is_refused() -> None:
    events, backend, _ = play("free")
    assert backend.menus == []  # its moves were ranked, its words written
    refused = [e for e in events if e.type == "invalid_action" and e.actor == LLM_SEAT
               and e.payload.get("decision") == "speak"]  # fmt: skip
    assert refused and all("not speech" in e.payload["error"] for e in refused)


SPEAK = Decision(kind="speak", options=[Option(id="pass")], free_text=True,
                 silent_option="pass", menu=["I suspect Olga.", "Olga is a wolf."])  # fmt: skip


@pytest.mark.parametrize(
    ("params", "menu"),
    [
        ({"backend": {"type": "local"}}, True),  # the bundled model ranks by default
        ({"backend": {"type": "local"}, "speech": "free"}, False),
        ({"backend": {"type": "local", "rank_choices": False}}, False),
        ({"backend": {"type": "openai", "model": "m"}}, False),  # a served model writes
        ({"backend": {"type": "openai", "model": "m"}, "decide": "rank"}, True),
        ({"backend": {"type": "openai", "model": "m"}, "speech": "menu"}, True),
    ],
)
def test_who_speaks_from_a_menu(params: dict[str, Any], menu: bool) -> None:
    agent = LLMAgent(name="a", **params)
    assert agent.config.speaks_from_menu(SPEAK) is menu
    assert not agent.config.speaks_from_menu(SPEAK.model_copy(update={"menu": []}))


def test_a_menu_with_a_local_model_that_may_not_rank_is_refused_in_the_config() -> None:
    with pytest.raises(ValueError, match="rank_choices: false"):
        LLMAgent(name="a", speech="menu", backend={"type": "local", "rank_choices": False})


def test_a_menu_needs_speech_and_sentences_that_fit() -> None:
    with pytest.raises(ValueError, match="menu of sentences without speech"):
        Decision(kind="vote", options=[Option(id="1")], menu=["I suspect Olga."])
    with pytest.raises(ValueError, match="empty or too long"):
        Decision(kind="speak", free_text=True, max_chars=5, menu=["I suspect Olga."])


def test_a_menu_sentence_that_repeats_the_seats_own_knowledge_is_speech() -> None:
    # the Seer's "Lars is not a wolf." is the words of its night result: a copy of its
    # instructions if written freely, its own sentence when the game offered it
    agent = LLMAgent(name="seer", backend={"type": "local"})
    request = ChatRequest(
        messages=[
            {"role": "system", "content": "You are Mia, the Seer, playing Werewolf."},
            {"role": "user", "content": "Night 1: Your inspection: Lars is not a wolf.\n"
                                        "Day 1: it is your turn to speak."},
        ]
    )  # fmt: skip
    said = "Lars is not a wolf."
    offered = SPEAK.model_copy(update={"menu": [said, "I suspect Olga."]})
    assert agent.copy_refusal(request, said, offered, ["Mia", "Lars"], "Mia") is None
    free = SPEAK.model_copy(update={"menu": []})
    assert "not speech" in (agent.copy_refusal(request, said, free, ["Mia", "Lars"], "Mia") or "")
