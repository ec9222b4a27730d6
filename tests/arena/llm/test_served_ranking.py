"""Ranked choice over HTTP: the bundled model behind ``arena serve --engine transformers`` on
loopback returns log-probabilities, applies its chat template, and decides a match exactly as
the same model in process (slow: real CPU inference)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from arena.agents.llm_agent import LLMAgent
from arena.agents.random_agent import RandomAgent
from arena.llm.local_model import bundled_gguf, load_model
from arena.llm.messages import ChatRequest
from arena.llm.server import ServerThread, TransformersEngine
from arena.results import InvalidActionPolicy, MatchSpec
from arena.runner import MatchRunner
from tests.arena.toygame import ToyEngine

pytestmark = pytest.mark.slow

try:
    bundled_gguf()
except Exception as err:  # pragma: no cover - depends on the install
    pytest.skip(f"bundled model not installed: {err}", allow_module_level=True)

MESSAGES = [
    {"role": "system", "content": "You play a game of werewolf."},
    {"role": "user", "content": 'Vote for a player. Legal ids: 3 | 5. Answer {"choice": "<id>"}'},
]


@pytest.fixture(scope="module")
def served() -> Iterator[ServerThread]:
    with ServerThread(TransformersEngine(), model="local") as server:
        yield server


def post(server: ServerThread, body: dict[str, Any]) -> dict[str, Any]:
    reply = httpx.post(f"{server.url}/chat/completions", json={"model": "local", **body},
                       timeout=300)  # fmt: skip
    reply.raise_for_status()
    data: dict[str, Any] = reply.json()
    return data


def test_a_reply_has_logprobs_and_the_prompt_in_the_chat_template(served):
    model = load_model()
    out = post(served, {"messages": MESSAGES, "max_tokens": 6, "logprobs": True, "echo": True})
    entries = out["choices"][0]["logprobs"]["content"]
    assert 0 < len(entries) <= 6 and all(e["logprob"] <= 0 for e in entries)
    assert out["usage"]["prompt_tokens"] == len(model.encode_chat(MESSAGES))  # templated
    assert "Vote for a player" not in out["choices"][0]["message"]["content"]  # no echo


def test_a_scoring_request_scores_exactly_as_in_process_ranking(served):
    model = load_model()
    choices = [json.dumps({"choice": i}) for i in ("3", "5")]
    local = model.run_batch([ChatRequest(MESSAGES, choices=choices)])[0]
    remote = []
    for choice in choices:
        out = post(served, {
            "messages": [*MESSAGES, {"role": "assistant", "content": choice}],
            "continue_final_message": True, "add_generation_prompt": False,
            "prompt_logprobs": 0, "max_tokens": 1,
        })  # fmt: skip
        tail = [e for e in out["prompt_logprobs"] if e is not None]
        assert "".join(next(iter(e.values()))["decoded_token"] for e in tail) == choice
        remote.append(sum(next(iter(e.values()))["logprob"] for e in tail))
    assert remote == pytest.approx(local.scores, abs=1e-4)


async def play(
    backend: dict[str, Any], decide: str, calls_out: list[dict[str, Any]] | None = None
) -> list[tuple[Any, ...]]:
    engine = ToyEngine({"n_players": 4, "rounds": 1}, seed=4)
    seats = ["llm", *["random"] * (engine.n_seats - 1)]
    spec = MatchSpec(match_id="served-4", game="toy", seed=4, seats=seats)
    agents: list[Any] = [LLMAgent(name="llm", backend=backend, decide=decide)]
    agents += [RandomAgent(name="random") for _ in range(engine.n_seats - 1)]
    policy = InvalidActionPolicy(retries=1, fallback="random_legal", timeout_s=300)
    runner = MatchRunner(spec, agents, [], policy, engine=engine)
    result = await runner.run()
    assert result.status == "finished"
    events = runner.recorder.events
    calls = [e.payload for e in events if e.type == "llm_call"]
    assert calls and all(c["status"] == "ok" for c in calls)
    assert any(c.get("ranked") for c in calls)
    if calls_out is not None:
        calls_out += calls
    kept = ("decision", "invalid_action", "fallback")  # without wall-clock fields
    return [(e.type, e.actor, json.dumps(e.comparable()["payload"], sort_keys=True))
            for e in events if e.type in kept]  # fmt: skip


@pytest.mark.parametrize("temperature", [0.0, 1.5])
async def test_a_served_model_decides_exactly_as_in_process(served, temperature):
    # above temperature 0 a ranked move is a seeded draw from the candidates' likelihoods,
    # drawn by the client: the same draw in process and over HTTP
    local = {"type": "local", "max_tokens": 16, "kv": {"reuse": False},
             "temperature": temperature}  # fmt: skip
    remote = {"type": "openai", "base_url": served.url, "model": "local", "max_tokens": 16,
              "timeout_s": 300, "temperature": temperature}  # fmt: skip
    in_process = await play(local, "auto")  # the bundled model ranks its moves by default
    over_http = await play(remote, "rank")
    assert over_http == in_process


async def test_a_served_ranked_draw_is_the_in_process_draw_seed_for_seed(served):
    # the toy match's ranked moves all kept their likeliest candidate at 1.5; here two close
    # candidates, many seeds: the draws vary, and each is the same both ways
    from arena.llm.backends import make_backend
    from arena.llm.config import BackendConfig

    model = load_model()
    choices = [json.dumps({"choice": i}) for i in ("3", "5")]
    remote = make_backend(BackendConfig(type="openai", base_url=served.url, model="local",
                                        timeout_s=300))  # fmt: skip
    picks = []
    for seed in range(12):
        request = ChatRequest(MESSAGES, choices=choices, temperature=2.0, seed=seed)
        local = model.run_batch([request])[0]
        over_http = await remote.complete(request)
        assert over_http.text == local.text
        picks.append(local.text)
    greedy = model.run_batch([ChatRequest(MESSAGES, choices=choices)])[0].text
    assert greedy in picks and set(picks) == set(choices)


async def test_a_sampled_ranked_move_is_recorded_with_its_temperature() -> None:
    sampled: list[dict[str, Any]] = []
    greedy: list[dict[str, Any]] = []
    local = {"type": "local", "max_tokens": 16, "kv": {"reuse": False}}
    await play({**local, "temperature": 2.0}, "rank", sampled)
    await play(local, "rank", greedy)
    ranked = [c for c in sampled if c.get("ranked")]
    assert ranked and all(c["temperature"] == 2.0 for c in ranked)
    assert all(isinstance(c["likelier"], int) and c["likelier"] >= 0 for c in ranked)
    assert not any("temperature" in c or "likelier" in c for c in greedy)


async def test_a_served_speech_menu_is_ranked_exactly_as_in_process(served):
    # a turn to speak ends with the speech cue as a closed assistant turn; the sentences are
    # scored as the reply after it, both ways (LLMAgentParams.speech)
    from arena.llm.backends import make_backend
    from arena.llm.config import BackendConfig
    from arena.llm.prompt import SPEECH_CUE

    model = load_model()
    messages = [
        MESSAGES[0],
        {"role": "user", "content": "Mia: I suspect Olga.\nDay 1: it is your turn to speak. "
                                    "You are Sana. Your inspection: Olga is a wolf."},
        {"role": "assistant", "content": SPEECH_CUE},
    ]  # fmt: skip
    menu = ["Olga is a wolf.", "I suspect Mia.", "I suspect Olga."]
    remote = make_backend(BackendConfig(type="openai", base_url=served.url, model="local",
                                        timeout_s=300))  # fmt: skip
    request = ChatRequest(messages, choices=menu)
    local = model.run_batch([request])[0]
    over_http = await remote.complete(request)
    assert over_http.text == local.text and over_http.ranked == local.ranked
    assert over_http.scores == pytest.approx(local.scores, abs=1e-4)
