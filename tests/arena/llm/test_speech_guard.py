"""The LLM agent refuses speech that copies its prompt: re-asked with the reason, then the
policy's fallback, every step recorded (invalid_action, fallback, the call's ``refused``).

The model is a parrot: a backend (the real base class: gate, limiter, accounting) whose reply
to a speech decision is the first words of its own system prompt, as SmolLM2-135M's was in
``make demo``; ``learns`` makes it speak on a re-ask that carries the refusal.
"""

from __future__ import annotations

import json
import re
from typing import Any

from arena.agents.llm_agent import LLMAgent
from arena.llm.backends.base import Backend
from arena.llm.config import BackendConfig
from arena.llm.messages import ChatRequest, ChatResult
from arena.results import InvalidActionPolicy, MatchSpec
from arena.runner import MatchRunner
from tests.arena.toygame import ToyEngine


class ParrotBackend(Backend):
    kind = "parrot"

    def __init__(self, learns: bool) -> None:
        super().__init__(BackendConfig(model="parrot"))
        self.learns = learns
        self.prompts: list[str] = []

    async def _attempt(self, request: ChatRequest) -> ChatResult:
        user = request.messages[-1]["content"]
        self.prompts.append(user)
        props = (request.schema or {}).get("properties", {})
        if "text" not in props:
            reply = json.dumps({"choice": props["choice"]["enum"][0]})
        elif self.learns and "refused" in user:
            reply = json.dumps({"text": "I think the quiet one is hiding something."})
        else:
            copied = " ".join(request.messages[0]["content"].split()[:14])
            reply = json.dumps({"text": copied})
        return ChatResult(text=reply, tokens_in=len(user) // 4, tokens_out=12, model="parrot")

    async def preflight(self) -> str:
        return "parrot"


async def run(learns: bool, retries: int = 1) -> tuple[Any, list[Any], ParrotBackend]:
    engine = ToyEngine({"n_players": 3, "rounds": 1}, seed=2)
    spec = MatchSpec(match_id="toy-2", game="toy", seed=2, seats=["a", "b", "c"])
    backend = ParrotBackend(learns)
    agents = [LLMAgent(name=f"llm{i}") for i in range(3)]
    for a in agents:
        a.backend = backend
    policy = InvalidActionPolicy(retries=retries, fallback="random_legal", timeout_s=None)
    runner = MatchRunner(spec, agents, [], policy, engine=engine)
    result = await runner.run()
    return result, runner.recorder.events, backend


def of(events: list[Any], kind: str) -> list[Any]:
    return [e for e in events if e.type == kind]


async def test_a_parrot_is_reasked_with_the_reason_then_falls_back_silent() -> None:
    result, events, backend = await run(learns=False, retries=1)
    assert result.status == "finished"
    speak_turns = 3  # one speech turn per seat in the one round
    refused = [e for e in of(events, "invalid_action") if e.payload["decision"] == "speak"]
    assert len(refused) == 2 * speak_turns  # the first ask and the one re-ask, each refused
    copied = [re.search(r"copies (\d+) words of your instructions", e.payload["error"])
              for e in refused]  # fmt: skip
    assert all(m is not None and int(m.group(1)) >= 10 for m in copied)
    fallbacks = of(events, "fallback")
    assert len(fallbacks) == speak_turns and {f.payload["policy"] for f in fallbacks} == {"silent"}
    assert not of(events, "message")  # nothing of the prompt was said in public
    reasks = [p for p in backend.prompts if "refused" in p]
    assert len(reasks) == speak_turns and all("not speech" in p for p in reasks)
    calls = [c.payload for c in of(events, "llm_call") if c.payload["decision"] == "speak"]
    assert len(calls) == 2 * speak_turns and all(c["ok"] and "refused" in c for c in calls)
    assert [c["attempt"] for c in calls] == [0, 1] * speak_turns


async def test_a_parrot_that_speaks_on_the_reask_is_heard() -> None:
    result, events, _ = await run(learns=True, retries=1)
    assert result.status == "finished"
    assert not of(events, "fallback")
    said = [e.speech.body for e in of(events, "message")]
    assert said == ["I think the quiet one is hiding something."] * 3
    calls = [c.payload for c in of(events, "llm_call") if c.payload["decision"] == "speak"]
    assert ["refused" in c for c in calls] == [True, False] * 3


def test_a_reply_that_is_only_the_speaker_cue_is_refused() -> None:
    from arena.types import Decision, Option

    speak = Decision(kind="speak", options=[Option(id="pass")], free_text=True,
                     silent_option="pass", max_chars=100)  # fmt: skip
    agent = LLMAgent(name="smol", backend={"type": "local"})
    request = ChatRequest(messages=[{"role": "user", "content": "Say one sentence:"}])
    for said in ("You", "You: You", "Hiro", "you"):
        assert agent.copy_refusal(request, said, speak, ["Hiro"], "Hiro") is not None
    for said in ("pass", "I suspect you, Hiro.", "You lie."):
        assert agent.copy_refusal(request, said, speak, ["Hiro"], "Hiro") is None
