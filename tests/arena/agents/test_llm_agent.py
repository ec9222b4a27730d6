"""The LLM agent on belief reports: a Werewolf match (classic8, rule bots) with one LLM seat.

The model is a parrot (the real backend base class: gate, limiter, accounting) that writes the
first words of its system prompt whenever it is asked to write, as SmolLM2-135M did; asked to
rank, it scores each candidate by a fixed rule. A belief report is no speech: written, it is
refused with the report's form as the reason; ranked (``decide: rank``), it is well formed by
construction and accepted, with the probabilities the scores imply.
"""

from __future__ import annotations

import json
from typing import Any

from arena.agents.llm_agent import LLMAgent
from arena.llm.backends.base import Backend
from arena.llm.config import BackendConfig
from arena.llm.messages import ChatRequest, ChatResult
from tests.arena.agents.werewolf_seat import play_one_seat

LLM_SEAT = 2


class ParrotBackend(Backend):
    """Writes its prompt back; ranks by :func:`score` (seat 0 a wolf, the others not)."""

    kind = "parrot"

    def __init__(self) -> None:
        super().__init__(BackendConfig(model="parrot"))
        self.prompts: list[str] = []

    async def _attempt(self, request: ChatRequest) -> ChatResult:
        self.prompts.append(request.messages[-1]["content"])
        if request.choices:
            scores = [score(c) for c in request.choices]
            order = sorted(range(len(scores)), key=lambda j: (-scores[j], j))
            return ChatResult(text=request.choices[order[0]], ranked=order, scores=scores,
                              model="parrot")  # fmt: skip
        copied = " ".join(request.messages[0]["content"].split()[:14])
        return ChatResult(text=json.dumps({"text": copied}), model="parrot")

    async def preflight(self) -> str:
        return "parrot"


def score(candidate: str) -> float:
    """A log-likelihood: a belief about seat 0 likes 0.9, about anyone else 0.1; a move the
    first candidate."""
    try:
        data = json.loads(candidate)
    except json.JSONDecodeError:  # a sentence of a speech menu
        return 0.0
    if "belief" not in data:
        return 0.0
    ((key, value),) = data["belief"].items()
    want = 0.9 if key == "0" else 0.1
    return -8.0 * abs(float(value) - want)


def play(decide: str) -> tuple[list[Any], ParrotBackend]:
    backend = ParrotBackend()
    agent = LLMAgent(name="model", decide=decide, backend={"model": "parrot"})
    agent.backend = backend
    events, _ = play_one_seat(agent, LLM_SEAT, seed=11, belief_reports="end")
    return events, backend


def belief_events(events: list[Any], kind: str) -> list[dict[str, Any]]:
    return [
        e.payload
        for e in events
        if e.type == kind and e.actor == LLM_SEAT and e.payload.get("decision") == "belief"
    ]


def test_a_written_belief_report_is_reasked_for_its_form_not_for_speech() -> None:
    events, backend = play("generate")
    refused = belief_events(events, "invalid_action")
    assert len(refused) == 2  # the first ask and the one re-ask
    assert all("a belief report is" in r["error"] for r in refused)
    assert not any("speech" in r["error"] for r in refused)
    reasks = [p for p in backend.prompts if "belief report is" in p]
    assert reasks and not any("not speech" in p for p in reasks)


def test_a_ranked_belief_report_is_accepted_with_the_scores_probabilities() -> None:
    events, _ = play("rank")
    assert belief_events(events, "invalid_action") == []
    assert belief_events(events, "fallback") == []
    calls = [c.payload for c in events if c.type == "llm_call"
             and c.payload["decision"] == "belief"]  # fmt: skip
    assert len(calls) == 1 and calls[0]["ranked"] and "refused" not in calls[0]
    (report,) = belief_events(events, "belief_report")
    belief = report["beliefs"]
    others = [str(s) for s in range(8) if s != LLM_SEAT]
    assert sorted(belief) == sorted(others)
    assert belief["0"] > 0.8 and all(belief[k] < 0.2 for k in others if k != "0")
