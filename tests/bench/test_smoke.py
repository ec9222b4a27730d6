"""Every benchmark script runs end to end on tiny settings and prints its figures as JSON.

These are smoke tests, not timings: they catch a benchmark broken by a code change (the
figures themselves are measured by running the scripts, see docs/benchmarks.md).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

CASES = {
    "env_speed": ["--seconds", "0.2", "--games", "3"],
    "llm_overhead": ["--calls", "10"],
    "scheduler": [
        "--concurrency",
        "2",
        "--latency",
        "0.01",
        "--waves",
        "1",
        "--bare-seconds",
        "0.3",
    ],
    "scale": ["--matches", "6", "--concurrency", "3"],
    "live": ["--game", "toy", "--matches", "3", "--concurrency", "3", "--broker", "embedded"],
    "local_batching": ["--agents", "2", "--max-tokens", "3"],
    "local_multiturn": [
        "--turns",
        "2",
        "--seats",
        "1",
        "--max-tokens",
        "2",
        "--bound-dtypes",
        "float32",
        "--bound-prompts",
        "1",
        "--decode-steps",
        "2",
        "--reply-seats",  # a padded batch of two, both decode paths
        "2",
        "--reply-tokens",
        "4",
        "--skip-single",  # the N-seat run covers the same paths
    ],
    "metrics_cost": [],
    "metrics_validity": ["--part", "privacy", "--no-embeddings", "--limit", "30"],
    "werewolf_baselines": ["--games", "4", "--boot", "20"],
    "avalon_baselines": ["--games", "4"],
    "negotiation_baselines": ["--games", "4", "--boot", "20"],
    "memory": ["--insights", "50", "--calls", "5", "--matches", "1"],
    "validity_persona": ["--split", "dev", "--limit", "20"],
    "ratings_stability": ["--seeds", "1", "--per-pair", "2", "--counts", "1,2", "--orders", "2"],
    "planner": ["--seeds", "1", "--per-pair", "2", "--budget", "40", "--trials", "1"],
    "selfplay": ["--population", "2", "--seeds", "1", "--concurrency", "2", "--blocks", "1"],
    "export": ["--matches", "12", "--small", "4", "--concurrency", "4"],
    "ray_executor": ["--matches", "4", "--concurrency", "2"],
    "remote": ["--matches", "2", "--concurrent-matches", "4", "--concurrency", "2"],
    "live_capacity": ["--events", "900", "--matches", "5", "--broker", "embedded"],
    "growth": ["--sizes", "8", "--concurrency", "4"],
}
EXPECTED = {
    "env_speed": "arena/Werewolf-v0 pettingzoo_aec",  # the TextArena ratio needs `make bench`
    "llm_overhead": "agent_overhead_ratio",
    "scheduler": "vs_bare_client",
    "scale": "default_vs_no_broker",  # both paths ran
    "live": "events_per_s_delivered",
    "local_batching": "batching_speedup",
    "local_multiturn": "reuse_latency_speedup_1seats_float32",
    "metrics_cost": "score_all_offline_tiers_cpu_s",
    "metrics_validity": "privacy_hard_evidence",
    "werewolf_baselines": "village_win",
    "avalon_baselines": "rule_good_vs_rule_evil",
    "negotiation_baselines": "random vs greedy",
    "memory": "retrieval_injection_ms_per_decision",
    "validity_persona": "persona_claims_contradiction",
    "ratings_stability": "exact_order_share",
    "planner": "planner_vs_uniform",
    "selfplay": "selfplay_vs_run_per_game",
    "export": "peak_rss_ratio_large_vs_small",  # the small and the full export both ran
    "ray_executor": "projection_100_workers",
    "remote": "remote_added_ms_per_decision",
    "live_capacity": "events_per_s_delivered",  # both settings ran
    "growth": "default_vs_no_broker",  # both paths ran
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CASES))
def test_benchmark_runs_and_prints_its_figures(name: str) -> None:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / f"{name}.py"), *CASES[name]],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    assert lines, proc.stdout[-2000:]
    figures = " ".join(str(line.get("figure", "")) for line in lines)
    assert EXPECTED[name] in figures, figures


def test_local_multiturn_records_seats_whose_prompts_replay(tmp_path: Path) -> None:
    """``--record`` (rule bots, no model) writes seats that replay turn by turn, losslessly."""
    sys.path.insert(0, str(ROOT / "bench"))
    import local_multiturn

    data = tmp_path / "prompts.json"
    assert local_multiturn.record(data, 2, turns=4, max_tokens=8, max_prompt=6000) == 0
    seats = local_multiturn.load_seats(data, 2, turns=4, max_tokens=8)
    assert len(seats) == 2 and all(len(s) == 4 for s in seats)
    assert all([m["role"] for m in r.messages] == ["system", "user"] for s in seats for r in s)
    log = [
        {"messages": [{"role": "system", "content": sys_}, {"role": "user", "content": user}],
         "choices": choices, "max_tokens": 8}
        for sys_, user, choices in [("S1", "ab", None), ("S1", "abcd", ['{"choice": "1"}']),
                                    ("S2", "xbcd", None)]
    ]  # fmt: skip
    data.write_text(json.dumps({"seats": [{"turns": local_multiturn._delta(log)}]}))
    back = local_multiturn.load_seats(data, 1, turns=3, max_tokens=8)[0]
    assert [r.messages for r in back] == [c["messages"] for c in log]
    assert [r.choices for r in back] == [c["choices"] for c in log]
