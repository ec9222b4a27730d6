"""CPU cost of the metrics: score a 100-turn, 4-character persona dialogue with all offline tiers
(target < 2 s, model load excluded and reported separately) and the per-turn streaming cost.

Prints one JSON line per figure. Run: .venv/bin/python bench/metrics_cost.py
"""

from __future__ import annotations

import asyncio
import json
import time

from arena.metrics.embed import shared_embedder
from arena.metrics.report import score_events
from arena.metrics.settings import MetricsSettings
from arena.metrics.stream import MetricsSink
from arena.results import MatchSpec
from arena.runner import MatchRunner
from games.persona_dialogue.bots import BOTS


def dialogue(seed: int = 0):
    rules = {"scenario": None, "characters": ["lena", "omar", "samira", "mara"],
             "max_turns": 100, "probes": False, "stale_limit": 1000}  # fmt: skip
    kinds = ["leaker", "contradictor", "card_reader", "echoer"]
    agents = [BOTS[k](name=f"s{i}", p_pass=0, agree_after=None) if k != "leaker"
              else BOTS[k](name=f"s{i}", p=0.2, p_pass=0, agree_after=None)
              for i, k in enumerate(kinds)]  # fmt: skip
    spec = MatchSpec(match_id="bench", game="persona_dialogue", rules=rules, seed=seed,
                     seats=[f"{k}{i}" for i, k in enumerate(kinds)])  # fmt: skip
    runner = MatchRunner(spec, agents)
    asyncio.run(runner.run())
    return runner.recorder.events


def main() -> None:
    import torch

    torch.set_num_threads(1)
    t0 = time.process_time()
    emb = shared_embedder()
    emb._load()
    print(
        json.dumps(
            {"figure": "embedding_model_load_cpu_s", "value": round(time.process_time() - t0, 3)}
        )
    )
    events = dialogue()
    n_msgs = sum(e.type == "utterance" for e in events)
    settings = MetricsSettings()
    for label, s, e in (("score_all_offline_tiers_cpu_s", settings, emb),
                        ("score_lexical_only_cpu_s", settings.model_copy(update={"embeddings": False}), None)):  # fmt: skip
        emb._cache.clear()
        t = time.process_time()
        score_events(events, s, e)
        print(json.dumps({"figure": label, "value": round(time.process_time() - t, 3),
                          "messages": n_msgs, "characters": 4, "target_s": 2.0}))  # fmt: skip
    for label, e in (
        ("stream_per_turn_lexical_ms", None),
        ("stream_per_turn_with_embeddings_ms", emb),
    ):
        emb._cache.clear()
        sink = MetricsSink(settings, embedder=e)
        t = time.process_time()
        for ev in events:
            sink.write(ev)
        dt = time.process_time() - t
        print(json.dumps({"figure": label, "value": round(1000 * dt / max(1, len(sink.metrics)), 3),
                          "messages": len(sink.metrics)}))  # fmt: skip


if __name__ == "__main__":
    main()
