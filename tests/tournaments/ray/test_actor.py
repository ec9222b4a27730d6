"""Models as Ray actors: a killed actor is restarted and its in-flight calls are re-asked; the
real bundled model served by an actor plays a tournament exactly as the in-process one."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("ray")

import ray

from arena.llm.actor import ActorBackend, current_match, start_model_actors
from arena.llm.config import BackendConfig
from arena.llm.messages import ChatRequest
from tests.tournaments.ray.ray_setup import echo_model, ray_cluster  # noqa: F401
from tests.tournaments.ray.test_executor import played
from tests.tournaments.test_executor import make_config
from tournaments.executor import Tournament
from tournaments.ray.executor import RayExecutor

pytestmark = [pytest.mark.usefixtures("ray_cluster"), pytest.mark.ray_isolated]


def ask(text: str) -> ChatRequest:
    return ChatRequest([{"role": "user", "content": text}], max_tokens=4)


def test_a_killed_model_actor_is_restarted_and_its_in_flight_calls_are_asked_again() -> None:
    config = BackendConfig(type="local", batch_window_s=0.01, max_batch=4)
    [actor] = start_model_actors(config, ["cpu"], loader=echo_model, num_cpus=0)
    try:
        backend = ActorBackend(config, [actor])
        first = ray.get(actor.stats.remote())

        async def calls_across_a_kill() -> list[Any]:
            calls = [asyncio.create_task(backend.complete(ask(f"q{i}"))) for i in range(6)]
            while (await actor.stats.remote())["pending"] == 0:  # some are in flight
                await asyncio.sleep(0.01)
            ray.kill(actor, no_restart=False)  # as if its process died; Ray restarts it
            return await asyncio.gather(*calls)

        results = asyncio.run(calls_across_a_kill())
        assert [r.text for r in results] == [f"echo:q{i}" for i in range(6)]
        assert backend.n_reasked >= 1
        assert ray.get(actor.stats.remote())["pid"] != first["pid"]  # a new process answered
    finally:
        ray.kill(actor, no_restart=True)


def test_calls_stay_with_one_actor_per_match() -> None:
    config = BackendConfig(type="local", batch_window_s=0.0)
    actors = start_model_actors(config, ["cpu", "cpu"], loader=echo_model, num_cpus=0)
    try:
        backend = ActorBackend(config, actors)

        async def match(mid: str) -> None:
            current_match.set(mid)
            for i in range(3):
                await backend.complete(ask(f"{mid}-{i}"))

        async def both() -> None:
            await asyncio.gather(match("m-a"), match("m-b"), match("m-c"))

        asyncio.run(both())
        served = [ray.get(a.stats.remote())["served"] for a in actors]
        assert sum(served) == 9 and all(n % 3 == 0 for n in served)
    finally:
        for a in actors:
            ray.kill(a, no_restart=True)


@pytest.mark.slow
def test_the_bundled_model_in_an_actor_plays_as_the_in_process_model(tmp_path: Path) -> None:
    from arena.llm.local_model import bundled_gguf

    try:
        bundled_gguf()
    except Exception as err:  # pragma: no cover - depends on the install
        pytest.skip(f"bundled model not installed: {err}")
    llm = {"backend": {"type": "local", "max_tokens": 8}, "max_prompt_tokens": 600}
    cfg = make_config(
        tmp_path,
        rules={"n_players": 2, "rounds": 1},
        agents=[
            {"name": "low", "kind": "toy.lowest"},
            {"name": "lm", "kind": "llm", "params": llm},
        ],
        matches=1,
        concurrency=1,
    )
    local = asyncio.run(Tournament(cfg, tmp_path / "a", "a").run())
    executor = RayExecutor(model_cpus=0)
    try:
        remote = asyncio.run(Tournament(cfg, tmp_path / "r", "r", executor=executor).run())
        [[actor]] = executor.models.values()
        stats = ray.get(actor.stats.remote())
    finally:
        asyncio.run(executor.close())
    assert [r.status for r in remote] == ["finished"]
    assert played(remote) == played(local)
    calls = sum(
        1
        for r in remote
        for line in (tmp_path / "r" / str(r.jsonl)).read_text().splitlines()
        if '"type":"llm_call"' in line
    )
    assert calls >= 2 and stats["served"] == calls  # every call of the run met the actor
